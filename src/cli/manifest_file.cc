#include "cli/manifest_file.h"

#include "checks/manifest.h"
#include "host/user_file.h"
#include "topology/input_error.h"

namespace gdrcheck {

nlohmann::json load_manifest_file(const std::string& path) {
  nlohmann::json m = nlohmann::json::parse(read_user_file(path, 16u << 20, "manifest"), nullptr, false);
  if (m.is_discarded()) throw InputError(path, "not valid JSON");
  validate_manifest(m, path);
  return m;
}

}  // namespace gdrcheck

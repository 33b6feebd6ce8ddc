#include "cli/manifest_file.h"

#include "checks/manifest.h"
#include "host/user_file.h"

namespace gdrcheck {

nlohmann::json load_manifest_file(const std::string& path) {
  return parse_manifest(read_user_file(path, 16u << 20, "manifest"), path);
}

}  // namespace gdrcheck

#include "cli/bandwidth_file.h"

#include <filesystem>

#include "bench/bandwidth_overrides.h"
#include "host/user_file.h"

namespace gdrcheck {

BandwidthOverrides load_bandwidth_file(const std::string& given) {
  std::string file = given;
  if (file.empty() && std::filesystem::exists(kSiteBandwidthFile)) file = kSiteBandwidthFile;
  if (file.empty()) return {};
  return parse_bandwidth_overrides(read_user_file(file, 1u << 20, "bandwidth file"), file);
}

}  // namespace gdrcheck

// The last component of a path: the block device and NVMe controller
// readers both name a device by the sysfs link it resolves to
// (".../nvme0/nvme0n1" → "nvme0n1").
#pragma once

#include <string>

namespace gdrcheck {

// `path` itself when it has no '/'; "" when it ends with one.
inline std::string basename_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace gdrcheck

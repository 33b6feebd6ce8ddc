#include "bench/nccl_tests_locator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

namespace gdrcheck {
namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool try_dir(const std::string& dir, const std::string& test, LocatedBinary& out) {
  if (dir.empty()) return false;
  std::string base = dir.back() == '/' ? dir : dir + "/";
  for (const std::string& candidate : {base + test, base + "build/" + test}) {
    out.searched.push_back(candidate);
    if (executable_file(candidate)) {
      out.path = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace

const std::vector<std::string>& common_nccl_tests_dirs() {
  static const std::vector<std::string> dirs = {
      "/opt/nccl-tests/build",        "/opt/nccl_tests/build",
      "/usr/local/nccl-tests/build",  "/opt/nccl-tests",
      "/opt/amazon/nccl-tests/build", "/usr/local/bin/nccl-tests",
      "/workspace/nccl-tests/build",  "/root/nccl-tests/build",
  };
  return dirs;
}

LocatedBinary locate_nccl_test(const std::string& test, const std::string& dir, const std::string& path_env,
                               const std::vector<std::string>& common_dirs) {
  LocatedBinary out;
  if (!dir.empty()) {
    try_dir(dir, test, out);
    return out;
  }
  std::stringstream path(path_env);
  for (std::string d; std::getline(path, d, ':');) {
    if (d.empty()) continue;  // an empty PATH entry (the current dir) is not searched
    std::string candidate = (d.back() == '/' ? d : d + "/") + test;
    out.searched.push_back(candidate);
    if (executable_file(candidate)) {
      out.path = candidate;
      return out;
    }
  }
  for (const auto& d : common_dirs)
    if (try_dir(d, test, out)) return out;
  return out;
}

}  // namespace gdrcheck

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

LocatedBinary locate_nccl_test(const std::string& test, const std::string& dir, const std::string& path_env) {
  LocatedBinary out;
  if (!dir.empty()) {
    try_dir(dir, test, out);
    return out;
  }
  std::stringstream path(path_env);
  for (std::string d; std::getline(path, d, ':');) {
    // An empty or relative PATH entry names the current directory, which
    // is wherever the job was started.
    if (d.empty() || d[0] != '/') continue;
    std::string candidate = (d.back() == '/' ? d : d + "/") + test;
    out.searched.push_back(candidate);
    if (executable_file(candidate)) {
      out.path = candidate;
      return out;
    }
  }
  return out;
}

}  // namespace gdrcheck

#include "cli/example_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>

namespace gdrcheck {
namespace {

std::string parent_of(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool has_sys(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/sys").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string own_executable() {
  std::array<char, 4096> buf{};
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : "";
}

}  // namespace

std::vector<std::string> example_root_candidates(const std::string& executable, const std::string& build_path) {
  std::vector<std::string> out;
  if (!executable.empty() && executable.front() == '/') {
    std::string prefix = parent_of(parent_of(executable));
    out.push_back((prefix == "/" ? "" : prefix) + "/share/gdrcheck/example-root/dgx-h100");
  }
  if (!build_path.empty()) out.push_back(build_path);
  return out;
}

std::string find_example_root(const std::string& build_path) {
  for (const auto& dir : example_root_candidates(own_executable(), build_path))
    if (has_sys(dir)) return dir;
  return build_path;
}

}  // namespace gdrcheck

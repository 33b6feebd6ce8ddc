#include "snapshot/snapshot_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include "host/root.h"
#include "host/root_audit.h"
#include "host/text_format.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string make_private_dir(const std::string& tarball, const std::string& base) {
  std::string folder = base;
  if (folder.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    folder = tmp && *tmp ? tmp : "/tmp";
  }
  std::vector<char> name(folder.begin(), folder.end());
  for (char c : std::string("/gdrcheck-root-XXXXXX")) name.push_back(c);
  name.push_back('\0');
  if (!::mkdtemp(name.data()))  // mode 0700: the unpacked host is nobody else's to read
    throw InputError(tarball, "no private directory to unpack into in " + folder + ": " + std::strerror(errno));
  return name.data();
}

bool has_sys_not_a_link(const std::string& dir) {
  struct stat st {};
  return ::lstat((dir + "/sys").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The unpacked root: the top, or a single folder in it that holds sys/
// (a tarball made with `tar czf node.tgz capture/`).
std::string root_in(const std::string& top, const std::string& tarball) {
  if (has_sys_not_a_link(top)) return top;
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(top, ec))
    if (std::filesystem::is_directory(e.symlink_status())) dirs.push_back(e.path().string());
  if (dirs.size() == 1 && has_sys_not_a_link(dirs[0])) return dirs[0];
  throw InputError(tarball, "holds no sys/ directory, so it does not stand for a host (not a gdrcheck snapshot?)");
}

}  // namespace

ExtractedRoot::ExtractedRoot(const std::string& tarball, const ExtractLimits& limits, const std::string& base)
    : temp_(make_private_dir(tarball, base)) {
  try {
    int fd = ::open(temp_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw InputError(tarball, std::string("cannot open the private directory: ") + std::strerror(errno));
    try {
      result_ = extract_tarball(tarball, fd, limits);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    root_ = root_in(temp_, tarball);
    try {
      audit_root_for_hwloc(Root(root_));
    } catch (const InputError& e) {
      throw InputError(tarball, e.problem());
    }
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(temp_, ec);
    throw;
  }
}

ExtractedRoot::~ExtractedRoot() {
  // remove_all removes links themselves, never what they point to.
  std::error_code ec;
  std::filesystem::remove_all(temp_, ec);
}

std::string resolve_root_argument(const std::string& arg, std::optional<ExtractedRoot>& holder) {
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return arg;
  if (!S_ISREG(st.st_mode)) throw InputError(arg, "not a directory or a snapshot tarball");
  holder.emplace(arg);
  for (const auto& n : holder->result().notes) std::cerr << "gdrcheck: " << printable(arg) << ": " << n << "\n";
  if (holder->result().skipped > holder->result().notes.size())
    std::cerr << "gdrcheck: " << printable(arg) << ": " << holder->result().skipped - holder->result().notes.size()
              << " more entries not extracted\n";
  return holder->dir();
}

}  // namespace gdrcheck

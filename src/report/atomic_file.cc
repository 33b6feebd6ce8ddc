#include "report/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include "host/text_format.h"
#include "host/unique_fd.h"

namespace gdrcheck {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(printable("cannot write " + path + ": " + what));
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// Six characters from [a-zA-Z0-9], as mkstemp would choose them.
std::string random_suffix() {
  static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s;
  for (int i = 0; i < 6; ++i) s += chars[rd() % (sizeof chars - 1)];
  return s;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;  // no progress and no reason given
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

struct Temporary {
  UniqueFd fd;
  std::string name;  // inside the directory
};

// O_CREAT|O_EXCL never opens an existing name, a link included (planted
// at a guessed PATH.tmp.* it makes the open fail, and the next name is
// tried); O_NOFOLLOW says so twice.
Temporary create_temporary(int dir, const std::string& base, const std::string& path,
                           const std::function<std::string()>& next_suffix) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = base + ".tmp." + next_suffix();
    int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return {UniqueFd(fd), name};
    if (errno != EEXIST) fail(path, "cannot create a temporary file beside it: " + errno_text(errno));
  }
  fail(path, "no free temporary name beside it after 100 attempts");
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  write_file_atomically(path, content, random_suffix);
}

void write_file_atomically(const std::string& path, std::string_view content,
                           const std::function<std::string()>& next_suffix) {
  if (path.empty() || path.back() == '/') fail(path, "not a file name");
  std::size_t slash = path.rfind('/');
  std::string dir_path = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base == "." || base == "..") fail(path, "not a file name");
  UniqueFd dir(::open(dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) fail(path, "directory " + dir_path + ": " + errno_text(errno));
  struct stat st {};
  if (::fstatat(dir.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
    fail(path, "is a directory");

  Temporary tmp = create_temporary(dir.get(), base, path, next_suffix);
  auto discard = [&](const std::string& what) {
    int err = errno;
    ::unlinkat(dir.get(), tmp.name.c_str(), 0);
    fail(path, what + ": " + errno_text(err));
  };
  // The mode the collector needs, whatever umask root runs with.
  if (::fchmod(tmp.fd.get(), 0644) != 0) discard("cannot set the mode of " + tmp.name);
  if (!write_all(tmp.fd.get(), content)) discard("writing " + tmp.name);
  if (::fsync(tmp.fd.get()) != 0) discard("flushing " + tmp.name);
  if (tmp.fd.close() != 0) discard("closing " + tmp.name);
  if (::renameat(dir.get(), tmp.name.c_str(), dir.get(), base.c_str()) != 0)
    discard("renaming " + tmp.name + " over it");
  // The rename itself survives a crash once the directory is flushed; a
  // directory that cannot be flushed still holds the new file.
  ::fsync(dir.get());
}

}  // namespace gdrcheck

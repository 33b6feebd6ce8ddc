#include "host/user_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "host/unique_fd.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string open_problem(int e) {
  if (e == ENOENT || e == ENOTDIR) return "not found";
  if (e == EACCES || e == EPERM) return "permission denied";
  if (e == ELOOP) return "symlink loop";
  return std::string("read error (") + std::strerror(e) + ")";
}

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Opening a device runs its driver (opening /dev/watchdog arms it) and a
// FIFO blocks until a writer comes, so the type is checked on an O_PATH
// descriptor, which opens nothing, and only that same inode is then opened
// for reading through /proc/self/fd.
int open_regular(const std::string& path, const std::string& what) {
  UniqueFd located(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (located.get() < 0) throw InputError(path, open_problem(errno));
  struct stat st {};
  if (::fstat(located.get(), &st) != 0) throw InputError(path, open_problem(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a " + what);
  if (!S_ISREG(st.st_mode)) throw InputError(path, kind_of(st.st_mode) + ", not a " + what);
  std::string reopen = "/proc/self/fd/" + std::to_string(located.get());
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  int fd = ::open(reopen.c_str(), flags);
  // Without /proc the path is opened again; O_NONBLOCK still keeps a FIFO
  // swapped in meanwhile from blocking, and the inode check refuses it.
  if (fd < 0 && errno == ENOENT) fd = ::open(path.c_str(), flags);
  if (fd < 0) throw InputError(path, open_problem(errno));
  struct stat now {};
  if (::fstat(fd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
    ::close(fd);
    throw InputError(path, "changed while it was being opened; not read");
  }
  return fd;
}

}  // namespace

std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what) {
  UniqueFd file(open_regular(path, what));
  std::string out;
  char buf[65536];
  while (out.size() < limit) {
    ssize_t n = ::read(file.get(), buf, std::min(sizeof buf, limit - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path, open_problem(errno));
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  if (out.size() >= limit) throw InputError(path, "larger than " + std::to_string(limit >> 20) + " MiB; not a " + what);
  return out;
}

}  // namespace gdrcheck

#include "host/user_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string open_problem(int e) {
  if (e == ENOENT || e == ENOTDIR) return "not found";
  if (e == EACCES || e == EPERM) return "permission denied";
  if (e == ELOOP) return "symlink loop";
  return std::string("read error (") + std::strerror(e) + ")";
}

std::string file_kind_text(mode_t mode) {
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// What may be read: data that ends. Devices never do (/dev/zero) or run a
// driver when opened (/dev/watchdog).
void check_type(const std::string& path, mode_t mode, const std::string& what) {
  if (S_ISDIR(mode)) throw InputError(path, "is a directory, not a " + what);
  if (!S_ISREG(mode) && !S_ISFIFO(mode)) throw InputError(path, file_kind_text(mode) + ", not a " + what);
}

// Standard input as its own descriptor, so closing it leaves fd 0 alone.
UniqueFd standard_input(const std::string& what) {
  if (::isatty(STDIN_FILENO)) throw InputError("-", "standard input is a terminal; pipe the " + what + " in");
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) throw InputError("-", "standard input is closed");
  if (!S_ISSOCK(st.st_mode)) check_type("-", st.st_mode, what);  // a socket from a service manager reads fine
  UniqueFd fd(::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0));
  if (!fd.valid()) throw InputError("-", open_problem(errno));
  return fd;
}

// The type is checked on an O_PATH descriptor, which opens nothing, and
// only that same inode is then opened for reading through /proc/self/fd.
// O_NONBLOCK keeps the open of a FIFO without a writer from waiting; reads
// block again afterwards, so a writer that is there (`<(zcat x)`) is read
// to its end, and a FIFO without one reads as empty.
UniqueFd open_named(const std::string& path, const std::string& what) {
  UniqueFd located(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!located.valid()) throw InputError(path, open_problem(errno));
  struct stat st {};
  if (::fstat(located.get(), &st) != 0) throw InputError(path, open_problem(errno));
  check_type(path, st.st_mode, what);
  std::string reopen = "/proc/self/fd/" + std::to_string(located.get());
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  UniqueFd fd(::open(reopen.c_str(), flags));
  // Without /proc the path is opened again; O_NONBLOCK still keeps a FIFO
  // swapped in meanwhile from blocking, and the inode check refuses a swap.
  if (!fd.valid() && errno == ENOENT) fd.reset(::open(path.c_str(), flags));
  if (!fd.valid()) throw InputError(path, open_problem(errno));
  struct stat now {};
  if (::fstat(fd.get(), &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino)
    throw InputError(path, "changed while it was being opened; not read");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

UniqueFd open_user_input(const std::string& path, const std::string& what) {
  return path == "-" ? standard_input(what) : open_named(path, what);
}

std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what) {
  UniqueFd file = open_user_input(path, what);
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

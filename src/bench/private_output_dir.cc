#include "bench/private_output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string last_errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::string make_private_output_dir(const std::string& base, const std::string& stem) {
  std::string dir = base.empty() ? "." : base;
  std::string pattern = (dir.back() == '/' ? dir : dir + "/") + stem + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkdtemp creates the directory itself (mode 0700) and fails rather than
  // reuse anything that exists, link or not.
  if (!::mkdtemp(buffer.data()))
    throw InputError(dir, "cannot create a private output directory: " + last_errno_text());
  return buffer.data();
}

std::string reserve_output_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return path + ": cannot be created: " + last_errno_text();
  ::close(fd);
  return "";
}

int open_own_output(const std::string& path, std::string& problem) {
  // O_NONBLOCK: a FIFO put in place of the file must not block the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem =
        path + ": cannot be opened: " + (errno == ELOOP ? std::string("it is a symbolic link") : last_errno_text());
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    problem = path + ": " + last_errno_text();
  else if (!S_ISREG(st.st_mode))
    problem = path + ": not a regular file";
  else if (st.st_uid != ::geteuid())
    problem = path + ": owned by uid " + std::to_string(st.st_uid) + ", not by the user running gdrcheck";
  if (!problem.empty()) {
    ::close(fd);
    return -1;
  }
  return fd;
}

OwnOutput read_own_output(const std::string& path, std::size_t cap) {
  OwnOutput out;
  int fd = open_own_output(path, out.problem);
  if (fd < 0) return out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.problem = path + ": read failed: " + last_errno_text();
      break;
    }
    if (n == 0) break;
    out.content.append(buf, static_cast<std::size_t>(n));
    if (out.content.size() >= cap) {
      out.problem = path + ": too large (" + std::to_string(cap) + " bytes or more)";
      break;
    }
  }
  ::close(fd);
  if (!out.problem.empty()) out.content.clear();
  return out;
}

}  // namespace gdrcheck

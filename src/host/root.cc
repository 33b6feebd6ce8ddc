#include "host/root.h"

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dirent.h>
#include <fcntl.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gdrcheck {
namespace {

std::vector<std::string> split_path(std::string_view p) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    std::size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) parts.emplace_back(p.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::string join_path(const std::vector<std::string>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (const auto& p : parts) {
    out += '/';
    out += p;
  }
  return out;
}

constexpr int kMaxSymlinkHops = 40;
constexpr int kOpenat2Attempts = 8;  // EAGAIN retries before the user-space resolver

}  // namespace

std::string FileRead::problem() const {
  switch (status) {
    case Status::Ok:
      return "ok";
    case Status::Missing:
      return "not found";
    case Status::Denied:
      return "permission denied";
    case Status::NotAFile:
      return "not a regular file";
    case Status::Error:
      return "read error (" + detail + ")";
  }
  return "unknown";
}

std::string FileRead::trimmed() const {
  std::string s = content;
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\0'))
    s.pop_back();
  return s;
}

Root::Root(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  if (dir_.empty()) dir_ = "/";
  int fd = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  dir_fd_ = std::shared_ptr<int>(new int(fd), [](int* p) {
    if (*p >= 0) ::close(*p);
    delete p;
  });
}

int Root::open_inside(std::string_view inside, int flags, std::string* error) const {
  if (is_live()) return ::open(std::string(inside).c_str(), flags);
  if (*dir_fd_ >= 0) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    std::string rel(inside);
    while (!rel.empty() && rel[0] == '/') rel.erase(0, 1);
    if (rel.empty()) rel = ".";
    // The kernel answers EAGAIN when a rename or mount anywhere on the
    // system raced with resolving a ".." (sysfs links are full of them);
    // it asks the caller to retry. Persisting, the user-space resolver
    // below takes over rather than calling the file unreadable.
    long fd = -1;
    for (int attempt = 0; attempt < kOpenat2Attempts; ++attempt) {
      fd = ::syscall(SYS_openat2, *dir_fd_, rel.c_str(), &how, sizeof how);
      if (fd >= 0 || errno != EAGAIN) break;
    }
    if (fd >= 0 || (errno != ENOSYS && errno != EINVAL && errno != EPERM && errno != EAGAIN)) {
      if (fd < 0 && errno == ELOOP && error) *error = "symlink loop";
      return static_cast<int>(fd);
    }
  }
  auto resolved = resolve(inside);
  if (!resolved) {
    errno = ELOOP;
    if (error) *error = "symlink loop";
    return -1;
  }
  return ::open(host_path(*resolved).c_str(), flags | O_NOFOLLOW);
}

std::string Root::host_path(std::string_view inside) const {
  std::string p(inside);
  if (p.empty() || p[0] != '/') p = "/" + p;
  if (dir_ == "/") return p;
  return dir_ + p;
}

std::optional<std::string> Root::resolve(std::string_view inside) const {
  std::vector<std::string> pending = split_path(inside);
  std::reverse(pending.begin(), pending.end());  // stack: next component at back
  std::vector<std::string> done;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(part);
    std::string host = host_path(join_path(done));
    char buf[4096];
    ssize_t n = ::readlink(host.c_str(), buf, sizeof buf - 1);
    if (n < 0) continue;  // not a link (or missing): keep as written
    if (++hops > kMaxSymlinkHops) return std::nullopt;
    std::string target(buf, static_cast<std::size_t>(n));
    done.pop_back();
    if (!target.empty() && target[0] == '/') done.clear();
    std::vector<std::string> tparts = split_path(target);
    for (auto it = tparts.rbegin(); it != tparts.rend(); ++it) pending.push_back(*it);
  }
  return join_path(done);
}

FileRead Root::read(std::string_view inside, std::size_t max_bytes) const {
  FileRead r;
  r.path = std::string(inside);
  std::string loop;
  // O_NONBLOCK: a FIFO planted in a root from another machine would block the
  // open until a writer appears; with it the open returns and the type check
  // below refuses anything that is not a regular file. O_NOCTTY: a planted
  // terminal device never becomes ours.
  int fd = open_inside(inside, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, &loop);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP) {
      r.status = FileRead::Status::Error;
      r.detail = "symlink loop";
    } else if (e == ENOENT || e == ENOTDIR)
      r.status = FileRead::Status::Missing;
    else if (e == EACCES || e == EPERM)
      r.status = FileRead::Status::Denied;
    else {
      r.status = FileRead::Status::Error;
      r.detail = std::strerror(e);
    }
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    r.status = FileRead::Status::NotAFile;
    return r;
  }
  // sysfs reports 4096 as the size of every attribute: read until EOF.
  std::string out;
  char buf[8192];
  while (out.size() < max_bytes) {
    std::size_t want = std::min(sizeof buf, max_bytes - out.size());
    ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      r.status = (e == EACCES || e == EPERM) ? FileRead::Status::Denied : FileRead::Status::Error;
      r.detail = std::strerror(e);
      return r;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  r.status = FileRead::Status::Ok;
  r.content = std::move(out);
  return r;
}

std::optional<std::string> Root::readlink(std::string_view inside) const {
  std::size_t slash = inside.rfind('/');
  std::string_view parent =
      slash == std::string_view::npos || slash == 0 ? std::string_view("/") : inside.substr(0, slash);
  std::string leaf(inside.substr(slash == std::string_view::npos ? 0 : slash + 1));
  int dir = open_inside(parent, O_PATH | O_DIRECTORY | O_CLOEXEC, nullptr);
  if (dir < 0) return std::nullopt;
  char buf[4096];
  ssize_t n = ::readlinkat(dir, leaf.c_str(), buf, sizeof buf - 1);
  ::close(dir);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

bool Root::exists(std::string_view inside) const {
  int fd = open_inside(inside, O_PATH | O_CLOEXEC, nullptr);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool Root::is_dir(std::string_view inside) const {
  int fd = open_inside(inside, O_PATH | O_DIRECTORY | O_CLOEXEC, nullptr);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::vector<std::string> Root::list(std::string_view inside) const {
  int fd = open_inside(inside, O_RDONLY | O_DIRECTORY | O_CLOEXEC, nullptr);
  if (fd < 0) return {};
  std::vector<std::string> names = sorted_directory_names(fd);
  ::close(fd);
  return names;
}

std::vector<std::string> sorted_directory_names(int dirfd) {
  std::vector<std::string> names;
  // closedir() closes the descriptor it was given: it gets a copy.
  int copy = ::dup(dirfd);
  if (copy < 0) return names;
  DIR* d = ::fdopendir(copy);
  if (!d) {
    ::close(copy);
    return names;
  }
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

constexpr std::size_t kMaxChildrenLooked = 10000;  // a capture folder holds a few; a hostile one millions

bool has_sys(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/sys").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The children of `dir` that have sys/ (at most two: one is a suggestion,
// two are a choice the user makes).
std::vector<std::string> children_with_sys(const std::string& dir) {
  std::vector<std::string> found;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return found;
  std::size_t looked = 0;
  while (dirent* e = ::readdir(d)) {
    if (++looked > kMaxChildrenLooked) break;
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string child = (dir == "/" ? "" : dir) + "/" + n;
    // A child that is a link is not suggested: it may lead to / itself.
    struct stat st {};
    if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && has_sys(child)) found.push_back(child);
    if (found.size() > 1) break;
  }
  ::closedir(d);
  return found;
}

// The nearest parent of `dir` (made absolute) that has sys/, other than "/".
std::string parent_with_sys(const std::string& dir) {
  std::string path = dir;
  if (path.empty() || path[0] != '/') {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) return "";
    path = std::string(cwd) + "/" + path;
  }
  std::vector<std::string> parts;
  for (auto& p : split_path(path)) {
    if (p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(p);
    }
  }
  while (parts.size() > 1) {
    parts.pop_back();
    std::string parent = join_path(parts);
    if (has_sys(parent)) return parent;
  }
  return "";
}

}  // namespace

std::string recorded_root_problem(const std::string& dir) {
  struct stat st {};
  if (dir.empty() || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || has_sys(dir)) return "";
  if (Root(dir).is_live()) return "";
  std::string problem = "has no sys/ directory, so it does not stand for / (a recorded root holds sys/, proc/, ...)";
  if (auto children = children_with_sys(dir); children.size() == 1)
    return problem + "; did you mean --root " + children[0] + "?";
  if (std::string parent = parent_with_sys(dir); !parent.empty())
    return problem + "; it is inside the recorded root " + parent + ": did you mean --root " + parent + "?";
  return problem;
}

}  // namespace gdrcheck

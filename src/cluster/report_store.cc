#include "cluster/report_store.h"
#include "host/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <vector>

namespace gdrcheck {
namespace {

std::vector<std::string> components(const std::string& dir) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= dir.size()) {
    std::size_t end = std::min(dir.find('/', start), dir.size());
    std::string part = dir.substr(start, end - start);
    if (!part.empty() && part != ".") parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

int open_directory(int at, const std::string& name, bool follow) {
  return ::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
}

// A directory gdrcheck makes for reports: readable by the owner's group
// (reports describe the cluster, not secrets), by nobody else, whatever
// the umask says.
int make_directory(int at, const std::string& name) {
  if (::mkdirat(at, name.c_str(), kSaveDirMode) != 0 && errno != EEXIST) return -1;
  int fd = open_directory(at, name, false);
  if (fd >= 0) ::fchmod(fd, kSaveDirMode);
  return fd;
}

// One step of the walk down DIR. An existing symbolic link is followed
// only on the way (a system's /home -> /data/home) and only when root or
// we own it; DIR itself is never a link.
int open_step(int at, const std::string& name, bool last, std::string& problem) {
  int fd = open_directory(at, name, false);
  if (fd >= 0) return fd;
  if (errno == ENOENT) {
    fd = make_directory(at, name);
    if (fd < 0) problem = std::strerror(errno);
    return fd;
  }
  struct stat st {};
  bool is_link = (errno == ELOOP || errno == ENOTDIR) && ::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISLNK(st.st_mode);
  if (!is_link) {
    problem = std::strerror(errno);
    return -1;
  }
  if (last) {
    problem = "is a symbolic link; --save does not follow links (give the directory it points to)";
    return -1;
  }
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    problem = "a symbolic link owned by uid " + std::to_string(st.st_uid) + "; not followed";
    return -1;
  }
  fd = open_directory(at, name, true);
  if (fd < 0) problem = std::strerror(errno);
  return fd;
}

// A directory someone else owns and others may write to could hold, or
// later receive, anything under the names reports get.
std::string ownership_problem(int fd, const std::string& dir) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return dir + ": " + std::strerror(errno);
  if (st.st_uid != ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return dir + ": owned by uid " + std::to_string(st.st_uid) +
           " and writable by others; not used for reports (give a directory of your own)";
  return "";
}

// DIR opened for writing, its missing parts created. -1 and `problem` when
// it cannot be used.
int open_save_dir(const std::string& dir, std::string& problem) {
  if (dir.empty()) {
    problem = "--save: empty directory name";
    return -1;
  }
  UniqueFd at(::open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (at.get() < 0) {
    problem = dir + ": " + std::strerror(errno);
    return -1;
  }
  std::vector<std::string> parts = components(dir);
  std::string so_far = dir[0] == '/' ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    so_far += (so_far.empty() || so_far.back() == '/' ? "" : "/") + parts[i];
    const bool last = i + 1 == parts.size();
    int next = open_step(at.get(), parts[i], last, problem);
    if (next < 0) {
      // Name the part of DIR that failed when it is not DIR itself.
      problem = dir + ": " + (last ? "" : so_far + ": ") + problem;
      return -1;
    }
    at.reset(next);
  }
  problem = ownership_problem(at.get(), dir);
  if (!problem.empty()) return -1;
  return at.release();
}

std::string write_or_reason(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::string("write failed: ") + std::strerror(errno);
    done += static_cast<std::size_t>(n);
  }
  return "";
}

// A new, exclusive temporary file beside `name`; -1 when none could be made.
int open_temporary_beside(int dir_fd, const std::string& name, std::string& temp) {
  static unsigned counter = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = "." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    int fd = ::openat(dir_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kSaveFileMode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Puts `temp` in place as `name` unless `name` exists. "" on success.
std::string publish(int dir_fd, const std::string& temp, const std::string& name) {
  if (::renameat2(dir_fd, temp.c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE) == 0) return "";
  int e = errno;
  if (e == EINVAL || e == ENOSYS) {
    // A file system without RENAME_NOREPLACE: a hard link fails on an
    // existing name just the same.
    e = ::linkat(dir_fd, temp.c_str(), dir_fd, name.c_str(), 0) == 0 ? 0 : errno;
  }
  ::unlinkat(dir_fd, temp.c_str(), 0);
  if (e == 0) return "";
  return e == EEXIST ? "already exists; not overwritten" : std::strerror(e);
}

// Writes a new file only, whole or not at all: it is written under a
// temporary name and then given its own, so no reader ever sees half a
// report and no existing file (or link) is replaced. "" on success.
std::string write_new_file(int dir_fd, const std::string& name, const std::string& text) {
  std::string temp;
  UniqueFd fd(open_temporary_beside(dir_fd, name, temp));
  if (fd.get() < 0) return std::strerror(errno);
  std::string problem = ::fchmod(fd.get(), kSaveFileMode) == 0 ? "" : std::string("chmod: ") + std::strerror(errno);
  if (problem.empty()) problem = write_or_reason(fd.get(), text);
  if (fd.close() != 0 && problem.empty()) problem = std::string("close failed: ") + std::strerror(errno);
  if (!problem.empty()) {
    ::unlinkat(dir_fd, temp.c_str(), 0);
    return problem;
  }
  return publish(dir_fd, temp, name);
}

}  // namespace

std::string host_file_stem(const std::string& host) {
  std::string out = host;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out;
}

SaveResult save_raw_outputs(const std::string& dir, const std::vector<NodeOutcome>& outcomes) {
  SaveResult result;
  std::string problem;
  UniqueFd dir_fd(open_save_dir(dir, problem));
  if (dir_fd.get() < 0) {
    result.problems.push_back(problem);
    return result;
  }
  std::set<std::string> used;  // two hosts may map to one stem ("a/b", "a_b")
  for (const auto& o : outcomes) {
    if (o.raw.empty()) continue;
    std::string stem = host_file_stem(o.host), name = stem;
    for (int i = 2; !used.insert(name).second; ++i) name = stem + "-" + std::to_string(i);
    name += ".json";
    std::string path = (std::filesystem::path(dir) / name).string();
    std::string why = write_new_file(dir_fd.get(), name, o.raw);
    if (why.empty())
      result.written.push_back(path);
    else
      result.problems.push_back(path + ": " + why);
  }
  return result;
}

}  // namespace gdrcheck

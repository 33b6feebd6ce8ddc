#include "snapshot/root_capture.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "host/root.h"
#include "host/unique_fd.h"
#include "snapshot/capture_list.h"
#include "snapshot/site_capture_rules.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string entry_path(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

std::string access_error_text(int e) {
  return e == EACCES || e == EPERM ? "permission denied" : std::strerror(e);
}

class CaptureWalker {
 public:
  CaptureWalker(RootCapture& out, const CaptureLimits& limits, const CaptureList& list)
      : out_(out), limits_(limits), list_(list) {}

  void walk(int dirfd, const std::string& dir, int depth) {
    for (const auto& name : sorted_directory_names(dirfd)) {
      if (stopped_) return;
      if (++seen_ > limits_.max_entries) return stop("/" + dir, "more entries than a capture holds; the rest skipped");
      visit(dirfd, dir, name, depth);
    }
  }

 private:
  void visit(int dirfd, const std::string& dir, const std::string& name, int depth) {
    std::string path = entry_path(dir, name);
    const CaptureRule* rule = list_.rule_for(path);
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (rule) miss(path, access_error_text(errno));
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      enter(dirfd, path, name, rule != nullptr, depth);
    } else if (!rule) {
      return;
    } else if (S_ISLNK(st.st_mode)) {
      keep_link(dirfd, path, name);
    } else if (S_ISREG(st.st_mode)) {
      keep_file(dirfd, path, name, *rule);
    } else {
      miss(path, "not a regular file, directory or link; not captured");
    }
  }

  void enter(int dirfd, const std::string& path, const std::string& name, bool listed, int depth) {
    bool descend = list_.may_hold(path);
    if (!listed && !descend) return;
    std::size_t before = out_.entries.size();
    if (descend) {
      if (depth >= limits_.max_depth) return miss(path, "nested deeper than a capture goes; not captured");
      UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (fd.get() < 0) {
        if (listed) miss(path, access_error_text(errno));
        return;
      }
      walk(fd.get(), path, depth + 1);
    }
    if (listed || out_.entries.size() > before)
      out_.entries.push_back({path, CapturedEntry::Type::Directory, "", false});
  }

  void keep_link(int dirfd, const std::string& path, const std::string& name) {
    char target[4096];
    ssize_t n = ::readlinkat(dirfd, name.c_str(), target, sizeof target);
    if (n < 0 || n == static_cast<ssize_t>(sizeof target))
      return miss(path, n < 0 ? access_error_text(errno) : "link target too long");
    out_.entries.push_back(
        {path, CapturedEntry::Type::Symlink, std::string(target, static_cast<std::size_t>(n)), false});
  }

  void keep_file(int dirfd, const std::string& path, const std::string& name, const CaptureRule& rule) {
    if (rule.as == CaptureAs::NameOnly) {
      out_.entries.push_back({path, CapturedEntry::Type::File, "", true});
      return;
    }
    UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0) return miss(path, access_error_text(errno));
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return miss(path, "not a regular file; not captured");
    std::string data;
    if (!read_bounded(fd.get(), rule.max_bytes, data)) return miss(path, access_error_text(errno));
    if (rule.xml_only && !looks_like_xml(data)) return miss(path, "named by a setting but not XML; not captured");
    if (out_.bytes + data.size() > limits_.max_bytes)
      return stop("/" + path, "capture size limit reached; the rest skipped");
    out_.bytes += data.size();
    out_.entries.push_back({path, CapturedEntry::Type::File, std::move(data), false});
  }

  static bool looks_like_xml(const std::string& data) {
    std::size_t first = data.find_first_not_of(" \t\r\n");
    return first != std::string::npos && data[first] == '<';
  }

  // At most `max` bytes: what the reader of this file reads.
  static bool read_bounded(int fd, std::size_t max, std::string& data) {
    char buf[65536];
    while (data.size() < max) {
      ssize_t n = ::read(fd, buf, std::min(sizeof buf, max - data.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      if (n == 0) break;
      data.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }

  void miss(const std::string& path, const std::string& why) { out_.missing.push_back({"/" + path, why}); }

  void stop(const std::string& where, const std::string& why) {
    stopped_ = true;
    out_.missing.push_back({where, why});
  }

  RootCapture& out_;
  const CaptureLimits& limits_;
  const CaptureList& list_;
  std::size_t seen_ = 0;
  bool stopped_ = false;
};

// Paths on the list by name that the walk did not find at all.
void add_absent(RootCapture& c, const CaptureList& list) {
  std::set<std::string> known;
  for (const auto& e : c.entries) known.insert("/" + e.path);
  for (const auto& m : c.missing) known.insert(m.path);
  std::vector<std::string> absent;
  for (const auto& path : list.literal_paths()) {
    if (known.count("/" + path)) continue;
    // Under an absent directory that is listed already: said once.
    bool under_absent = false;
    for (const auto& a : absent) under_absent = under_absent || path.starts_with(a + "/");
    if (under_absent) continue;
    absent.push_back(path);
    c.missing.push_back({"/" + path, "not present"});
  }
}

bool by_path(const CapturedEntry& a, const CapturedEntry& b) {
  return a.path < b.path;
}

}  // namespace

RootCapture capture_root(const std::string& root_dir, const CaptureLimits& limits) {
  UniqueFd root(::open(root_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) throw InputError(root_dir, errno == ENOTDIR ? "not a directory" : access_error_text(errno));
  // The fixed list and what this root's own configuration adds to it.
  const CaptureList list = host_capture_list(Root(root_dir));
  RootCapture c;
  CaptureWalker(c, limits, list).walk(root.get(), "", 0);
  add_absent(c, list);
  std::sort(c.entries.begin(), c.entries.end(), by_path);
  return c;
}

void add_captured_file(RootCapture& capture, const std::string& path, std::string data) {
  capture.bytes += data.size();
  capture.missing.erase(std::remove_if(capture.missing.begin(), capture.missing.end(),
                                       [&](const MissingEntry& m) { return m.path == "/" + path; }),
                        capture.missing.end());
  // It stands for what the walk kept there (a link into /proc/self).
  capture.entries.erase(std::remove_if(capture.entries.begin(), capture.entries.end(),
                                       [&](const CapturedEntry& e) { return e.path == path; }),
                        capture.entries.end());
  capture.entries.push_back({path, CapturedEntry::Type::File, std::move(data), false});
  std::sort(capture.entries.begin(), capture.entries.end(), by_path);
}

}  // namespace gdrcheck

#include "host/root_audit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

// Names and link targets come from another machine and may hold any byte;
// a message shows them with everything but printable ASCII escaped.
std::string shown(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  }
  return out;
}

std::vector<std::string> split_target(std::string_view p) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) parts.emplace_back(p.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

// "a/b/c" for openat() relative to the root descriptor; "." for the root.
std::string relative(const std::vector<std::string>& at) {
  if (at.empty()) return ".";
  std::string out;
  for (const auto& p : at) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

// "/a/b/c" as the user sees the path inside the root.
std::string inside(const std::vector<std::string>& at) {
  return "/" + shown(at.empty() ? "" : relative(at));
}

const char* kind_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "an entry of unknown type";
}

mode_t mode_of_dtype(unsigned char t) {
  switch (t) {
    case DT_DIR:
      return S_IFDIR;
    case DT_REG:
      return S_IFREG;
    case DT_LNK:
      return S_IFLNK;
    case DT_FIFO:
      return S_IFIFO;
    case DT_SOCK:
      return S_IFSOCK;
    case DT_CHR:
      return S_IFCHR;
    case DT_BLK:
      return S_IFBLK;
  }
  return 0;  // DT_UNKNOWN: the file system did not say; fstatat() will
}

struct Entry {
  std::string name;
  mode_t mode;
};

// Nothing is skipped. hwloc reads fixed paths under /proc and /sys, but a
// link there may lead anywhere in the root (sys/class/net -> ../../usr/x)
// and hwloc then lists and reads what it finds; knowing which parts hwloc
// can reach would take resolving every link anyway. A recorded node of
// ~100k entries is walked in well under a second.
class Walker {
 public:
  Walker(const Root& root, const RootAuditLimits& limits) : root_(root), limits_(limits) {}

  RootAuditStats run() {
    // The directory hwloc will be given; opened by name as hwloc opens it.
    int fd = ::open(root_.dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw InputError(root_.dir(), std::string("cannot open the root: ") + std::strerror(errno));
    root_fd_ = fd;
    try {
      std::vector<std::string> at;
      walk(::dup(fd), at, 0);
    } catch (...) {
      ::close(root_fd_);
      throw;
    }
    ::close(root_fd_);
    return stats_;
  }

 private:
  [[noreturn]] void refuse(const std::string& what) const { throw InputError(root_.dir(), what); }

  [[noreturn]] void refuse_entry(const std::vector<std::string>& at, const std::string& problem) const {
    refuse(inside(at) + ": " + problem + "; gdrcheck does not read through it");
  }

  // Reads every name of the directory `fd` (taken over) and checks each,
  // descending into subdirectories through descriptors, never by name from
  // the root, so a directory swapped for a link is not followed.
  void walk(int fd, std::vector<std::string>& at, int depth) {
    if (fd < 0) refuse_entry(at, std::string("cannot be opened (") + std::strerror(errno) + ")");
    if (depth > limits_.max_depth)
      refuse_entry(at, "directories nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
      refuse_entry(at, std::string("cannot be listed (") + std::strerror(errno) + ")");
    }
    std::vector<Entry> entries;
    errno = 0;
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (++stats_.entries > limits_.max_entries) {
        ::closedir(d);
        refuse("more than " + std::to_string(limits_.max_entries) +
               " entries; gdrcheck does not check a tree this large before hwloc reads it");
      }
      entries.push_back({e->d_name, mode_of_dtype(e->d_type)});
    }
    if (errno != 0) {
      int e = errno;
      ::closedir(d);
      refuse_entry(at, std::string("cannot be listed (") + std::strerror(e) + ")");
    }
    // Sorted, so that of several bad entries the same one is named each run.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    try {
      for (const Entry& e : entries) check(::dirfd(d), at, e, depth);
    } catch (...) {
      ::closedir(d);
      throw;
    }
    ::closedir(d);
  }

  void check(int dir_fd, std::vector<std::string>& at, const Entry& e, int depth) {
    mode_t mode = e.mode;
    at.push_back(e.name);
    if (mode == 0) {
      struct stat st {};
      if (::fstatat(dir_fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        refuse_entry(at, std::string("cannot be examined (") + std::strerror(errno) + ")");
      mode = st.st_mode & S_IFMT;
    }
    if (S_ISDIR(mode)) {
      // O_NOFOLLOW: a directory replaced by a link since readdir() fails
      // here instead of being walked.
      walk(::openat(dir_fd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), at, depth + 1);
    } else if (S_ISLNK(mode)) {
      ++stats_.links;
      check_link(dir_fd, at);
    } else if (!S_ISREG(mode)) {
      refuse_entry(at, std::string(kind_name(mode)) + ", not a regular file, directory or link");
    }
    at.pop_back();
  }

  std::string link_target(int dir_fd, const std::string& name, const std::vector<std::string>& at) const {
    std::string buf(4096, '\0');
    ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf.data(), buf.size());
    if (n < 0) refuse_entry(at, std::string("a link that cannot be read (") + std::strerror(errno) + ")");
    if (static_cast<std::size_t>(n) >= buf.size()) refuse_entry(at, "a link with a target of 4096 bytes or more");
    buf.resize(static_cast<std::size_t>(n));
    return buf;
  }

  // Follows `link`'s target the way the kernel would for hwloc's openat():
  // component by component from the link's own directory, ".." to the
  // physical parent, further links expanded in place. It stops where the
  // kernel's lookup would fail (a missing name, a file used as a
  // directory): nothing is opened past that point.
  void check_link(int dir_fd, const std::vector<std::string>& link) {
    std::string target = link_target(dir_fd, link.back(), link);
    auto outside = [&](const std::string& via) {
      refuse_entry(link, "a link to " + shown(target) + via + ", outside the root");
    };
    if (!target.empty() && target[0] == '/') outside("");
    std::vector<std::string> at(link.begin(), link.end() - 1);
    std::vector<std::string> pending = split_target(target);
    std::reverse(pending.begin(), pending.end());  // next component at the back
    int hops = 1;
    while (!pending.empty()) {
      std::string part = std::move(pending.back());
      pending.pop_back();
      if (part == ".") continue;
      if (part == "..") {
        if (at.empty()) outside("");
        at.pop_back();
        continue;
      }
      at.push_back(std::move(part));
      struct stat st {};
      if (::fstatat(root_fd_, relative(at).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
      if (S_ISLNK(st.st_mode)) {
        if (++hops > limits_.max_link_hops)
          refuse_entry(link, "a link to " + shown(target) + " through more than " +
                                 std::to_string(limits_.max_link_hops) + " links");
        std::string via = inside(at);
        std::string next = link_target(root_fd_, relative(at), at);
        if (!next.empty() && next[0] == '/') outside(" (through " + via + ", a link to " + shown(next) + ")");
        at.pop_back();
        std::vector<std::string> parts = split_target(next);
        pending.insert(pending.end(), parts.rbegin(), parts.rend());
      } else if (!S_ISDIR(st.st_mode) && !pending.empty()) {
        return;
      }
    }
  }

  const Root& root_;
  RootAuditLimits limits_;
  RootAuditStats stats_;
  int root_fd_ = -1;
};

}  // namespace

RootAuditStats audit_root_for_hwloc(const Root& root, const RootAuditLimits& limits) {
  if (root.is_live()) return {};
  return Walker(root, limits).run();
}

}  // namespace gdrcheck

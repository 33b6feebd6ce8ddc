#include "snapshot/tarball_extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "host/text_format.h"
#include "host/unique_fd.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxExtractNotes = 20;

struct ReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

class Extractor {
 public:
  Extractor(const std::string& tarball, int dest, const ExtractLimits& limits)
      : tarball_(tarball), dest_(dest), limits_(limits) {}

  ExtractResult run(archive* a) {
    archive_entry* e = nullptr;
    while (true) {
      int r = archive_read_next_header(a, &e);
      if (r == ARCHIVE_EOF) break;
      if (r < ARCHIVE_WARN) fail(std::string(entries_ ? "" : "not a snapshot (tar or compressed tar): ") + error_of(a));
      if (++entries_ > limits_.max_entries)
        fail("more than " + std::to_string(limits_.max_entries) + " entries; not a capture of one host");
      extract(a, e);
    }
    return result_;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(tarball_, problem); }

  static std::string error_of(archive* a) {
    const char* why = archive_error_string(a);
    return why ? why : "unreadable archive";
  }

  // The entry's path as components: never absolute, never "..".
  std::vector<std::string> components(const std::string& raw) const {
    std::string shown = "entry '" + printable(raw) + "'";
    if (raw.size() > limits_.max_path) fail(shown + " has a path longer than " + std::to_string(limits_.max_path));
    if (!raw.empty() && raw[0] == '/') fail(shown + " is an absolute path; not extracted");
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= raw.size()) {
      std::size_t end = raw.find('/', start);
      if (end == std::string::npos) end = raw.size();
      std::string part = raw.substr(start, end - start);
      if (part == "..") fail(shown + " climbs out with '..'; not extracted");
      if (!part.empty() && part != ".") parts.push_back(part);
      start = end + 1;
    }
    if (parts.size() > static_cast<std::size_t>(limits_.max_depth))
      fail(shown + " is nested deeper than " + std::to_string(limits_.max_depth));
    return parts;
  }

  // The directory that holds the last component, made where missing. A
  // component that is a link (or a file) is refused, never followed.
  int open_parent(const std::vector<std::string>& parts, const std::string& raw, UniqueFd& holder) const {
    int cur = dest_;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const char* name = parts[i].c_str();
      int fd = ::openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT && ::mkdirat(cur, name, 0700) == 0)
        fd = ::openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        fail("entry '" + printable(raw) + "' goes through '" + printable(parts[i]) +
             "', which is not a directory (a link?); not extracted");
      holder.reset(fd);
      cur = fd;
    }
    return cur;
  }

  void note(const std::string& raw, const std::string& what) {
    ++result_.skipped;
    if (result_.notes.size() < kMaxExtractNotes)
      result_.notes.push_back(printable(raw) + ": " + what + "; not extracted");
  }

  void extract(archive* a, archive_entry* e) {
    const char* p = archive_entry_pathname(e);
    std::string raw = p ? p : "";
    auto parts = components(raw);
    if (parts.empty()) return;  // "./": the top itself
    if (archive_entry_hardlink(e)) return note(raw, "hard link");
    auto type = archive_entry_filetype(e);
    if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
      return note(raw, type == AE_IFIFO ? "FIFO" : type == AE_IFSOCK ? "socket" : "device node");
    UniqueFd holder;
    int parent = open_parent(parts, raw, holder);
    const std::string& name = parts.back();
    if (type == AE_IFDIR) return make_directory(parent, name, raw);
    if (type == AE_IFLNK) return make_link(parent, name, raw, archive_entry_symlink(e), parts.size() - 1);
    write_file(a, parent, name, raw);
  }

  void make_directory(int parent, const std::string& name, const std::string& raw) {
    struct stat st {};
    if (::mkdirat(parent, name.c_str(), 0700) != 0 &&
        !(errno == EEXIST && ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)))
      fail("entry '" + printable(raw) + "': " + std::strerror(errno));
    ++result_.directories;
  }

  // Link targets stay inside: relative, and never above the top when read
  // from the link's own directory. The root audit checks whole chains later.
  void make_link(int parent, const std::string& name, const std::string& raw, const char* target, std::size_t depth) {
    std::string t = target ? target : "";
    std::string shown = "entry '" + printable(raw) + "' is a link to '" + printable(t) + "'";
    if (t.empty() || t[0] == '/') fail(shown + ", an absolute path; not extracted");
    long level = static_cast<long>(depth);
    std::size_t start = 0;
    while (start <= t.size()) {
      std::size_t end = t.find('/', start);
      if (end == std::string::npos) end = t.size();
      std::string part = t.substr(start, end - start);
      if (part == "..")
        --level;
      else if (!part.empty() && part != ".")
        ++level;
      if (level < 0) fail(shown + ", which climbs out of the snapshot; not extracted");
      start = end + 1;
    }
    if (::symlinkat(t.c_str(), parent, name.c_str()) != 0)
      fail("entry '" + printable(raw) + "': " + (errno == EEXIST ? "appears twice" : std::strerror(errno)));
    ++result_.links;
  }

  void write_file(archive* a, int parent, const std::string& name, const std::string& raw) {
    UniqueFd fd(::openat(parent, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0)
      fail("entry '" + printable(raw) + "': " + (errno == EEXIST ? "appears twice" : std::strerror(errno)));
    char buf[65536];
    while (true) {
      la_ssize_t n = archive_read_data(a, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) fail("entry '" + printable(raw) + "': " + error_of(a));
      bytes_ += static_cast<std::uint64_t>(n);
      if (bytes_ > limits_.max_bytes)
        fail("unpacks to more than " + mib(limits_.max_bytes) + " (a compressed bomb?); not extracted");
      if (::write(fd.get(), buf, static_cast<std::size_t>(n)) != n)
        fail("entry '" + printable(raw) + "': cannot be written: " + std::strerror(errno));
    }
    ++result_.files;
  }

  const std::string& tarball_;
  int dest_;
  const ExtractLimits& limits_;
  std::size_t entries_ = 0;
  std::uint64_t bytes_ = 0;
  ExtractResult result_;
};

}  // namespace

ExtractResult extract_tarball(const std::string& tarball, int dest_dirfd, const ExtractLimits& limits) {
  UniqueFd in(::open(tarball.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (in.get() < 0) throw InputError(tarball, std::strerror(errno));
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) throw InputError(tarball, "not a regular file");
  std::unique_ptr<archive, ReadFree> a(archive_read_new());
  if (!a) throw InputError(tarball, "out of memory");
  // Built-in decompressors only: none of these starts an external program.
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_fd(a.get(), in.get(), 64 * 1024) != ARCHIVE_OK) {
    const char* why = archive_error_string(a.get());
    throw InputError(tarball, std::string("not a snapshot (tar or compressed tar): ") + (why ? why : "unreadable"));
  }
  return Extractor(tarball, dest_dirfd, limits).run(a.get());
}

}  // namespace gdrcheck

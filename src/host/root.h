// Root: a directory that stands for "/". Every file gdrcheck reads goes
// through one, so the same code checks a live node (Root("/")) and a
// recorded one (Root("/tmp/capture")). Symlinks are resolved inside the
// root, never against the live file system.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// The outcome of reading one file. A missing or unreadable file is a value,
// not an exception: checks turn it into an UNKNOWN finding with `reason()`.
struct FileRead {
  enum class Status { Ok, Missing, Denied, NotAFile, Error };
  Status status = Status::Missing;
  std::string path;     // as seen inside the root, e.g. "/sys/bus/pci/devices/0000:17:00.0/config"
  std::string content;  // raw bytes when ok()
  std::string detail;   // errno text for Error

  bool ok() const { return status == Status::Ok; }
  // What went wrong, without the path: "permission denied".
  std::string problem() const;
  // One line for the user: "/sys/.../config: permission denied".
  std::string reason() const { return path + ": " + problem(); }
  // Content with trailing whitespace/newlines removed (sysfs values end in "\n").
  std::string trimmed() const;
};

class Root {
 public:
  explicit Root(std::string dir = "/");

  const std::string& dir() const { return dir_; }
  bool is_live() const { return dir_ == "/"; }

  // Path on the real file system for a path inside the root.
  std::string host_path(std::string_view inside) const;

  // Reads at most max_bytes of a file (sysfs attributes are small; `config`
  // is at most 4096). Follows symlinks inside the root.
  FileRead read(std::string_view inside, std::size_t max_bytes = 1 << 20) const;

  // The raw target of a symlink, without following it. Recorded `driver`
  // links often dangle; their basename is still the driver's name.
  std::optional<std::string> readlink(std::string_view inside) const;

  // Canonical path inside the root with every symlink resolved against the
  // root (relative targets against the link's directory, absolute targets
  // re-rooted, ".." stopping at the root). Components that do not exist are
  // kept as written. nullopt on a symlink loop.
  std::optional<std::string> resolve(std::string_view inside) const;

  bool exists(std::string_view inside) const;
  bool is_dir(std::string_view inside) const;

  // Entry names of a directory (sorted, without "." and ".."); empty when
  // the directory is missing or unreadable.
  std::vector<std::string> list(std::string_view inside) const;

 private:
  // Opens a path inside the root. The kernel resolves it in the root where
  // openat2(RESOLVE_IN_ROOT) exists (Linux 5.6+); elsewhere resolve() does.
  int open_inside(std::string_view inside, int flags, std::string* error) const;

  std::string dir_;              // without trailing slash, except for "/"
  std::shared_ptr<int> dir_fd_;  // O_PATH descriptor of dir_, shared by copies
};

// Why `dir`, given as --root, is not a recorded root: "" when it has a
// sys/ directory (or is "/", or is not a directory at all: the loader says
// that). Otherwise "has no sys/ directory, so it does not stand for /"
// with a suggestion when one is plain: the one child that has sys/ (the
// folder holding a capture), or the nearest parent that has one (a path
// inside a capture). "/" itself is never suggested: it is this machine.
std::string recorded_root_problem(const std::string& dir);

// The names in the directory open as `dirfd` (the caller keeps it), sorted,
// without "." and "..".
std::vector<std::string> sorted_directory_names(int dirfd);

}  // namespace gdrcheck

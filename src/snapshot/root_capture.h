// Reads what capture_list.h allows from a root ("/" = this machine) into
// memory. The walk never follows a link (a link is kept as a link), enters
// only directories that can hold something on the list, and opens files
// with O_NOFOLLOW | O_NONBLOCK: a recorded root from elsewhere cannot make
// it read outside itself or block on a FIFO.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdrcheck {

struct CapturedEntry {
  enum class Type { Directory, File, Symlink };
  std::string path;  // inside the root, without the leading '/'
  Type type = Type::File;
  std::string data;  // a file's bytes, a link's target
  bool name_only = false;
};

struct MissingEntry {
  std::string path;  // inside the root, with the leading '/'
  std::string why;   // "not present", "permission denied", ...
};

struct RootCapture {
  std::vector<CapturedEntry> entries;  // sorted by path: a directory before what it holds
  std::vector<MissingEntry> missing;
  std::uint64_t bytes = 0;
};

struct CaptureLimits {
  std::size_t max_entries = 2'000'000;     // names looked at, as the root audit allows
  std::uint64_t max_bytes = 512ull << 20;  // content kept
  int max_depth = 64;                      // real sysfs nests ~20 deep
};

// Throws InputError(root_dir, problem) when the root cannot be opened;
// every path on the list that cannot be read is in `missing`.
RootCapture capture_root(const std::string& root_dir, const CaptureLimits& limits = {});

// Adds a file made elsewhere (a command's output) to a capture, in order.
void add_captured_file(RootCapture& capture, const std::string& path, std::string data);

}  // namespace gdrcheck

// Bounded searches of a root for software installed in the usual places
// (libraries, headers, Python packages). A root may come from another
// machine and be hostile: a folder with a million entries, a pattern that
// matches thousands of folders, a FIFO where a header should be. Every
// search here has a limit, and nothing here reads a file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "host/root.h"

namespace gdrcheck {

// Entry names considered in one folder. Root::list reads the whole folder;
// only the first this many names (sorted) are looked at, which is far more
// than /usr/lib/x86_64-linux-gnu holds on a full distribution.
constexpr std::size_t kMaxNamesPerFolder = 100000;
// Folders one pattern may expand to ("/opt/conda/envs/*/lib").
constexpr std::size_t kMaxPatternMatches = 64;

// A folder found for a pattern: how it was reached and where it is.
struct FoundFolder {
  std::string path;       // as expanded from the pattern: "/usr/local/cuda/lib64"
  std::string canonical;  // symlinks resolved inside the root: "/usr/local/cuda-12.4/targets/x86_64-linux/lib"
};

// The first `max_names` entry names of a folder, sorted; empty when it is
// missing or unreadable.
std::vector<std::string> list_bounded(const Root& root, std::string_view folder,
                                      std::size_t max_names = kMaxNamesPerFolder);

// Whether `name` matches a pattern component with at most one '*'
// ("python3*", "cuda-*", "*"); without '*' the names must be equal.
bool matches_component(std::string_view name, std::string_view pattern);

// Existing folders matching `pattern`, an absolute path whose components may
// each hold one '*' ("/opt/conda/envs/*/lib/python3*/site-packages"). Each
// '*' component lists its parent; at most `max_matches` folders are kept at
// each step, in sorted order.
std::vector<FoundFolder> expand_folder_pattern(const Root& root, std::string_view pattern,
                                               std::size_t max_matches = kMaxPatternMatches);

// The folders of all patterns in order, each canonical folder once (the
// first pattern that reaches it names it), so a folder reached through a
// symlink (/usr/lib64 → /usr/lib, /usr/local/cuda → cuda-12.4) is searched
// once.
std::vector<FoundFolder> distinct_folders(const Root& root, const std::vector<std::string>& patterns);

// Whether `path` is a regular file inside the root (symlinks followed
// inside the root). Checked before Root::read: opening a FIFO for reading
// blocks until a writer appears, and a hostile root may hold one under
// any name.
bool is_regular_file(const Root& root, std::string_view path);

// `name` inside `folder`: ("/usr/lib", "libnccl.so.2") → "/usr/lib/libnccl.so.2".
std::string child_path(const std::string& folder, std::string_view name);

// The last component of a path: "/usr/lib/libnccl.so.2" → "libnccl.so.2".
std::string_view file_name_of(std::string_view path);

}  // namespace gdrcheck

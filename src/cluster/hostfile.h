// Host files for `gdrcheck cluster --hostfile FILE`: one host per line, the
// form operators already keep for pdsh, mpirun and clush.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// The hosts of a host file's text, in order, duplicates dropped. Per line:
// text after '#' is a comment, blank lines are skipped, the first word is
// the host and the rest is ignored (so Open MPI's "gpu01 slots=8" works),
// and a word with brackets is a host list ("gpu[01-08]", expand_hostlist).
// Throws std::invalid_argument naming the line for a bad host list or a
// word that would be read as an option ("-x"), when the lines or the names
// they make (counted before any is made) pass 1,000,000, and when no host
// is left.
std::vector<std::string> parse_hostfile(std::string_view text);

// The word of one host file line that names hosts: before any '#', the
// first run of bytes that are not blanks (space, tab, CR, FF, VT); empty
// for a blank or comment line.
std::string_view hostfile_host_word(std::string_view line);

// A real host file is a few KiB; a larger one is not a host file.
inline constexpr std::size_t kMaxHostfileBytes = 64u << 20;

// parse_hostfile of the file at `path`, read with read_user_file (a
// regular file only, never blocking on a FIFO, at most kMaxHostfileBytes).
// Throws InputError(path, why) for a file that cannot be read or parsed.
std::vector<std::string> read_hostfile(const std::string& path);

}  // namespace gdrcheck

// Files the user names on the command line (manifests, host files,
// topology files, logs). Opened one way for every command, with one error
// wording, and never silently cut: a file at the size limit is refused
// rather than half-read.
#pragma once

#include <cstddef>
#include <string>

#include "host/unique_fd.h"

namespace gdrcheck {

// A descriptor for reading what the user named, with blocking reads:
// - "-" is standard input (refused when it is a terminal: nothing would
//   ever arrive without someone typing);
// - a regular file, or a FIFO or pipe (`<(zcat log.gz)`, /dev/stdin, a
//   named pipe). A FIFO is opened without waiting for a writer, so one
//   nobody writes to reads as empty instead of hanging;
// - a symlink the user named is followed.
// Throws InputError(path, …) when it is missing ("not found"), unreadable,
// a directory ("is a directory, not a <what>") or a device or socket
// (refused before it is opened for reading, so no device sees an open).
UniqueFd open_user_input(const std::string& path, const std::string& what);

// The bytes of `path`, opened by open_user_input(). Throws InputError(path,
// …) as it does, on a read error, and when the content is `limit` bytes or
// larger ("larger than 16 MiB; not a <what>").
std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what);

}  // namespace gdrcheck

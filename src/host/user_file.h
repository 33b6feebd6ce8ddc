// Files the user names on the command line (manifests, host files,
// topology files). Read whole, with one error wording for every command,
// and never silently cut: a file at the size limit is refused rather than
// half-read.
#pragma once

#include <cstddef>
#include <string>

namespace gdrcheck {

// The bytes of `path` ("-" is not special here; a symlink the user named
// is followed). Throws InputError(path, …) when it is missing ("not
// found"), unreadable, a directory, not a regular file (a FIFO or device:
// refused before it is opened for reading, so nothing blocks and no device
// sees an open), or `limit` bytes or larger ("larger than 16 MiB; not a
// <what>").
std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what);

}  // namespace gdrcheck

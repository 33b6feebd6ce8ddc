// Files the user names on the command line (manifests, host files,
// topology files). Read whole through Root("/") so the same error wording
// reaches every command, and never silently cut: a file at the size limit
// is refused rather than half-read.
#pragma once

#include <cstddef>
#include <string>

namespace gdrcheck {

// The bytes of `path` ("-" is not special here). Throws InputError(path, …)
// when it is missing, unreadable, a directory, or `limit` bytes or larger
// ("larger than 16 MiB; not a <what>").
std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what);

}  // namespace gdrcheck

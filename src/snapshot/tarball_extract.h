// Unpacks a snapshot tarball — hostile input like any root from elsewhere —
// below one directory. Every write is made relative to that directory's
// descriptor, one component at a time with O_NOFOLLOW, so no entry can be
// written through a link, above the directory ("../") or at an absolute
// path: what ARCHIVE_EXTRACT_SECURE_SYMLINKS, _SECURE_NODOTDOT and
// _SECURE_NOABSOLUTEPATHS ask of libarchive's disk writer, without its
// dependence on the process's working directory. Owners, permissions and
// times are not restored (files are 0600, directories 0700); device nodes,
// FIFOs, sockets and hard links are skipped and noted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdrcheck {

struct ExtractLimits {
  std::uint64_t max_bytes = 512ull << 20;  // file contents in all; a snapshot is a few MiB
  std::size_t max_entries = 2'000'000;     // as the root audit allows
  std::size_t max_path = 4096;             // PATH_MAX
  int max_depth = 128;                     // as the root audit allows
};

struct ExtractResult {
  std::size_t files = 0, directories = 0, links = 0, skipped = 0;
  std::vector<std::string> notes;  // the first skipped entries: "dev/sda: device node; not extracted"
};

// Throws InputError(tarball, problem) for a file that is not a tar (or a
// gzip/zstd/xz-compressed tar), a truncated one, an entry that climbs out
// or goes through a link, a link to an absolute path or above the top, or
// a tarball over the limits.
ExtractResult extract_tarball(const std::string& tarball, int dest_dirfd, const ExtractLimits& limits = {});

}  // namespace gdrcheck

// Writes a capture as a gzip'd tar (pax) to a descriptor with libarchive:
// the manifest first, then every entry in path order. Entries carry no
// owner, no user or group name and fixed modes: the tarball says nothing
// about the accounts of the host it came from.
#pragma once

#include <string>

#include "snapshot/root_capture.h"

namespace gdrcheck {

// Throws std::runtime_error("writing the snapshot: <libarchive's reason>").
void write_snapshot_tarball(int fd, const std::string& manifest_text, const RootCapture& capture);

}  // namespace gdrcheck

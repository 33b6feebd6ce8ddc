// Checks a recorded root before hwloc reads it. hwloc opens files under
// HWLOC_FSROOT with plain openat(), so in a tree made on another machine or
// by another user a symlink to an absolute path (/etc/shadow) or one that
// climbs out with "../../.." would be read as root, and a FIFO or device
// node would block or feed hwloc forever. Our own reads go through Root
// (openat2 RESOLVE_IN_ROOT) and need no audit; hwloc gets a tree only after
// it passed this one.
#pragma once

#include <cstddef>

#include "host/root.h"

namespace gdrcheck {

struct RootAuditLimits {
  // A recorded big node has ~100k entries; far beyond this is not a capture.
  std::size_t max_entries = 2'000'000;
  // Real sysfs nests ~20 deep; one descriptor is held per level.
  int max_depth = 128;
  // The kernel gives up after 40 links in one lookup (MAXSYMLINKS).
  int max_link_hops = 40;
};

struct RootAuditStats {
  std::size_t entries = 0;  // every name seen, the root itself not counted
  std::size_t links = 0;
};

// Walks the whole tree under `root` without following any link and throws
// InputError(root.dir(), "<path inside root>: <problem>; gdrcheck does not
// read through it") for the first entry hwloc must not be handed: a link
// whose target is absolute or resolves above the root, a link chain longer
// than the kernel follows, an entry that is neither a regular file, a
// directory nor a link, a directory that cannot be listed, or a tree over
// the limits. A live root (this machine) is not walked.
RootAuditStats audit_root_for_hwloc(const Root& root, const RootAuditLimits& limits = {});

}  // namespace gdrcheck

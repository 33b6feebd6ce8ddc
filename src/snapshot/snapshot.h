// `gdrcheck snapshot`: one gzip'd tar holding what gdrcheck reads from a
// host (capture_list.h), so a node's state can be sent and checked
// elsewhere with `--root node.tar.gz`.
#pragma once

#include <cstddef>
#include <string>

#include "host/nvidia_smi_outputs.h"

namespace gdrcheck {

struct SnapshotOptions {
  std::string root = "/";       // a directory standing for "/"; "/" = this machine
  std::string output;           // a new file, or "-" for standard output
  NvidiaSmiOptions nvidia_smi;  // run only for this machine
};

struct SnapshotSummary {
  std::size_t captured = 0, missing = 0;
};

// Creates `output` (never an existing file: O_EXCL | O_NOFOLLOW, mode 0600)
// and writes the snapshot into it; a failed write removes the file it
// created. Throws InputError(output, ...) for an output that cannot be
// created (or a terminal as standard output), InputError(root, ...) for a
// root that cannot be read, std::runtime_error when writing fails.
SnapshotSummary write_snapshot(const SnapshotOptions& options);

}  // namespace gdrcheck

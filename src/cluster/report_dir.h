// `gdrcheck cluster --from DIR`: node reports collected earlier by any
// means (`gdrcheck node --json > DIR/$(hostname).json` from a scheduler, a
// Kubernetes DaemonSet, `--save`). Every `*.json` file is one node, named
// by its file name (`gpu07.json` is gpu07); a file that cannot be read is
// still a node, UNKNOWN with the reason. DIR is often writable by others:
// a link in it is never followed, a FIFO never blocks, and a file name
// that is not one plain node name is listed, not read.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck {

// A node report is a few tens of KiB; these only stop a stray or hostile
// directory from costing the run its memory.
inline constexpr std::size_t kMaxReportBytes = 64u << 20;
inline constexpr std::size_t kMaxReportFiles = 100'000;
inline constexpr std::size_t kMaxReportDirBytes = std::size_t{8} << 30;  // all reports together

struct ReportDir {
  std::vector<NodeOutcome> outcomes;  // host = the file name without ".json"
  std::vector<std::string> files;     // the path of each, same order
};

// Files in name order. Each is opened relative to DIR without following a
// link (NotAReport, "a link; not followed"), must be a regular file of at
// most kMaxReportBytes, and its name without ".json" must be a plain node
// name (cluster/node_name.h). Throws InputError when DIR is not a readable
// directory or holds more than kMaxReportFiles `*.json` files.
ReportDir read_report_dir(const std::string& dir);

}  // namespace gdrcheck

// `gdrcheck cluster --from DIR`: node reports collected earlier by any
// means (`gdrcheck node --json > DIR/$(hostname).json` from a scheduler, a
// Kubernetes DaemonSet, `--save`). Every `*.json` file is one node; a file
// that cannot be read is still a node, UNKNOWN with the reason.
#pragma once

#include <string>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck {

struct ReportDir {
  std::vector<NodeOutcome> outcomes;  // host = the file name without ".json"
  std::vector<std::string> files;     // the path of each, same order
};

// Files in name order. Throws InputError when DIR is not a readable
// directory.
ReportDir read_report_dir(const std::string& dir);

}  // namespace gdrcheck

// `gdrcheck cluster --save DIR`: every raw output that came back, one file
// per host (`DIR/<host>.json`), whatever state it is in — a report that
// failed validation is kept too, to be looked at. Files are only ever
// created: an existing file is never replaced (a second run into the same
// directory fails for those hosts, and says so).
#pragma once

#include <string>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck {

// A host name as a file name: characters other than letters, digits, '.',
// '_' and '-' become '_', and a leading '.' too ("a;rm -rf /" ->
// "a_rm_-rf__"), so no host name can leave DIR.
std::string host_file_stem(const std::string& host);

struct SaveResult {
  std::vector<std::string> written;   // paths
  std::vector<std::string> problems;  // "DIR/x.json: already exists; not overwritten"
};

// Creates DIR (and its parents) when missing. Outcomes with empty output
// have nothing to keep and are skipped.
SaveResult save_raw_outputs(const std::string& dir, const std::vector<NodeOutcome>& outcomes);

}  // namespace gdrcheck

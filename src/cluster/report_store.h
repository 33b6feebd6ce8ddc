// `gdrcheck cluster --save DIR`: every raw output that came back, one file
// per host (`DIR/<host>.json`), whatever state it is in — a report that
// failed validation is kept too, to be looked at. Files are only ever
// created: an existing file is never replaced (a second run into the same
// directory fails for those hosts, and says so).
//
// gdrcheck runs as root, often in shared places, so nothing is written
// through a link: DIR itself must not be a symbolic link, a link on the
// way to it is followed only when root or the running user owns it, and a
// DIR that another user owns and others may write to is refused. Missing
// directories are made with kSaveDirMode and files with kSaveFileMode
// whatever the umask. Each file is written under a temporary name and then
// renamed (never over an existing name), so a half-written report never
// appears.
#pragma once

#include <string>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck {

// A host name as a file name: characters other than letters, digits, '.',
// '_' and '-' become '_', and a leading '.' too ("a;rm -rf /" ->
// "a_rm_-rf__"), so no host name can leave DIR.
std::string host_file_stem(const std::string& host);

inline constexpr unsigned kSaveDirMode = 0750;
inline constexpr unsigned kSaveFileMode = 0640;

struct SaveResult {
  std::vector<std::string> written;   // paths
  std::vector<std::string> problems;  // "DIR/x.json: already exists; not overwritten"
};

// Creates DIR (and its parents) when missing. Outcomes with empty output
// have nothing to keep and are skipped. A DIR that cannot be used is one
// problem naming it and why, and nothing is written.
SaveResult save_raw_outputs(const std::string& dir, const std::vector<NodeOutcome>& outcomes);

}  // namespace gdrcheck

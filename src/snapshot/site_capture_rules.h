// Capture rules a host's own configuration adds to capture_rules(): what
// the readers would open on that host beyond the usual places.
//  - NCCL libraries and net plugins in the folders /etc/ld.so.conf(.d)
//    lists (host/ld_so_conf.h), e.g. /opt/site/nccl-2.21/lib, which the
//    NCCL readers search but the fixed list cannot know;
//  - the topology file NCCL_TOPO_FILE names in /etc/nccl.conf (NCCL loads
//    it instead of probing, host_state.cc:read_topology_file), kept only
//    when it looks like XML (CaptureRule::xml_only).
// Folders and files already on the fixed list are not repeated.
#pragma once

#include <vector>

#include "host/root.h"
#include "snapshot/capture_list.h"

namespace gdrcheck {

std::vector<CaptureRule> site_capture_rules(const Root& root);

// capture_rules() and this root's site_capture_rules(): what a snapshot of
// the root captures.
CaptureList host_capture_list(const Root& root);

// `path` ("/opt/a[1]/lib") as a capture pattern matching only itself:
// without the leading '/', fnmatch's '*', '?', '[' and '\' escaped.
std::string literal_pattern(std::string_view path);

}  // namespace gdrcheck

// Human text for `gdrcheck node`: a per-GPU table (GPU, NIC, path, NCCL's
// GDR decision, verdict, main reason), then the findings grouped by check,
// then a one-line summary.
#pragma once

#include <string>

#include "checks/node_report.h"
#include "report/topo_text.h"

namespace gdrcheck {

struct NodeTextOptions {
  bool color = false;    // ANSI colours; only on a TTY
  bool quiet = false;    // only what is not OK, and the summary
  bool verbose = false;  // evidence for OK findings too
};

std::string render_node_text(const NodeReport& r, const NodeTextOptions& o);

// "CRITICAL: dgx-h100-01: 8 GPUs, 7 GPUDirect-ready, 1 not; 2 critical, 0 warning, 1 unknown findings"
std::string node_summary_line(const NodeReport& r);

}  // namespace gdrcheck

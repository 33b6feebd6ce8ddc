// Human text for `gdrcheck node`: a per-GPU table (GPU, NIC, path, NCCL's
// GDR decision, verdict, main reason), then the findings grouped by check,
// then a one-line summary.
//
// Findings with one root cause are folded (report/finding_fold.h): the
// translated IOMMU of a node is one CRITICAL block naming its 20 devices,
// not 20 blocks. Lines are wrapped to the width with a hanging indent, never
// cut (report/text_wrap.h) — except the summary line, which stays one line
// because NHC, Slurm and scripts read it as one.
#pragma once

#include <string>

#include "checks/node_report.h"
#include "report/output_style.h"
#include "report/topo_text.h"

namespace gdrcheck {

struct NodeTextOptions {
  bool color = false;    // ANSI colours (report/output_style.h decides)
  bool quiet = false;    // only what is not OK, and the summary
  bool verbose = false;  // evidence for OK findings, and every subject's own evidence
  bool utf8 = true;      // false: the renderer's symbols in ASCII
  int width = 0;         // columns to wrap at (OutputStyle::width); 0: no wrapping
};

NodeTextOptions node_text_options(const OutputStyle& style, bool quiet, bool verbose);

std::string render_node_text(const NodeReport& r, const NodeTextOptions& o);

// "CRITICAL: dgx-h100-01: 8 GPUs, 7 GPUDirect-ready, 1 not; 2 critical, 0 warning, 1 unknown findings"
// and, when a site policy changed findings, "; 2 changed by site policy".
std::string node_summary_line(const NodeReport& r);

}  // namespace gdrcheck

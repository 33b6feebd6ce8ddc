// Human text for `gdrcheck cluster`: the summary line, a table of nodes ×
// checks (worst status per check, and how old each report is; nodes that
// are OK everywhere are counted, `-v` lists them), the failures with their
// nodes (host lists folded: gpu[001-064]), the outliers, the Slurm drain
// commands with the nodes not drained and why, and what --resume did.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "cluster/drain.h"

namespace gdrcheck {

struct ClusterTextOptions {
  bool verbose = false;                         // every node in the table
  Status verdict = Status::Unknown;             // the exit status (after --threshold)
  std::vector<std::vector<std::string>> drain;  // scontrol argument vectors
  bool drained = false;                         // --drain ran them
  SlurmActions slurm;                           // ages, guards, resume
};

std::string render_cluster_text(const ClusterModel& m, const ClusterTextOptions& o);

// "CRITICAL: 64 nodes, 61 GPUDirect-ready; 2 CRITICAL, 1 UNKNOWN"
std::string cluster_summary_line(const ClusterModel& m, Status verdict);

}  // namespace gdrcheck

// `gdrcheck analyze TOPOLOGY LOG...`: predicted vs actual. For every rank of
// the log (a host and its CUDA device), the GPU of the topology it ran on,
// the NIC and GDR per direction the node model predicts for that GPU, and
// the NIC and GDR its channel lines show — agree, differ (with the most
// likely cause the evidence gives), or inconclusive (with what is missing).
// Pure: the caller reads the files and makes the prediction.
#pragma once

#include <string>
#include <vector>

#include "checks/node_report.h"
#include "evidence/nccl_log.h"

namespace gdrcheck {

struct CrosscheckSide {
  std::string nic;                 // "mlx5_3"; several "mlx5_3, mlx5_4"; "" when not known
  std::string gdr_send, gdr_recv;  // "yes", "no", "mixed", "unknown", "not seen"
};

struct CrosscheckRow {
  std::string host;  // "" when the log masks or omits it
  int rank = 0;
  int cuda_dev = -1;
  std::string gpu;        // the topology's GPU ("GPU3"); "" when it cannot be named
  std::string mapped_by;  // "busId 1b000", "nvmlDev 3 (index)", "cudaDev 3 (index)"
  CrosscheckSide predicted, observed;
  std::string observed_by;  // "channel lines", "GPU Direct RDMA line 57"; "" when the log shows nothing
  std::string agree;        // "yes", "no", "inconclusive"
  std::string cause;        // why not "yes": the most likely cause, or what is missing
};

struct Crosscheck {
  std::string topology, log;   // the files, as named
  std::string predicted_with;  // "NCCL 2.21.5 (the log's), settings: NCCL_IB_HCA=mlx5 (the log's)"
  std::vector<CrosscheckRow> rows;
  std::vector<std::string> notes;  // about the whole pair: "no NET channel lines: ..."
};

// `predicted` is the node report of the topology made with the log's
// settings and version (or the user's); `log` the log's report.
// WARNING when any GPU's prediction and log differ (something on the
// machine or in the job is not what the topology says), else OK:
// inconclusive rows prove nothing either way.
Status crosscheck_status(const std::vector<Crosscheck>& checks);

Crosscheck crosscheck(const NodeReport& predicted, const NcclLogReport& log, const std::string& topology_file,
                      const std::string& log_file, const std::string& predicted_with);

}  // namespace gdrcheck

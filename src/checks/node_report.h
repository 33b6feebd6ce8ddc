// The node verdict: runs every check family on one host's evidence and
// sums it up per GPU (its NIC, path, NCCL's GDR decision, verdict, main
// reason) and for the host (worst status). Pure: readers supply the input.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "host/host_state.h"
#include "nccl/gdr_predict.h"
#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NodeOptions {
  NcclVersion nccl_version = NcclVersion::newest();
  NcclViewOptions view;
  std::optional<nlohmann::json> manifest;  // validated gdrcheck.manifest/1
};

struct PairVerdict {
  std::string gpu;
  std::string nic;       // NIC endpoint id ("" when none)
  std::string nic_name;  // mlx5_0
  std::string path;      // nvidia-smi class
  std::string nccl_path;
  Tri gdr_send = Tri::Unknown, gdr_recv = Tri::Unknown;
  Status status = Status::Unknown;
  std::string reason;                // the worst related finding's summary
  std::vector<std::string> reasons;  // every non-OK related finding, worst first
};

struct NodeReport {
  std::string host;
  std::string root;
  Status status = Status::Unknown;
  NcclVersion nccl_version;
  Topology topology;
  TopologyPaths paths;
  std::vector<GdrPrediction> predictions;
  std::vector<PairVerdict> pairs;
  std::vector<Finding> findings;  // grouped by check family, in a fixed order
};

NodeReport build_node_report(Topology topology, const HostState& host, const NodeOptions& options);

}  // namespace gdrcheck

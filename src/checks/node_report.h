// The node verdict: runs every check family on one host's evidence and
// sums it up per GPU (its NIC, path, NCCL's GDR decision, verdict, main
// reason) and for the host (worst status). Pure: readers supply the input.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/host_assumptions.h"
#include "checks/plan_step.h"
#include "checks/policy.h"
#include "host/gds_state.h"
#include "host/host_state.h"
#include "nccl/gdr_predict.h"
#include "nccl/version_choice.h"
#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NodeOptions {
  // The release to predict for (--nccl-version); unset: the NCCL found in
  // the root, else the newest release gdrcheck knows (nccl/version_choice.h).
  std::optional<NcclVersion> nccl_version;
  NcclViewOptions view;
  std::optional<nlohmann::json> manifest;  // validated gdrcheck.manifest/1
  std::optional<Policy> policy;            // site policy, applied to the findings before the verdicts
  // Set when the evidence is a topology file alone (node --topo): the checks
  // of live host facts give way to one `host` finding, and these are what
  // the planner stated (checks/host_assumptions.h).
  std::optional<HostAssumptions> topology_file_only;
  // node --gds: the host's GPUDirect Storage state; its findings (gds.*)
  // join the node's, judged on the same topology and host state.
  const GdsState* gds = nullptr;
};

struct PairVerdict {
  std::string gpu;
  std::string nic;       // NIC endpoint id ("" when none)
  std::string nic_name;  // mlx5_0
  std::string path;      // nvidia-smi class
  std::string nccl_path;
  // Whether GPUDirect RDMA carries each direction (nccl/tri.h GdrUse): NCCL's
  // decision, turned into Fail when a critical host finding on this pair
  // (ACS redirect, IOMMU translation) breaks the transfer NCCL selected.
  GdrUse gdr_send = GdrUse::Unknown, gdr_recv = GdrUse::Unknown;
  std::vector<std::string> fail_reasons;  // why a direction is Fail
  Status status = Status::Unknown;
  std::string reason;                // the worst related finding's summary
  std::vector<std::string> reasons;  // every non-OK related finding, worst first

  // GPUDirect-ready: both directions yes and nothing wrong on the pair. The
  // one meaning of "ready" in node's summary, the pair table and cluster.
  bool ready() const { return gdr_send == GdrUse::Yes && gdr_recv == GdrUse::Yes && status == Status::Ok; }
};

// The prediction for another NCCL release found on the node.
struct NcclAlternative {
  NcclVersionChoice nccl;
  std::vector<GdrPrediction> predictions;
};

struct NodeReport {
  std::string host;
  std::string root;
  // node --topo: judged from this topology file alone (root = the file), with
  // the host facts stated by --assume ("" when none).
  bool from_topology_file = false;
  std::string assumed;
  std::vector<PlanStep> plan;  // node --topo: per GPU, GDR or not and the smallest change (placement_plan.h)
  // node --topo --what-if: the moves applied, and the pairs before them.
  std::vector<std::string> what_if;
  std::vector<PairVerdict> before_what_if;
  Status status = Status::Unknown;
  NcclVersion nccl_version;  // the release whose rules the predictions follow (= nccl.rules)
  NcclVersionChoice nccl;    // which release, and where it was found
  std::vector<NcclAlternative> nccl_alternatives;
  // The topology NCCL's prediction was made on: "sysfs" or the topology file;
  // why a topology file was not used, and whether NCCL cannot load it.
  std::string nccl_topology = "sysfs";
  std::vector<std::string> nccl_topology_notes;
  bool nccl_topology_unloadable = false;
  Topology topology;
  TopologyPaths paths;
  std::vector<GdrPrediction> predictions;
  std::vector<PairVerdict> pairs;
  std::vector<Finding> findings;  // grouped by check family, in a fixed order
};

NodeReport build_node_report(Topology topology, const HostState& host, const NodeOptions& options);

}  // namespace gdrcheck

// What the node checks judge: the topology, its path matrix, the host state
// and NCCL's predicted decisions. Built once by the node report; each check
// family is a pure function of it.
#pragma once

#include <string>
#include <vector>

#include "checks/finding.h"
#include "host/host_state.h"
#include "nccl/gdr_predict.h"
#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NodeEvidence {
  const Topology& topology;
  const TopologyPaths& paths;
  const HostState& host;
  const std::vector<GdrPrediction>& predictions;
  NcclVersion nccl_version;

  const PciFunctionState* function(const Endpoint& e) const;
  const RdmaDevice* rdma(const std::string& name) const;
  const GdrPrediction* prediction(const std::string& gpu) const;
  // GPUs in the topology are NVIDIA GPUs; at least one and at least one NIC?
  bool has_gpus() const;
};

// One function per check family (ids are stable: scripts rely on them).
std::vector<Finding> check_gpu(const NodeEvidence& e);
std::vector<Finding> check_nic(const NodeEvidence& e);
std::vector<Finding> check_port(const NodeEvidence& e);
std::vector<Finding> check_peermem(const NodeEvidence& e);
std::vector<Finding> check_driver(const NodeEvidence& e);
std::vector<Finding> check_path(const NodeEvidence& e);
std::vector<Finding> check_acs(const NodeEvidence& e);
std::vector<Finding> check_iommu(const NodeEvidence& e);
std::vector<Finding> check_link(const NodeEvidence& e);
std::vector<Finding> check_nccl(const NodeEvidence& e);

// Host facts NCCL's IB transport would see (peer-memory files, DMA-BUF
// preconditions), derived from the host state; shared by the peermem check
// and the NCCL prediction so both say the same thing.
GdrHostFacts gdr_host_facts(const Topology& t, const HostState& h);

}  // namespace gdrcheck

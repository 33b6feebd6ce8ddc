// What the node checks judge: the topology, its path matrix, the host state
// and NCCL's predicted decisions. Built once by the node report; each check
// family is a pure function of it.
#pragma once

#include <string>
#include <vector>

#include "checks/finding.h"
#include "host/host_state.h"
#include "nccl/gdr_predict.h"
#include "nccl/version_choice.h"
#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NcclAlternative;

struct NodeEvidence {
  const Topology& topology;
  const TopologyPaths& paths;
  const HostState& host;
  const std::vector<GdrPrediction>& predictions;
  NcclVersion nccl_version;
  const NcclVersionChoice* nccl = nullptr;                          // which release, and why
  const std::vector<NcclAlternative>* nccl_alternatives = nullptr;  // other releases found
  std::string nccl_topology = "sysfs";           // what NCCL builds its topology from (a topology file's path)
  std::vector<std::string> nccl_topology_notes;  // why a topology file was not used
  bool nccl_topology_unloadable = false;         // NCCL cannot parse the topology file: init fails
  // The evidence is a topology file alone (node --topo): no driver binding,
  // RDMA device or port files to judge.
  bool topology_file_only = false;

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

// The same judgements on other devices and pairs (GPUDirect Storage: GPU↔NVMe
// and GPU↔storage NIC paths). Findings keep the node checks' ids.
struct EndpointPair {
  const Endpoint* a = nullptr;
  const Endpoint* b = nullptr;
};
std::vector<Finding> check_acs_between(const NodeEvidence& e, const std::vector<EndpointPair>& pairs);
std::vector<Finding> check_iommu_of(const NodeEvidence& e, const std::vector<const Endpoint*>& devices);
std::vector<Finding> check_link_of(const NodeEvidence& e, const std::vector<const Endpoint*>& devices);

// How findings name a device: a GPU by its id (GPU0), a NIC or drive by
// its name (mlx5_0, nvme0), else its id.
std::string endpoint_label(const Endpoint& d);

// What kept GDR off for a GPU, in a few words (its first cause): "the NIC
// is too far from the GPU for the GDR level" (nccl_check.cc).
std::string gdr_cause_words(const GdrPrediction& p);

// Host facts NCCL's IB transport would see (peer-memory files, DMA-BUF
// preconditions), derived from the host state; shared by the peermem check
// and the NCCL prediction so both say the same thing.
GdrHostFacts gdr_host_facts(const Topology& t, const HostState& h);

// What the prediction needs to know of each GPU (compute capability,
// GDR-capable class, NVLink-C2C) and each RDMA port (uverbs, state, link
// layer, rate), from the topology and the host state (nccl_inputs.cc).
std::map<std::string, GpuFacts> gpu_facts(const Topology& t, const HostState& h);
std::optional<std::vector<NicPortFacts>> nic_port_facts(const Topology& t, const HostState& h);
// The NCCL installs of the host as the version plan takes them.
std::vector<NcclFound> nccl_found(const HostState& h);
// The net plugin NCCL would load (NCCL_NET_PLUGIN, else libnccl-net.so).
std::optional<NetPluginFacts> net_plugin_facts(const HostState& h);

}  // namespace gdrcheck

// Which of NCCL's network devices carries a GPU's traffic, and how it gets
// there: the GPU's own PCIe path, or PXN — through an NVLink peer GPU that
// sits closer to the NIC (src/graph/paths.cc:ncclTopoComputePaths@v2.12.12-1
// on). Devices are ranked by path bandwidth first, then path type
// (src/graph/topo.cc:ncclTopoGetLocal@v2.30.7-1,
// src/graph/search.cc:ncclTopoGetLocalNet before); among equally good
// devices channel 0's is picked by the GPU's index (bit-mirrored from
// 2.18.5). Pure: no I/O.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nccl/gdr_predict.h"
#include "nccl/nccl_nets.h"
#include "nccl/tri.h"
#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck {

// One way from a GPU to one network device.
struct NetRoute {
  const NcclNet* net = nullptr;
  const Endpoint* nic = nullptr;
  NcclPath type = NcclPath::Unknown;  // NCCL's label: the own path, or PXN
  NcclPath own = NcclPath::Unknown;   // the GPU's own PCIe path to the NIC
  double bw = 0;                      // GB/s as NCCL computes it; 0 = unknown
  const Endpoint* proxy = nullptr;    // PXN: the NVLink peer whose NIC this is
  NcclPath proxy_type = NcclPath::Unknown;
  bool via_cpu = false;  // GDR disabled: NCCL routes GPU↔NIC through the CPU
};

struct NetChoice {
  std::vector<NetRoute> local;  // the equally good routes, channel 0's first
  std::vector<std::string> rules;
  // Unknown when an undecidable fact (NVLink for PXN, a path) could change
  // which device NCCL picks.
  Tri certain = Tri::Yes;
  bool path_unknown = false;  // a PCIe path, not NVLink, left the choice undecided
  std::string path_why;       // that path's reason (the first one), for the finding
};

struct NetChoiceInput {
  const Topology& view;
  const std::vector<const Endpoint*>& gpus;
  const std::map<std::string, GpuFacts>& facts;
  const NcclSettings& settings;
  const NcclVersion& version;
  // ncclTopoCheckGdr for a GPU and a device with the given distance: No when
  // GPUDirect RDMA is disabled (then NCCL reroutes that GPU↔NIC path through
  // the CPU). `read` = the send side (the NIC reads GPU memory).
  std::function<Tri(const Endpoint& gpu, NcclPath distance, bool read)> gdr_allowed;
};

NetChoice choose_net(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<NcclNet>& nets);

// NCCL's path type between two endpoints; a pasted nvidia-smi matrix has no
// tree, so its printed code is mapped instead (nccl-spec §1.5).
NcclClass view_path(const Topology& view, const Endpoint& a, const Endpoint& b);

// NVLink paths between GPUs survive: NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC
// (or 0) reroute every GPU pair through the CPU, which removes NVL paths and
// with them PXN and the NVLink condition of the read rule
// (src/graph/paths.cc:ncclGetLevel / ncclTopoCheckP2p@v2.30.7-1).
bool nvlink_paths_kept(const NcclSettings& settings);

// PCIe bandwidth in GB/s as NCCL's topology gives it (width × per-lane
// figure of src/graph/xml.cc kvDictPciGen, /80); 0 when unknown.
double nccl_pcie_bw(const PciLink& link, bool current_width);

}  // namespace gdrcheck

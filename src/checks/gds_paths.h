// The PCIe paths GPUDirect Storage uses — each local NVMe drive and each
// storage NIC cuFile is told to use, to the GPUs nearest it — and the node
// checks' judgement of them: ACS on every bridge between, the IOMMU group
// and the PCIe link of each drive and NIC (ids gds.acs, gds.iommu,
// gds.link). Gathered by the placement and RDMA checks, judged once, so a
// bridge on several paths is one finding.
#pragma once

#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/node_evidence.h"
#include "topology/path_class.h"

namespace gdrcheck {

struct GdsPaths {
  std::vector<EndpointPair> pairs;       // GPU, then drive or NIC
  std::vector<const Endpoint*> devices;  // the drives and NICs, once each
  void add(const Endpoint* device, const std::vector<const Endpoint*>& gpus);
};

// The GPUs with the shortest PCIe path to `device` (nvidia-smi's classes),
// and each GPU's class as evidence ("GPU0 PIX: both below one PCIe switch").
struct NearestGpus {
  SmiClass best;
  std::vector<const Endpoint*> gpus;  // empty when no path could be classed
  std::vector<std::string> evidence;
  std::string ids() const;  // "GPU0, GPU1 (PIX)"
};
NearestGpus nearest_gpus(const Topology& t, const Endpoint& device);

std::vector<Finding> check_gds_paths(const NodeEvidence& e, const GdsPaths& paths);

}  // namespace gdrcheck

// The GPU/NIC matrix of a topology, in nvidia-smi's codes and in NCCL's own
// view, plus each GPU's closest NICs. Computed once per topology; renderers
// and checks read it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "topology/nccl_view.h"
#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck {

struct PathCell {
  std::string code;  // "PIX", "NV12", "X", "?" ...
  std::string why;
};

struct ClosestNic {
  std::string gpu;
  std::vector<std::string> nics;  // ties, in NIC order
  std::string smi_code;           // class of those NICs in nvidia-smi codes
  std::string nccl_code;          // and in NCCL's view
};

struct TopologyPaths {
  std::vector<std::string> ids;  // matrix order: GPUs, NICs, NVMe, extra devices
  std::map<std::pair<std::string, std::string>, PathCell> smi;
  std::map<std::pair<std::string, std::string>, PathCell> nccl;
  std::vector<ClosestNic> closest;

  const PathCell& smi_at(const std::string& a, const std::string& b) const;
  const PathCell& nccl_at(const std::string& a, const std::string& b) const;
};

TopologyPaths compute_paths(const Topology& t, const NcclViewOptions& options = {});

}  // namespace gdrcheck

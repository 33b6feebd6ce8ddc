// The GPU/NIC matrix of a topology, in nvidia-smi's codes and in NCCL's own
// view, plus each GPU's closest NICs. Computed once per topology; renderers
// and checks read it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
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

// The matrix is dense, in `ids` order (row a, column b at a * size + b):
// the renderers look up every cell, and a map keyed by pairs of id strings
// made those lookups most of the cost of a large topology.
struct TopologyPaths {
  std::vector<std::string> ids;  // matrix order: GPUs, NICs, NVMe, extra devices
  std::vector<PathCell> smi;     // ids.size() squared cells
  std::vector<PathCell> nccl;
  std::vector<ClosestNic> closest;

  // Sets the order and sizes both matrices, every cell "?" until filled.
  void set_ids(std::vector<std::string> order);
  // The row/column of `id` (the last one, should two devices share an id).
  std::optional<std::size_t> index_of(const std::string& id) const;
  PathCell& smi_cell(std::size_t a, std::size_t b) { return smi[a * ids.size() + b]; }
  PathCell& nccl_cell(std::size_t a, std::size_t b) { return nccl[a * ids.size() + b]; }
  const PathCell& smi_at(const std::string& a, const std::string& b) const;
  const PathCell& nccl_at(const std::string& a, const std::string& b) const;

 private:
  const PathCell& cell_at(const std::vector<PathCell>& cells, const std::string& a, const std::string& b) const;
  std::unordered_map<std::string, std::size_t> index_;
};

TopologyPaths compute_paths(const Topology& t, const NcclViewOptions& options = {});

}  // namespace gdrcheck

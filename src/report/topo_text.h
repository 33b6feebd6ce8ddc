// Human text for `gdrcheck topo`: the matrix like `nvidia-smi topo -m`, the
// legends, each GPU's closest NICs, and where NCCL sees the path differently.
#pragma once

#include <string>

#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

struct TextStyle {
  bool color = false;  // ANSI colours; only on a TTY
};

std::string render_topo_text(const Topology& t, const TopologyPaths& paths, const TextStyle& style = {});

}  // namespace gdrcheck

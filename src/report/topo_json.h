// JSON for `gdrcheck topo --json`, schema "gdrcheck.topo/1" (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

nlohmann::json topo_json(const Topology& t, const TopologyPaths& paths);

}  // namespace gdrcheck

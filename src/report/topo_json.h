// JSON for `gdrcheck topo --json`, schema "gdrcheck.topo/1" (docs/json.md).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

// `now` is when the document was made (tests fix it); `host` the name of
// the node whose root was read (root_hostname), none for a topology file.
nlohmann::json topo_json(const Topology& t, const TopologyPaths& paths,
                         std::chrono::system_clock::time_point now = std::chrono::system_clock::now(),
                         const std::optional<std::string>& host = std::nullopt);

}  // namespace gdrcheck

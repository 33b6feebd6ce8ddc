// JSON for `gdrcheck node --json`, schema "gdrcheck.node/1" (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "checks/node_report.h"
#include "host/host_state.h"

namespace gdrcheck {

nlohmann::json node_json(const NodeReport& r, const HostState& h);

}  // namespace gdrcheck

// JSON for `gdrcheck node --json`, schema "gdrcheck.node/1" (docs/json.md).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "checks/node_report.h"
#include "host/host_state.h"

namespace gdrcheck {

// `now` is when the report was made (tests fix it).
nlohmann::json node_json(const NodeReport& r, const HostState& h,
                         std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace gdrcheck

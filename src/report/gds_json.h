// JSON for `gdrcheck gds --json`, schema "gdrcheck.gds/1" (docs/json.md).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "checks/gds_report.h"

namespace gdrcheck {

nlohmann::json gds_json(const GdsReport& r,
                        std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace gdrcheck

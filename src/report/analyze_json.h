// JSON for `gdrcheck analyze --json`, schema "gdrcheck.analyze/1" (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "analyze/artifact.h"

namespace gdrcheck {

nlohmann::json analyze_json(const std::vector<Artifact>& artifacts, bool detail);

}  // namespace gdrcheck

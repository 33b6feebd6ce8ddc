// The `crosscheck` array of gdrcheck.analyze/1 (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "analyze/crosscheck.h"

namespace gdrcheck {

nlohmann::json crosscheck_json(const std::vector<Crosscheck>& checks);

}  // namespace gdrcheck

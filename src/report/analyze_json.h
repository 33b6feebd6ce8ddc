// JSON for `gdrcheck analyze --json`, schema "gdrcheck.analyze/1" (docs/json.md).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

#include "analyze/artifact.h"
#include "analyze/crosscheck.h"

namespace gdrcheck {

// `now` is when the document was made (tests fix it). Its `host` is null:
// the files may come from any number of nodes, each artifact says which.
// `crosschecks`: topologies against logs (the "crosscheck" array).
nlohmann::json analyze_json(const std::vector<Artifact>& artifacts, bool detail,
                            std::chrono::system_clock::time_point now = std::chrono::system_clock::now(),
                            const std::vector<Crosscheck>& crosschecks = {});

}  // namespace gdrcheck

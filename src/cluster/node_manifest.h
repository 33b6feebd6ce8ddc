// `gdrcheck cluster --manifest FILE`: the same expected node for every
// host, compared with each report's own inventory (the manifest-shaped
// facts of gdrcheck.node/1) by the rules of `gdrcheck node --manifest`:
// only what the manifest names is compared, every difference is CRITICAL.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "cluster/node_report_reader.h"

namespace gdrcheck {

// Findings of check "manifest": one per difference, or one OK. A report
// without an inventory (older gdrcheck) cannot be compared: UNKNOWN.
std::vector<ReportFinding> compare_with_manifest(const nlohmann::json& inventory, const nlohmann::json& manifest);

}  // namespace gdrcheck

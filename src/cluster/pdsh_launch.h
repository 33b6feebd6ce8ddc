// `gdrcheck cluster --pdsh`: one pdsh run over the host list, its two
// streams split into per-host output and status as they arrive.
#pragma once

#include <vector>

#include "cluster/launcher.h"
#include "cluster/node_result.h"

namespace gdrcheck::launch {

std::vector<NodeOutcome> run_pdsh(const LaunchOptions& opts);

}  // namespace gdrcheck::launch

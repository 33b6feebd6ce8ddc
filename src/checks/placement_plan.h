// `node --topo`: the planner's summary of a topology. Per GPU: whether the
// topology gives it GPUDirect RDMA in both directions (and how: its own
// NIC, or a peer's through PXN), and when not, why and the smallest change
// that would: a NIC moved or added under the GPU's switch — written as a
// `--what-if` move to try when one NIC can move without taking GDR from
// another GPU — or the setting that decides. Pure: from the report.
#pragma once

#include <string>
#include <vector>

#include "checks/node_report.h"
#include "checks/plan_step.h"

namespace gdrcheck {

std::vector<PlanStep> placement_plan(const NodeReport& r);

}  // namespace gdrcheck

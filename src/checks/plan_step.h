// One GPU's line of the planner's summary (checks/placement_plan.h).
#pragma once

#include <string>

namespace gdrcheck {

struct PlanStep {
  std::string gpu;
  bool gets_gdr = false;  // send and receive both through GPUDirect RDMA
  std::string how;        // "mlx5_0, PIX" / "through GPU0's NIC mlx5_0 (PXN)"
  std::string why_not;    // the first cause, in words; "" when gets_gdr
  std::string change;     // the smallest change; "" when none is needed
  std::string what_if;    // "move 0000:ca:00.0 under 0000:17:00.0" when a move would do it
};

}  // namespace gdrcheck

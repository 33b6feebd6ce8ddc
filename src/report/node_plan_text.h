// The text of `node --topo`'s own blocks: the planner's summary (one line
// per GPU: GDR or not, why, the smallest change) and, with --what-if, the
// moves and what they changed per GPU. Lines, for node_text to wrap.
#pragma once

#include <string>
#include <vector>

#include "checks/node_report.h"

namespace gdrcheck {

// "GPU3  no GDR: the NIC is too far from the GPU for the GDR level; change:
// move mlx5_3 under 0000:17:00.0 (GPU3's switch) (try: --what-if ...)".
std::vector<std::string> plan_lines(const NodeReport& r);

// "moved: mlx5_3 (0000:ca:00.0) moved from under ... to under ...", then
// "GPU3  mlx5_3 SYS no/no  ->  mlx5_3 PIX yes/yes" for every GPU whose NIC,
// path or GDR changed ("no GPU changed" when none did).
std::vector<std::string> what_if_lines(const NodeReport& r);

}  // namespace gdrcheck

// Text of `analyze TOPOLOGY LOG`'s cross-check: one line per host and GPU,
// "GPU3  predicted mlx5_3 GDR yes/yes  ·  log mlx5_3 GDR no/no  ·  differs: ...".
#pragma once

#include <string>

#include "analyze/crosscheck.h"

namespace gdrcheck {

std::string render_crosscheck_text(const Crosscheck& c);

}  // namespace gdrcheck

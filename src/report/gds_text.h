// Text of `gdrcheck gds`: the host, then each finding with its evidence and
// fix, then a summary line scripts can read.
#pragma once

#include <string>

#include "checks/gds_report.h"

namespace gdrcheck {

std::string render_gds_text(const GdsReport& r);

}  // namespace gdrcheck

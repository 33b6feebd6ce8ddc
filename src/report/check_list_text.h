// Text for `gdrcheck --list-checks`: every check id, the statuses it can
// give and what it looks at, one row each, wrapped to the width.
#pragma once

#include <string>

#include "report/output_style.h"

namespace gdrcheck {

std::string render_check_list(const OutputStyle& style);

}  // namespace gdrcheck

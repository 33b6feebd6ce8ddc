// Human text for `gdrcheck analyze`: per file, what it is, what it proves
// and the lines that prove it.
#pragma once

#include <string>
#include <vector>

#include "analyze/artifact.h"

namespace gdrcheck {

std::string render_analyze_text(const std::vector<Artifact>& artifacts, bool detail);

}  // namespace gdrcheck

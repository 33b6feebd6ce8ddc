// Human text for `gdrcheck analyze`: per file, what it is, what it proves
// and the lines that prove it.
#pragma once

#include <string>
#include <vector>

#include "analyze/artifact.h"
#include "analyze/crosscheck.h"

namespace gdrcheck {

// The cross-checks of topologies against logs follow the files; the status
// line counts them too.
std::string render_analyze_text(const std::vector<Artifact>& artifacts, bool detail,
                                const std::vector<Crosscheck>& crosschecks = {});

}  // namespace gdrcheck

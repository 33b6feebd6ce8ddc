// Real node reports for the cluster tests: the output of the real
// `gdrcheck node --root R --json` on fixture roots (tests/data/nodes),
// produced once per process, so aggregation is tested on genuinely
// different nodes.
#pragma once

#include <string>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck::testing {

// `gdrcheck node --root node_root(name, variants) --json` stdout.
std::string node_report_json(const std::string& name, const std::vector<std::string>& variants = {});

// The same report with its "host" replaced (nodes of one cluster).
std::string renamed_report(const std::string& report, const std::string& host);

// An outcome that came back with that report.
NodeOutcome report_outcome(const std::string& host, const std::string& name,
                           const std::vector<std::string>& variants = {});

// Writes `text` to DIR/FILE (a new file).
void write_file(const std::string& dir, const std::string& file, const std::string& text);

}  // namespace gdrcheck::testing

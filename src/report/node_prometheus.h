// `gdrcheck node --format prometheus`: the node verdict as gauges for
// node_exporter's textfile collector (docs/prometheus.md). Every family is
// named for the node output only, so the node, cluster and bench files can
// sit in one textfile directory without two files exposing one series.
#pragma once

#include <string>

#include "checks/node_report.h"
#include "host/host_state.h"
#include "report/prometheus_text.h"

namespace gdrcheck {

// What every status gauge's # HELP says of its values.
inline constexpr const char* kStatusScaleHelp = " (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN: the exit-code scale)";

// A status on the exit-code scale: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
double status_value(Status s);
// Two status values folded into the worse (checks/finding.h worse()):
// CRITICAL > WARNING > UNKNOWN > OK, so not simply the larger number.
double worse_status_value(double kept, double added);

std::string node_prometheus(const NodeReport& r, const HostState& h, const PrometheusStamp& stamp);

}  // namespace gdrcheck

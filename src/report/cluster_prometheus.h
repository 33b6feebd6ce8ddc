// `gdrcheck cluster --format prometheus`: the cluster verdict as gauges,
// one series per node and the counts (docs/prometheus.md). Families are
// gdrcheck_cluster_* and gdrcheck_node_*, apart from the node report's, so
// a head node's own node file and the cluster file share a directory.
#pragma once

#include <string>

#include "cluster/cluster_model.h"
#include "report/prometheus_text.h"

namespace gdrcheck {

// `verdict`: the cluster's exit status (after --threshold).
std::string cluster_prometheus(const ClusterModel& m, Status verdict, const PrometheusStamp& stamp);

}  // namespace gdrcheck

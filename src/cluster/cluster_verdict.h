// The cluster's exit status. By default the worst over the nodes (a single
// node without peermem makes the cluster CRITICAL). With `--threshold N`
// (or N%) a site tolerates up to N failed nodes — nodes that are CRITICAL or
// could not be checked (UNKNOWN): within it the cluster is at most WARNING,
// past it CRITICAL. A cluster where no node could be checked is UNKNOWN
// whatever the threshold: nothing unverified passes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "cluster/cluster_model.h"

namespace gdrcheck {

struct FailedNodeThreshold {
  double value = 0;      // nodes, or percent of the nodes
  bool percent = false;  // "5%"
};

// "3" or "5%"; nullopt for anything else (negative, not a number, > 100%).
std::optional<FailedNodeThreshold> parse_threshold(const std::string& text);

std::size_t failed_nodes(const ClusterModel& m);

Status cluster_verdict(const ClusterModel& m, const std::optional<FailedNodeThreshold>& threshold);

}  // namespace gdrcheck

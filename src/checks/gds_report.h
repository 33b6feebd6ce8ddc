// `gdrcheck gds`: the GPUDirect Storage report of one host — the driver
// route, the cuFile configuration, the mounts and the drives' placement
// (checks/gds_checks.h); the
// worst finding is the host's status. Pure: the caller reads the host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/gds_watch.h"
#include "host/gds_state.h"

namespace gdrcheck {

struct GdsReport {
  std::string host;
  std::string root;
  std::string cufile;  // the configuration libcufile would read; "" when none
  Status status = Status::Unknown;
  std::vector<Finding> findings;
  std::optional<GdsWatch> watch;  // gds --watch: the command run and the counters read around it
};

struct NodeEvidence;

// `node`: the host's topology and state for drive placement (gds.placement,
// gds.acs, gds.iommu, gds.link); without it those are not judged.
GdsReport build_gds_report(const GdsState& g, const std::string& host, const NodeEvidence* node = nullptr);

// node --gds: the same findings for the node report (without gds.gpu: the
// node's own gpu check speaks of GPUs).
std::vector<Finding> gds_findings_for_node(const GdsState& g, const NodeEvidence& node);

}  // namespace gdrcheck

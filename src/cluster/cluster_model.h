// The cluster as a whole, from what came back from each host: per node the
// worst status of each check, whether it is fully GPUDirect-ready, its
// fingerprint; for the cluster the summary (ready nodes, nodes per
// failure), the outliers, and the worst status. Pure: launchers and
// `--from` supply the outcomes, renderers print the model.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/finding.h"
#include "cluster/fingerprint.h"
#include "cluster/node_report_reader.h"
#include "cluster/node_result.h"
#include "cluster/outliers.h"

namespace gdrcheck {

struct ClusterOptions {
  // `--from DIR`: name each node by its report's own "host" (a launcher
  // names it as the user did).
  bool host_from_report = false;
  std::optional<nlohmann::json> manifest;  // validated gdrcheck.manifest/1
  std::size_t threads = 0;                 // reports read at once; 0 = one per core
  // Where each outcome came from, by index (`--from`: the file), named in
  // the reason when a report is refused; may be shorter than the outcomes.
  std::vector<std::string> sources;
};

struct ClusterNode {
  std::string host;
  NodeOutcome::How how = NodeOutcome::How::Report;  // NotAReport when the report was refused
  std::string reason;                               // why there is no report
  int exit_code = -1;
  Status status = Status::Unknown;
  std::size_t gpus = 0, gdr_gpus = 0;    // GPUs, and those with GDR predicted both ways
  bool gdr_ready = false;                // status OK and every GPU GDR both ways
  std::map<std::string, Status> checks;  // worst status per check id
  std::vector<ReportFinding> problems;   // findings that are not OK, worst first
  Fingerprint fingerprint;               // empty without a report

  bool has_report() const { return how == NodeOutcome::How::Report; }
  // The main reason a node is not OK: its worst finding, or why it has no
  // report. "" when OK.
  std::string main_problem() const;
};

// Nodes sharing one failure: a check that is not OK, or a way of not
// answering ("unreachable", "not a report", ...).
struct ClusterFailure {
  std::string what;                 // "acs", "peermem", "unreachable"
  Status status = Status::Unknown;  // the worst among those nodes
  std::vector<std::string> hosts;
};

struct ClusterModel {
  std::vector<ClusterNode> nodes;   // in outcome order
  std::vector<std::string> checks;  // check ids seen, in the node report's order
  std::size_t reported = 0, ready = 0;
  std::map<Status, std::size_t> by_status;
  std::vector<ClusterFailure> failures;  // most nodes first
  OutlierAnalysis outliers;
  std::vector<std::string> notes;  // e.g. one host reported twice
  Status status = Status::Ok;      // worst over the nodes (OK with no nodes is UNKNOWN)
};

ClusterModel build_cluster_model(const std::vector<NodeOutcome>& outcomes, const ClusterOptions& options);

}  // namespace gdrcheck

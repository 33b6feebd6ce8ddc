// The cluster as a whole, from what came back from each host: per node the
// worst status of each check, whether it is fully GPUDirect-ready, its
// fingerprint; for the cluster the summary (ready nodes, nodes per
// failure), the outliers, and the worst status. Pure: launchers and
// `--from` supply the outcomes, renderers print the model.
#pragma once

#include <cstddef>
#include <cstdint>
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

// What one report may bring into the cluster view. A node report holds a
// few hundred findings of the eleven checks; the caps only stop a hostile
// or broken report from costing memory and time for every other node.
inline constexpr std::size_t kMaxFindingsPerReport = 10'000;
inline constexpr std::size_t kMaxChecksPerReport = 32;  // distinct check ids
inline constexpr std::size_t kMaxCheckIdBytes = 32;
inline constexpr std::size_t kMaxFindingTextBytes = 1024;  // subject, summary, fix as kept
inline constexpr std::size_t kMaxCheckColumns = 64;        // ClusterModel::checks

struct ClusterOptions {
  std::optional<nlohmann::json> manifest;  // validated gdrcheck.manifest/1
  std::size_t threads = 0;                 // reports read at once; 0 = one per core
  // Where each outcome came from, by index (`--from`: the file), named in
  // the reason when a report is refused; may be shorter than the outcomes.
  std::vector<std::string> sources;
};

struct ClusterNode {
  std::string host;                                 // as addressed (NodeOutcome::host), never the report's claim
  NodeOutcome::How how = NodeOutcome::How::Report;  // NotAReport when the report was refused
  std::string reason;                               // why there is no report
  // The report's own "host" when it differs from the addressed name (a
  // launcher reaching a node by IP or alias). The verdict stands, since the
  // output came over the connection to that node, but nothing is drained
  // under a name the report does not confirm.
  std::string claimed_host;
  int exit_code = -1;
  std::optional<std::int64_t> generated_at;  // the report's, seconds since the epoch
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
  std::vector<ClusterNode> nodes;  // in outcome order
  // Check ids seen, in the node report's order, then others in the order
  // seen, at most kMaxCheckColumns.
  std::vector<std::string> checks;
  std::size_t reported = 0, ready = 0;
  std::map<Status, std::size_t> by_status;
  std::vector<ClusterFailure> failures;  // most nodes first
  OutlierAnalysis outliers;
  std::vector<std::string> notes;  // e.g. one host reported twice
  Status status = Status::Ok;      // worst over the nodes (OK with no nodes is UNKNOWN)
};

// Each node is named as it was addressed. A report whose own "host" is
// not that node (cluster/node_name.h same_host) is WrongHost: UNKNOWN,
// "report claims host X, was asked of Y". A report over the caps above is
// NotAReport. Linear in the outcomes and their findings (n log n at most).
ClusterModel build_cluster_model(const std::vector<NodeOutcome>& outcomes, const ClusterOptions& options);

}  // namespace gdrcheck

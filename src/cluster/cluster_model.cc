#include "cluster/cluster_model.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <unordered_map>

#include "cluster/node_manifest.h"

namespace gdrcheck {
namespace {

// The node report's check order; ids it does not know go after, in order seen.
const std::vector<std::string>& known_checks() {
  static const std::vector<std::string> ids = {"gpu",   "nic",  "port", "peermem", "path",    "acs",
                                               "iommu", "link", "nccl", "driver",  "manifest"};
  return ids;
}

// Rank for "worst first": CRITICAL, WARNING, UNKNOWN, OK (finding.h's order).
int severity(Status s) {
  switch (s) {
    case Status::Critical:
      return 3;
    case Status::Warning:
      return 2;
    case Status::Unknown:
      return 1;
    case Status::Ok:
      return 0;
  }
  return 1;
}

ClusterNode unanswered(const NodeOutcome& o, NodeOutcome::How how, std::string reason) {
  ClusterNode n;
  n.host = o.host;
  n.how = how;
  n.reason = std::move(reason);
  n.exit_code = o.exit_code;
  n.status = Status::Unknown;
  return n;
}

void add_findings(ClusterNode& n, const std::vector<ReportFinding>& findings) {
  for (const auto& f : findings) {
    auto [it, fresh] = n.checks.emplace(f.check, f.status);
    if (!fresh) it->second = worse(it->second, f.status);
    if (f.status != Status::Ok) n.problems.push_back(f);
  }
}

// One outcome to one node: what the launcher said, or what the report says.
ClusterNode understand(const NodeOutcome& o, const std::string& source, const ClusterOptions& opt) {
  if (o.how != NodeOutcome::How::Report) return unanswered(o, o.how, o.reason);
  NodeReportRead read = read_node_report(o.raw);
  if (!read.facts)
    return unanswered(o, NodeOutcome::How::NotAReport,
                      (source.empty() ? "" : source + ": ") + "not a valid report: " + read.problem);
  const NodeReportFacts& r = *read.facts;
  ClusterNode n;
  n.host = opt.host_from_report && !r.host.empty() ? r.host : o.host;
  n.exit_code = o.exit_code;
  n.status = r.status;
  add_findings(n, r.findings);
  if (opt.manifest) {
    auto diffs = compare_with_manifest(r.inventory, *opt.manifest);
    add_findings(n, diffs);
    for (const auto& d : diffs) n.status = worse(n.status, d.status);
  }
  std::stable_sort(n.problems.begin(), n.problems.end(), [](const ReportFinding& a, const ReportFinding& b) {
    return severity(a.status) > severity(b.status);
  });
  n.gpus = r.pairs.size();
  // GPUDirect-ready means what node means by it (PairVerdict::ready).
  for (const auto& p : r.pairs) n.gdr_gpus += p.gdr_send == "yes" && p.gdr_recv == "yes" && p.status == Status::Ok;
  n.gdr_ready = n.status == Status::Ok && n.gpus > 0 && n.gdr_gpus == n.gpus;
  n.fingerprint = fingerprint(r);
  return n;
}

// Reports are independent: read them on every core.
std::vector<ClusterNode> understand_all(const std::vector<NodeOutcome>& outcomes, const ClusterOptions& opt) {
  std::vector<ClusterNode> nodes(outcomes.size());
  std::size_t threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, outcomes.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < outcomes.size(); i = next++)
      nodes[i] = understand(outcomes[i], i < opt.sources.size() ? opt.sources[i] : "", opt);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return nodes;
}

std::vector<std::string> checks_seen(const std::vector<ClusterNode>& nodes) {
  std::vector<std::string> out;
  for (const auto& id : known_checks())
    for (const auto& n : nodes)
      if (n.checks.count(id)) {
        out.push_back(id);
        break;
      }
  for (const auto& n : nodes)
    for (const auto& c : n.checks)
      if (std::find(out.begin(), out.end(), c.first) == out.end()) out.push_back(c.first);
  return out;
}

std::vector<ClusterFailure> failures(const std::vector<ClusterNode>& nodes, const std::vector<std::string>& checks) {
  std::vector<ClusterFailure> out;
  std::unordered_map<std::string, std::size_t> index;
  auto add = [&](const std::string& what, Status s, const std::string& host) {
    auto [it, fresh] = index.emplace(what, out.size());
    if (fresh) out.push_back({what, s, {}});
    ClusterFailure& f = out[it->second];
    f.status = worse(f.status, s);
    f.hosts.push_back(host);
  };
  for (const auto& n : nodes) {
    if (!n.has_report()) {
      add(how_name(n.how), Status::Unknown, n.host);
      continue;
    }
    for (const auto& id : checks)
      if (auto it = n.checks.find(id); it != n.checks.end() && it->second != Status::Ok) add(id, it->second, n.host);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ClusterFailure& a, const ClusterFailure& b) { return a.hosts.size() > b.hosts.size(); });
  return out;
}

std::vector<std::string> duplicate_hosts(const std::vector<ClusterNode>& nodes) {
  std::unordered_map<std::string, std::size_t> seen;
  for (const auto& n : nodes) ++seen[n.host];
  std::vector<std::string> notes;
  for (const auto& n : nodes) {
    auto it = seen.find(n.host);
    if (it == seen.end() || it->second < 2) continue;
    notes.push_back(n.host + " appears " + std::to_string(it->second) + " times (each is counted as a node)");
    seen.erase(it);
  }
  return notes;
}

}  // namespace

std::string ClusterNode::main_problem() const {
  if (!has_report()) return reason.empty() ? how_name(how) : reason;
  if (!problems.empty()) return problems.front().check + ": " + problems.front().summary;
  if (status != Status::Ok) return std::string("node status ") + status_name(status);
  return "";
}

ClusterModel build_cluster_model(const std::vector<NodeOutcome>& outcomes, const ClusterOptions& options) {
  ClusterModel m;
  m.nodes = understand_all(outcomes, options);
  m.checks = checks_seen(m.nodes);
  std::vector<std::pair<std::string, const Fingerprint*>> compared;
  m.status = m.nodes.empty() ? Status::Unknown : Status::Ok;
  for (const auto& n : m.nodes) {
    ++m.by_status[n.status];
    m.status = worse(m.status, n.status);
    if (!n.has_report()) continue;
    ++m.reported;
    m.ready += n.gdr_ready;
    compared.emplace_back(n.host, &n.fingerprint);
  }
  m.failures = failures(m.nodes, m.checks);
  m.outliers = find_outliers(compared);
  m.notes = duplicate_hosts(m.nodes);
  if (m.nodes.empty()) m.notes.push_back("no nodes to check");
  return m;
}

}  // namespace gdrcheck

#include "cluster/cluster_model.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "checks/severity.h"
#include "cluster/node_manifest.h"
#include "cluster/node_name.h"

namespace gdrcheck {
namespace {

// The node report's check order; ids it does not know go after, in order seen.
const std::vector<std::string>& known_checks() {
  static const std::vector<std::string> ids = {"gpu",   "nic",  "port", "peermem", "path",    "acs",
                                               "iommu", "link", "nccl", "driver",  "manifest"};
  return ids;
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

// At most `size` bytes, backing off to the start of a UTF-8 character.
std::string cut(const std::string& text, std::size_t size) {
  if (text.size() <= size) return text;
  while (size > 0 && (static_cast<unsigned char>(text[size]) & 0xC0) == 0x80) --size;
  return text.substr(0, size) + "...";
}

// What the model keeps of a finding: its texts bounded, so every node's
// share of memory stays small whatever its report held.
ReportFinding kept(const ReportFinding& f) {
  return {f.check, cut(f.subject, kMaxFindingTextBytes), cut(f.summary, kMaxFindingTextBytes),
          cut(f.fix, kMaxFindingTextBytes), f.status};
}

void add_findings(ClusterNode& n, const std::vector<ReportFinding>& findings) {
  for (const auto& f : findings) {
    auto [it, fresh] = n.checks.emplace(f.check, f.status);
    if (!fresh) it->second = worse(it->second, f.status);
    if (f.status != Status::Ok && n.problems.size() < kMaxFindingsPerReport) n.problems.push_back(kept(f));
  }
}

// A check id is a column of the cluster table: a short word.
bool check_id(const std::string& id) {
  return !id.empty() && id.size() <= kMaxCheckIdBytes && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

// "" when the report stays within what one report may bring; else why not.
std::string over_caps(const NodeReportFacts& r) {
  if (r.findings.size() > kMaxFindingsPerReport)
    return std::to_string(r.findings.size()) + " findings, more than a node report holds (" +
           std::to_string(kMaxFindingsPerReport) + ")";
  std::unordered_set<std::string_view> ids;
  for (const auto& f : r.findings) {
    if (!check_id(f.check))
      return "\"" + visible_name(f.check) + "\" is not a check id (at most " + std::to_string(kMaxCheckIdBytes) +
             " letters, digits, '_', '-', '.')";
    if (ids.insert(f.check).second && ids.size() > kMaxChecksPerReport)
      return "more than " + std::to_string(kMaxChecksPerReport) + " different checks";
  }
  return "";
}

// One outcome to one node: what the launcher said, or what the report says.
ClusterNode understand(const NodeOutcome& o, const std::string& source, const ClusterOptions& opt) {
  if (o.how != NodeOutcome::How::Report) return unanswered(o, o.how, o.reason);
  std::string where = source.empty() ? "" : source + ": ";
  NodeReportRead read = read_node_report(o.raw);
  if (!read.facts) {
    // A launcher's caveat (pdsh died before its word on the host) explains
    // why the output may be cut.
    std::string caveat = o.reason.empty() ? "" : " (" + o.reason + ")";
    return unanswered(o, NodeOutcome::How::NotAReport, where + "not a valid report: " + read.problem + caveat);
  }
  const NodeReportFacts& r = *read.facts;
  // The report's "host" is a claim. A file under --from that names another
  // node (copied, misnamed, planted) cannot be told apart from a planted
  // one: it is not judged as this node. A launcher's output came over the
  // connection to the addressed node (by IP or alias, often): judged, but
  // not drained (ClusterNode::claimed_host).
  bool from_file = !source.empty();
  if (from_file && !same_host(r.host, o.host))
    return unanswered(
        o, NodeOutcome::How::WrongHost,
        where + "report claims host '" + visible_name(r.host) + "', was asked of '" + visible_name(o.host) + "'");
  if (std::string why = over_caps(r); !why.empty())
    return unanswered(o, NodeOutcome::How::NotAReport, where + "not a valid report: " + why);
  ClusterNode n;
  n.host = o.host;
  if (!same_host(r.host, o.host)) n.claimed_host = r.host;
  n.exit_code = o.exit_code;
  n.generated_at = r.generated_at;
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

// The table's columns: the known checks any node has, in the node report's
// order, then other ids in the order seen, at most kMaxCheckColumns. One
// pass over every node's checks.
std::vector<std::string> checks_seen(const std::vector<ClusterNode>& nodes) {
  std::unordered_set<std::string> seen;
  for (const auto& n : nodes)
    for (const auto& c : n.checks) seen.insert(c.first);
  std::vector<std::string> out;
  std::unordered_set<std::string> known(known_checks().begin(), known_checks().end());
  for (const auto& id : known_checks())
    if (seen.count(id)) out.push_back(id);
  std::unordered_set<std::string> added;
  for (const auto& n : nodes)
    for (const auto& c : n.checks) {
      if (out.size() >= kMaxCheckColumns) return out;
      if (!known.count(c.first) && added.insert(c.first).second) out.push_back(c.first);
    }
  return out;
}

// Each node's failing checks in column order (ids past the columns after
// them, by name): sorting each node's few checks keeps this linear in the
// findings, whatever the number of distinct ids in the cluster.
std::vector<std::pair<const std::string*, Status>> failing_checks(
    const ClusterNode& n, const std::unordered_map<std::string, std::size_t>& column) {
  std::vector<std::pair<std::size_t, std::pair<const std::string*, Status>>> ranked;
  for (const auto& [id, status] : n.checks) {
    if (status == Status::Ok) continue;
    auto it = column.find(id);
    ranked.push_back({it == column.end() ? std::numeric_limits<std::size_t>::max() : it->second, {&id, status}});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<const std::string*, Status>> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

std::vector<ClusterFailure> failures(const std::vector<ClusterNode>& nodes, const std::vector<std::string>& checks) {
  std::vector<ClusterFailure> out;
  std::unordered_map<std::string, std::size_t> index, column;
  for (std::size_t i = 0; i < checks.size(); ++i) column.emplace(checks[i], i);
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
    for (const auto& [id, status] : failing_checks(n, column)) add(*id, status, n.host);
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

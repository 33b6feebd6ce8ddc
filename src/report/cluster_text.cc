#include "report/cluster_text.h"

#include <algorithm>
#include <sstream>

#include "cluster/drain.h"
#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kHostsListed = 8;

const char* cell(Status s) {
  switch (s) {
    case Status::Ok:
      return "OK";
    case Status::Warning:
      return "WARN";
    case Status::Critical:
      return "CRIT";
    case Status::Unknown:
      return "UNKN";
  }
  return "?";
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size() + 1, ' ');
}

bool all_ok(const ClusterNode& n) {
  return n.has_report() && n.status == Status::Ok;
}

std::string host_list(const std::vector<std::string>& hosts) {
  std::string out;
  for (std::size_t i = 0; i < hosts.size() && i < kHostsListed; ++i) out += (i ? ", " : "") + safe_line(hosts[i]);
  if (hosts.size() > kHostsListed) out += ", +" + std::to_string(hosts.size() - kHostsListed) + " more";
  return out;
}

void node_table(std::ostringstream& out, const ClusterModel& m, bool verbose) {
  std::size_t host_w = 4;
  for (const auto& n : m.nodes)
    if (verbose || !all_ok(n)) host_w = std::max(host_w, safe_line(n.host).size());
  out << padded("NODE", host_w) << padded("STATUS", 8) << "GDR  ";
  for (const auto& c : m.checks) out << padded(safe_line(c), std::max<std::size_t>(safe_line(c).size(), 4));
  out << "MAIN PROBLEM\n";
  std::size_t hidden = 0;
  for (const auto& n : m.nodes) {
    if (!verbose && all_ok(n)) {
      ++hidden;
      continue;
    }
    out << padded(safe_line(n.host), host_w) << padded(status_name(n.status), 8);
    if (!n.has_report()) {
      // A refused report's reason already says "not a valid report: ...".
      bool says_how = n.how == NodeOutcome::How::NotAReport && !n.reason.empty();
      out << padded("-", 4) << (says_how ? "" : std::string(how_name(n.how)) + ": ") << safe_line(n.reason) << "\n";
      continue;
    }
    out << padded(std::to_string(n.gdr_gpus) + "/" + std::to_string(n.gpus), 4);
    for (const auto& c : m.checks) {
      auto it = n.checks.find(c);
      out << padded(it == n.checks.end() ? "-" : cell(it->second), std::max<std::size_t>(safe_line(c).size(), 4));
    }
    out << safe_line(n.main_problem()) << "\n";
  }
  if (hidden) out << "(" << hidden << " node" << (hidden == 1 ? "" : "s") << " OK in every check; -v lists them)\n";
}

void failures(std::ostringstream& out, const ClusterModel& m) {
  if (m.failures.empty()) return;
  out << "\nFailures:\n";
  std::size_t w = 4;
  for (const auto& f : m.failures) w = std::max(w, safe_line(f.what).size());
  for (const auto& f : m.failures)
    out << "  " << padded(safe_line(f.what), w) << padded(status_name(f.status), 8) << f.hosts.size() << " node"
        << (f.hosts.size() == 1 ? "" : "s") << ": " << host_list(f.hosts) << "\n";
}

void outliers(std::ostringstream& out, const ClusterModel& m) {
  const OutlierAnalysis& a = m.outliers;
  if (!a.outliers.empty()) {
    out << "\nOutliers (differ from the majority):\n";
    for (const auto& o : a.outliers) out << "  " << safe_line(o.describe()) << "\n";
  }
  if (!a.splits.empty()) {
    out << "\nNo majority:\n";
    for (const auto& s : a.splits) {
      out << "  " << safe_line(s.aspect) << ":";
      for (std::size_t i = 0; i < s.values.size() && i < kHostsListed; ++i)
        out << (i ? "; " : " ") << safe_line(s.values[i].first) << " on " << s.values[i].second;
      if (s.values.size() > kHostsListed) out << "; +" << s.values.size() - kHostsListed << " more values";
      out << " (of " << s.compared_nodes << " nodes)\n";
    }
  }
}

void drain(std::ostringstream& out, const ClusterTextOptions& o) {
  if (o.drain.empty()) return;
  out << (o.drained ? "\nDrained (Slurm):\n" : "\nTo drain the CRITICAL nodes in Slurm (or run with --drain):\n");
  // A line that had to be escaped is not the command that runs: it is shown
  // so a person sees the odd name, not pasted blindly.
  for (const auto& argv : o.drain) out << "  " << safe_line(shell_line(argv)) << "\n";
}

}  // namespace

std::string cluster_summary_line(const ClusterModel& m, Status verdict) {
  std::ostringstream out;
  out << status_name(verdict) << ": " << m.nodes.size() << " node" << (m.nodes.size() == 1 ? "" : "s") << ", "
      << m.ready << " GPUDirect-ready";
  std::string parts;
  for (Status s : {Status::Critical, Status::Warning, Status::Unknown})
    if (auto it = m.by_status.find(s); it != m.by_status.end() && it->second)
      parts += (parts.empty() ? "" : ", ") + std::to_string(it->second) + " " + status_name(s);
  if (!parts.empty()) out << "; " << parts;
  if (!m.outliers.outliers.empty()) out << "; " << m.outliers.outliers.size() << " outlier differences";
  return out.str();
}

std::string render_cluster_text(const ClusterModel& m, const ClusterTextOptions& o) {
  std::ostringstream out;
  if (!m.nodes.empty()) node_table(out, m, o.verbose);
  failures(out, m);
  outliers(out, m);
  drain(out, o);
  for (const auto& n : m.notes) out << "note: " << safe_line(n) << "\n";
  out << "\n" << cluster_summary_line(m, o.verdict) << "\n";
  return terminal_guard(out.str(), false);
}

}  // namespace gdrcheck

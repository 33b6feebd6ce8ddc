#include "report/cluster_text.h"

#include <algorithm>
#include <sstream>

#include <map>
#include <optional>

#include "cluster/drain.h"
#include "cluster/hostlist.h"
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

// Folded ("gpu[001-064],login1"), at most kHostsListed items.
std::string host_list(const std::vector<std::string>& hosts) {
  std::vector<std::string> items = fold_hostlist_items(hosts);
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kHostsListed; ++i) out += (i ? "," : "") + safe_line(items[i]);
  if (items.size() > kHostsListed) out += " +" + std::to_string(items.size() - kHostsListed) + " more";
  return out;
}

std::string age(const ClusterNode& n, const ClusterTextOptions& o) {
  return n.has_report() ? age_cell(n.generated_at, o.slurm.now) : "-";
}

void node_table(std::ostringstream& out, const ClusterModel& m, const ClusterTextOptions& o) {
  bool verbose = o.verbose;
  std::size_t host_w = 4, age_w = 3;
  for (const auto& n : m.nodes)
    if (verbose || !all_ok(n)) {
      host_w = std::max(host_w, safe_line(n.host).size());
      age_w = std::max(age_w, age(n, o).size());
    }
  out << padded("NODE", host_w) << padded("STATUS", 8) << padded("AGE", age_w) << "GDR  ";
  for (const auto& c : m.checks) out << padded(safe_line(c), std::max<std::size_t>(safe_line(c).size(), 4));
  out << "MAIN PROBLEM\n";
  std::size_t hidden = 0;
  for (const auto& n : m.nodes) {
    if (!verbose && all_ok(n)) {
      ++hidden;
      continue;
    }
    out << padded(safe_line(n.host), host_w) << padded(status_name(n.status), 8) << padded(age(n, o), age_w);
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

void failures_section(std::ostringstream& out, const ClusterModel& m) {
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

// "gpu06" -> " (report 2 min old)", from the node's report.
std::string age_note(const std::string& host, const std::map<std::string, std::optional<UnixSeconds>>& made,
                     UnixSeconds now) {
  auto it = made.find(host);
  if (it == made.end() || !it->second) return "";
  return " (report " + age_cell(it->second, now) + " old)";
}

// The commands, one a line, with the age of the report each rests on. A
// line that had to be escaped is not the command that runs: it is shown
// so a person sees the odd name, not pasted blindly.
void commands(std::ostringstream& out, const std::vector<Argv>& argvs, const ClusterModel& m, UnixSeconds now) {
  std::map<std::string, std::optional<UnixSeconds>> made;
  for (const auto& n : m.nodes) made.emplace(n.host, n.generated_at);
  for (const auto& argv : argvs) {
    std::string host = argv.size() > 2 && argv[2].rfind("NodeName=", 0) == 0 ? argv[2].substr(9) : "";
    out << "  " << safe_line(shell_line(argv)) << safe_line(age_note(host, made, now)) << "\n";
  }
}

// Nodes left alone, grouped by reason and age: "gpu[01-64] (8 d): report is
// 8 d old (max-age 1h)".
void left_alone(std::ostringstream& out, const std::string& title, const std::vector<NotDrained>& nodes,
                UnixSeconds now) {
  if (nodes.empty()) return;
  out << title;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& n : nodes) {
    std::string age = n.generated_at ? " (" + age_cell(n.generated_at, now) + ")" : "";
    std::string key = age + ": " + n.why;
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].second.push_back(n.host);
  }
  for (const auto& [key, hosts] : groups) out << "  " << host_list(hosts) << safe_line(key) << "\n";
}

std::string drain_title(const ClusterTextOptions& o) {
  if (!o.slurm.limit_refusal.empty())
    return o.slurm.drain_requested
               ? "\nNot drained: " + o.slurm.limit_refusal + ". The commands were:\n"
               : "\nTo drain the CRITICAL nodes in Slurm (--drain would refuse: " + o.slurm.limit_refusal + "):\n";
  if (o.slurm.dry_run && o.slurm.drain_requested) return "\nWould drain (Slurm; --dry-run, nothing run):\n";
  return o.drained ? "\nDrained (Slurm):\n" : "\nTo drain the CRITICAL nodes in Slurm (or run with --drain):\n";
}

void drain(std::ostringstream& out, const ClusterModel& m, const ClusterTextOptions& o) {
  if (!o.drain.empty()) {
    out << drain_title(o);
    commands(out, o.drain, m, o.slurm.now);
  }
  left_alone(out, "\nCRITICAL, not drained:\n", o.slurm.not_drained, o.slurm.now);
}

void resume(std::ostringstream& out, const ClusterModel& m, const ClusterTextOptions& o) {
  const SlurmActions& s = o.slurm;
  if (!s.resume_requested) return;
  if (s.resume.empty() && s.not_resumed.empty() && s.resume_notes.empty()) {
    out << "\nNothing to resume: no node that passes is drained by gdrcheck in Slurm\n";
    return;
  }
  if (!s.resume.empty()) {
    out << (s.dry_run   ? "\nWould resume (Slurm; --dry-run, nothing run):\n"
            : s.resumed ? "\nResumed (Slurm):\n"
                        : "\nResume (Slurm; not all succeeded, see above):\n");
    commands(out, s.resume, m, s.now);
  }
  left_alone(out, "\nOK, drained by gdrcheck, not resumed:\n", s.not_resumed, s.now);
  for (const auto& note : s.resume_notes) out << "note: " << safe_line(note) << "\n";
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
  if (!m.nodes.empty()) node_table(out, m, o);
  failures_section(out, m);
  outliers(out, m);
  drain(out, m, o);
  resume(out, m, o);
  for (const auto& n : m.notes) out << "note: " << safe_line(n) << "\n";
  out << "\n" << cluster_summary_line(m, o.verdict) << "\n";
  return terminal_guard(out.str(), false);
}

}  // namespace gdrcheck

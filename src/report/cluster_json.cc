#include "report/cluster_json.h"

#include <cctype>
#include <chrono>

#include "cluster/cluster_verdict.h"
#include "report/report_meta.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

json time_json(const std::optional<UnixSeconds>& t) {
  return t ? json(format_utc_time(*t)) : json(nullptr);
}

// Seconds from the report's generated_at to the run (negative: from the
// future), or null without one.
json age_json(const std::optional<UnixSeconds>& t, UnixSeconds now) {
  return t ? json(now - *t) : json(nullptr);
}

json cluster_node_json(const ClusterNode& n, UnixSeconds now) {
  json checks = json::object();
  for (const auto& [id, s] : n.checks) checks[id] = status_name(s);
  json problems = json::array();
  for (const auto& f : n.problems)
    problems.push_back({{"check", f.check},
                        {"subject", f.subject},
                        {"status", status_name(f.status)},
                        {"summary", f.summary},
                        {"fix", f.fix.empty() ? json(nullptr) : json(f.fix)}});
  json fp = json::object();
  for (const auto& [aspect, value] : n.fingerprint) fp[aspect_key(aspect)] = value;
  return {{"host", n.host},
          {"status", status_name(n.status)},
          {"outcome", how_name(n.how)},
          {"reason", n.reason.empty() ? json(nullptr) : json(n.reason)},
          {"exit_code", n.exit_code >= 0 ? json(n.exit_code) : json(nullptr)},
          {"generated_at", time_json(n.generated_at)},
          {"age_s", age_json(n.generated_at, now)},
          {"gpus", n.gpus},
          {"gdr_gpus", n.gdr_gpus},
          {"gdr_ready", n.gdr_ready},
          {"checks", checks},
          {"problems", problems},
          {"fingerprint", n.has_report() ? fp : json(nullptr)}};
}

json outliers_json(const OutlierAnalysis& a) {
  json out = json::array();
  for (const auto& o : a.outliers)
    out.push_back({{"host", o.host},
                   {"aspect", aspect_key(o.aspect)},
                   {"value", o.value},
                   {"majority", o.majority},
                   {"majority_nodes", o.majority_nodes},
                   {"compared_nodes", o.compared_nodes},
                   {"message", o.describe()}});
  return out;
}

json splits_json(const OutlierAnalysis& a) {
  json out = json::array();
  for (const auto& s : a.splits) {
    json values = json::array();
    for (const auto& [value, count] : s.values) values.push_back({{"value", value}, {"nodes", count}});
    out.push_back({{"aspect", aspect_key(s.aspect)}, {"values", values}, {"compared_nodes", s.compared_nodes}});
  }
  return out;
}

json summary_json(const ClusterModel& m) {
  json by_status = json::object();
  for (Status s : {Status::Ok, Status::Warning, Status::Critical, Status::Unknown})
    by_status[status_name(s)] = m.by_status.count(s) ? m.by_status.at(s) : 0;
  json failures = json::array();
  for (const auto& f : m.failures)
    failures.push_back(
        {{"what", f.what}, {"status", status_name(f.status)}, {"nodes", f.hosts.size()}, {"hosts", f.hosts}});
  return {{"nodes", m.nodes.size()},   {"reported", m.reported}, {"gdr_ready", m.ready},
          {"failed", failed_nodes(m)}, {"by_status", by_status}, {"failures", failures}};
}

json left_alone_json(const std::vector<NotDrained>& nodes, UnixSeconds now) {
  json out = json::array();
  for (const auto& n : nodes)
    out.push_back({{"host", n.host},
                   {"reason", n.why},
                   {"generated_at", time_json(n.generated_at)},
                   {"age_s", age_json(n.generated_at, now)}});
  return out;
}

json drain_json(const ClusterJsonContext& c) {
  const SlurmActions& s = c.slurm;
  return {{"commands", c.drain},
          {"ran", c.drained},
          {"dry_run", s.dry_run && s.drain_requested},
          {"max_drain", s.max_drain},
          {"max_drain_nodes", s.max_drain_nodes},
          {"refused", s.limit_refusal.empty() ? json(nullptr) : json(s.limit_refusal)},
          {"max_age", s.max_age},
          {"max_age_s", s.max_age_s},
          {"not_drained", left_alone_json(s.not_drained, s.now)}};
}

// null unless --resume was given.
json resume_json(const SlurmActions& s) {
  if (!s.resume_requested) return nullptr;
  return {{"commands", s.resume},
          {"ran", s.resumed},
          {"dry_run", s.dry_run},
          {"not_resumed", left_alone_json(s.not_resumed, s.now)},
          {"notes", s.resume_notes}};
}

}  // namespace

std::string aspect_key(const std::string& aspect) {
  std::string key;
  for (char c : aspect) key += c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

json cluster_json(const ClusterModel& m, const ClusterJsonContext& c) {
  json nodes = json::array();
  for (const auto& n : m.nodes) nodes.push_back(cluster_node_json(n, c.slurm.now));
  json doc = {{"schema", "gdrcheck.cluster/1"},
              {"status", status_name(c.verdict)},
              {"worst_node_status", status_name(m.status)},
              {"threshold", c.threshold ? json(*c.threshold) : json(nullptr)},
              {"checked_at", format_utc_time(c.slurm.now)},
              {"summary", summary_json(m)},
              {"checks", m.checks},
              {"nodes", nodes},
              {"outliers", outliers_json(m.outliers)},
              {"splits", splits_json(m.outliers)},
              {"drain", drain_json(c)},
              {"resume", resume_json(c.slurm)},
              {"notes", m.notes}};
  // About many nodes: no host; the rules are the range this build models.
  add_report_meta(doc, report_meta(std::chrono::system_clock::time_point(std::chrono::seconds(c.slurm.now)),
                                   modelled_nccl_rules(), std::nullopt));
  return doc;
}

}  // namespace gdrcheck

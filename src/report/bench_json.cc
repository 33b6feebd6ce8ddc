#include "report/bench_json.h"

#include "report/bandwidth_json.h"
#include "report/report_meta.h"

namespace gdrcheck {
namespace {

using json = nlohmann::json;

json bench_findings_json(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings)
    out.push_back({{"check", f.check},
                   {"subject", f.subject},
                   {"status", status_name(f.status)},
                   {"summary", f.summary},
                   {"evidence", f.evidence},
                   {"fix", f.fix.empty() ? json(nullptr) : json(f.fix)}});
  return out;
}

json stats_json(const std::optional<RepeatStats>& s) {
  if (!s) return nullptr;
  return {{"count", s->count}, {"median", s->median}, {"min", s->min}, {"max", s->max}, {"spread", s->spread}};
}

json env_json(const std::vector<std::pair<std::string, std::string>>& env) {
  json out = json::object();
  for (const auto& kv : env) out[kv.first] = kv.second;
  return out;
}

json run_json(const NcclRunResult& r) {
  json nodes = json::array();
  for (const auto& n : r.nodes)
    nodes.push_back({{"host", n.host},
                     {"connections", n.connections},
                     {"gdr_connections", n.gdr},
                     {"send", n.send},
                     {"send_gdr", n.send_gdr},
                     {"receive", n.recv},
                     {"receive_gdr", n.recv_gdr},
                     {"net_devices", n.net_devices}});
  json table = json::array();
  for (const auto& p : r.table)
    table.push_back({{"size_bytes", p.size},
                     {"algbw_gbytes", p.algbw},
                     {"busbw_gbytes", p.busbw},
                     {"in_place_busbw_gbytes", p.in_place_busbw ? json(*p.in_place_busbw) : json(nullptr)}});
  json reasons = json::array();
  for (const auto& why : r.reasons)
    reasons.push_back({{"code", why.code}, {"message", why.message}, {"lines", why.lines}, {"count", why.count}});
  return {{"label", r.label},
          {"gdr_off", r.gdr_off},
          {"argv", r.argv},
          {"env", env_json(r.env)},
          {"env_unset", r.env_unset},
          {"raw_output", r.raw_output.empty() ? json(nullptr) : json(r.raw_output)},
          {"end", r.end},
          {"seconds", r.seconds},
          {"could_not_run", r.could_not_run.empty() ? json(nullptr) : json(r.could_not_run)},
          {"gdr", gdr_verdict_name(r.gdr)},
          {"gdr_why", r.gdr_why},
          {"nccl_version", r.nccl_version},
          {"net_transport", r.net_transport},
          {"net_devices", r.net_devices},
          {"connections", r.connections},
          {"gdr_connections", r.gdr_connections},
          {"nodes", nodes},
          {"reasons", reasons},
          {"hosts", r.hosts},
          {"table", table},
          {"large_message",
           r.large ? json{{"size_bytes", r.large->size}, {"busbw_gbytes", r.large->busbw}} : json(nullptr)},
          {"wrong_results", r.wrong_results},
          {"test_errors", r.test_errors}};
}

json measurement_json(const RdmaMeasurement& m) {
  return {{"label", m.label},
          {"memory", m.memory == RdmaMemory::Gpu ? "gpu" : "host"},
          {"server_argv", m.server_argv},
          {"client_argv", m.client_argv},
          {"raw_output", m.raw_output},
          {"could_not_run", m.could_not_run.empty() ? json(nullptr) : json(m.could_not_run)},
          {"gbits", m.gbits},
          {"stats_gbits", stats_json(m.stats)},
          {"errors", m.errors},
          {"gpu_buffer_confirmed", m.gpu_buffer_confirmed}};
}

}  // namespace

json nccl_bench_json(const NcclBenchReport& r, std::chrono::system_clock::time_point now) {
  json on = json::array(), off = json::array();
  for (const auto& run : r.gdr_on) on.push_back(run_json(run));
  for (const auto& run : r.gdr_off) off.push_back(run_json(run));
  json j = {{"schema", "gdrcheck.bench/1"},
            {"kind", "nccl"},
            {"test", r.test},
            {"binary", r.binary},
            {"launcher", bench_launcher_name(r.launcher)},
            {"hosts", r.hosts},
            {"nodes", r.nodes},
            {"ranks_per_node", r.ranks_per_node},
            {"env_notes", r.env_notes},
            {"ab", r.ab},
            {"runs", {{"gdr_on", on}, {"gdr_off", off}}},
            {"busbw_gbytes", {{"gdr_on", stats_json(r.busbw_on)}, {"gdr_off", stats_json(r.busbw_off)}}},
            {"gain", r.gain ? json(*r.gain) : json(nullptr)},
            {"nic_source", r.nic_source},
            {"nic_notes", r.nic_notes},
            {"expectation", expectation_json(r.expectation)},
            {"units", r.units},
            {"findings", bench_findings_json(r.findings)},
            {"status", status_name(r.status)}};
  std::optional<std::string> host;
  if (r.hosts.size() == 1) host = r.hosts.front();
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), host));
  return j;
}

json rdma_bench_json(const RdmaBenchReport& r, std::chrono::system_clock::time_point now) {
  json pairs = json::array();
  for (const auto& p : r.pairs)
    pairs.push_back({{"node", p.node},
                     {"gpu", p.pair.gpu},
                     {"gpu_bus_id", p.pair.gpu_bus_id},
                     {"nic", p.pair.nic},
                     {"port", p.pair.port},
                     {"port_rate_gbits", p.pair.port_rate_gbps},
                     {"link_layer", link_layer_name(p.pair.link_layer)},
                     {"dmabuf", p.pair.dmabuf_only},
                     {"nccl_path", p.pair.nccl_path},
                     {"gpu_memory", measurement_json(p.gpu)},
                     {"host_memory_gbits", p.host_gbits ? json(*p.host_gbits) : json(nullptr)},
                     {"pass_gbits", p.expectation.known ? json(p.expectation.pass_gbits) : json(nullptr)},
                     {"ratio", p.judgement && p.judgement->ratio > 0 ? json(p.judgement->ratio) : json(nullptr)},
                     {"status", p.judgement ? status_name(p.judgement->status) : "UNKNOWN"}});
  json host = json::array();
  for (const auto& h : r.host_runs) host.push_back(measurement_json(h));
  json j = {{"schema", "gdrcheck.bench/1"},
            {"kind", "rdma"},
            {"node", r.node},
            {"launcher", bench_launcher_name(r.launcher)},
            {"hosts", r.hosts},
            {"notes", r.notes},
            {"pairs", pairs},
            {"host_memory", host},
            {"units", r.units},
            {"findings", bench_findings_json(r.findings)},
            {"status", status_name(r.status)}};
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), r.node.empty() ? std::nullopt : std::optional(r.node)));
  return j;
}

}  // namespace gdrcheck

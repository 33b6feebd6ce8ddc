#include "report/analyze_json.h"

#include <utility>

#include "report/bandwidth_json.h"
#include "report/crosscheck_json.h"
#include "report/report_meta.h"
#include "report/topo_json.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// json::update copies every value, and a log's document can hold 65,536
// connections: the parts are moved in instead.
void move_items_into(json& j, json&& from) {
  for (auto& item : from.items()) j[item.key()] = std::move(item.value());
}

json nccl_log_json(const NcclLogReport& r, bool detail) {
  json reasons = json::array();
  for (const auto& x : r.reasons)
    reasons.push_back({{"code", x.code}, {"message", x.message}, {"lines", x.lines}, {"count", x.count}});
  json j = {{"nccl_version", r.nccl_version.empty() ? json(nullptr) : json(r.nccl_version)},
            {"versions", r.versions},
            {"rccl", r.rccl},
            {"ranks", r.ranks},
            {"hosts", r.hosts},
            {"net_transport", r.net_transport.empty() ? json(nullptr) : json(r.net_transport)},
            {"net_devices", r.net_devices},
            {"net_modules", r.net_modules},
            {"net_connections", r.net_connections},
            {"gdr_connections", r.gdr_connections},
            {"gdr", gdr_verdict_name(r.verdict)},
            {"gdr_why", r.verdict_why},
            {"reasons", reasons},
            {"lines", r.lines}};
  json env = json::object();
  for (const auto& e : r.env) env[e.name] = e.value;
  j["env"] = std::move(env);
  json speeds = json::array();
  for (const auto& d : r.net_device_speeds)
    speeds.push_back({{"name", d.name},
                      {"port", opt(d.port)},
                      {"speed_gbps", d.speed_mbps / 1000.0},
                      {"link_layer", d.link_layer.empty() ? json(nullptr) : json(d.link_layer)},
                      {"host", d.host.empty() ? json(nullptr) : json(d.host)},
                      {"line", d.line}});
  j["net_device_speeds"] = std::move(speeds);
  if (detail) {
    json conns = json::array();
    for (const auto& c : r.connections)
      conns.push_back({{"channel", c.channel},
                       {"conn_index", c.conn_index},
                       {"from", c.from_rank},
                       {"to", c.to_rank},
                       {"side", net_side_name(c.side)},
                       {"net", c.net},
                       {"dev", c.dev},
                       {"proxy", opt(c.proxy_rank)},
                       {"gdr", c.gdr},
                       {"pci", c.pci},
                       {"shared", c.shared},
                       {"host", c.host},
                       {"line", c.line}});
    j["connections"] = std::move(conns);
  }
  return j;
}

json result_json(const std::optional<NcclTestsResult>& r) {
  if (!r) return nullptr;
  return {{"time_us", r->time_us}, {"algbw", r->algbw}, {"busbw", r->busbw}, {"wrong", opt(r->wrong)}};
}

json busbw_vs_nics_json(const BusbwVsNics& c) {
  const BandwidthScenario& s = c.scenario;
  json nics = json::array();
  for (const auto& n : s.nics_per_node)
    nics.push_back({{"name", n.name}, {"rate_gbps", n.rate_gbps}, {"link_layer", link_layer_name(n.link_layer)}});
  return {{"measured_busbw_gbytes", opt(c.measured_busbw)},
          {"measured_size", opt(c.measured_size)},
          {"nodes", s.nodes},
          {"gpus_per_node", s.gpus_per_node},
          {"nics_per_node", nics},
          {"nics_driven_per_node", opt(s.nics_driven_per_node)},
          {"expectation", expectation_json(c.expectation)},
          {"judgement", judgement_json(c.judgement)}};
}

json nccl_tests_json(const NcclTestsReport& t, const std::vector<BusbwVsNics>& vs_nics) {
  json runs = json::array();
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    const NcclTestsRun& run = t.runs[i];
    json rows = json::array();
    for (const auto& row : run.rows) {
      rows.push_back({{"size", row.size},
                      {"count", row.count},
                      {"type", row.type},
                      {"redop", row.redop},
                      {"root", opt(row.root)},
                      {"out_of_place", result_json(row.out_of_place)},
                      {"in_place", result_json(row.in_place)}});
    }
    runs.push_back({{"test", run.test_name.empty() ? json(nullptr) : json(run.test_name)},
                    {"rows", rows},
                    {"avg_busbw", opt(run.avg_busbw)},
                    {"max_busbw", {{"value", opt(run.max_busbw)}, {"size", opt(run.max_busbw_size)}}},
                    // Rows with wrong elements, counted by the reader over every row (also past
                    // the kept ones); an old float "error" column's rounding is not counted.
                    {"wrong", run.rows_with_wrong > 0},
                    {"wrong_column", run.wrong_column.empty() ? json(nullptr) : json(run.wrong_column)},
                    {"rank_list_cut", run.rank_list_cut},
                    {"notes", run.notes},
                    {"failed", run.failed},
                    {"complete", run.complete},
                    {"ranks", run.ranks.size()},
                    {"hosts", run.hosts},
                    {"errors", run.errors},
                    {"busbw_vs_nics", i < vs_nics.size() ? busbw_vs_nics_json(vs_nics[i]) : json(nullptr)}});
  }
  json j = {{"runs", runs}};
  // The first run's fields at the top, for the common one-run file.
  if (!runs.empty())
    for (const char* k : {"test", "rows", "avg_busbw", "max_busbw", "wrong", "busbw_vs_nics"}) j[k] = runs[0][k];
  return j;
}

json ibv_json(const IbvReport& r) {
  json devices = json::array();
  for (const auto& d : r.devices) {
    json ports = json::array();
    for (const auto& p : d.ports)
      ports.push_back({{"port", p.port},
                       {"state", p.state},
                       {"physical_state", p.physical_state},
                       {"rate_gbps", opt(p.rate_gbps)},
                       {"link_layer", p.link_layer}});
    devices.push_back({{"name", d.name}, {"fw", d.fw}, {"ports", ports}});
  }
  return {{"devices", devices}, {"notes", r.notes}};
}

json gdscheck_json(const GdscheckReport& g) {
  return {{"gds_version", g.gds_version},
          {"nvidia_fs_version", g.nvidia_fs_version},
          {"supported", g.supported},
          {"compat_only", g.compat_only},
          {"unsupported", g.unsupported},
          {"peerdirect", opt(g.peerdirect)},
          {"compat_mode", opt(g.compat_mode)},
          {"iommu", g.iommu.empty() ? json(nullptr) : json(g.iommu)},
          {"platform_verification", opt(g.platform_verified)},
          {"notes", g.notes}};
}

json gdsio_json(const GdsioReport& g) {
  json runs = json::array();
  for (const auto& r : g.runs)
    runs.push_back({{"line", r.line},
                    {"io_type", r.io_type.empty() ? json(nullptr) : json(r.io_type)},
                    {"xfer_type", r.xfer_type.empty() ? json(nullptr) : json(r.xfer_type)},
                    {"xfer_class", gdsio_xfer_class_name(gdsio_xfer_class(r.xfer_type))},
                    {"xfer_from_command", r.xfer_from_command},
                    {"threads", opt(r.threads)},
                    {"io_depth", opt(r.io_depth)},
                    {"dataset_kib", opt(r.dataset_kib)},
                    {"requested_kib", opt(r.requested_kib)},
                    {"io_size", r.io_size.empty() ? json(nullptr) : json(r.io_size)},
                    {"io_size_kib", opt(r.io_size_kib)},
                    {"throughput_gib_s", opt(r.throughput_gib_s)},
                    {"throughput_unit", r.throughput_unit.empty() ? json(nullptr) : json(r.throughput_unit)},
                    {"avg_latency_us", opt(r.avg_latency_us)},
                    {"ops", opt(r.ops)},
                    {"total_time_s", opt(r.total_time_s)},
                    {"command", r.command.empty() ? json(nullptr) : json(r.command)}});
  json errors = json::array();
  for (const auto& e : g.errors) errors.push_back({{"line", e.line}, {"text", e.text}});
  return {{"runs", runs}, {"errors", errors}, {"commands", g.commands}, {"lines", g.lines}};
}

json cufile_log_json(const CufileLogReport& c) {
  json findings = json::array();
  for (const auto& f : c.findings)
    findings.push_back({{"code", cufile_fact_code(f.fact)},
                        {"message", cufile_fact_meaning(f.fact)},
                        {"count", f.count},
                        {"lines", f.lines},
                        {"quotes", f.quotes}});
  json levels = json::object();
  for (const auto& [level, n] : c.levels) levels[level] = n;
  auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return {{"lines", c.lines},
          {"log_lines", c.log_lines},
          {"levels", levels},
          {"processes", c.processes},
          {"first_time", text_or_null(c.first_time)},
          {"last_time", text_or_null(c.last_time)},
          {"gds_version", text_or_null(c.gds_version)},
          {"nvidia_fs_version", text_or_null(c.nvidia_fs_version)},
          {"libcufile_version", text_or_null(c.libcufile_version)},
          {"findings", findings}};
}

const char* perftest_unit_name(PerftestUnit u) {
  return u == PerftestUnit::Gbits ? "Gb/s" : u == PerftestUnit::MBytes ? "MB/s" : nullptr;
}

json perftest_json(const PerftestPaste& p) {
  json runs = json::array();
  for (const auto& r : p.runs) {
    json rows = json::array();
    for (const auto& row : r.report.rows)
      rows.push_back({{"bytes", row.bytes},
                      {"iterations", row.iterations},
                      {"bw_peak", row.bw_peak},
                      {"bw_average", row.bw_average},
                      {"msg_rate_mpps", opt(row.msg_rate_mpps)}});
    json errors = json::array();
    for (const auto& e : r.errors) errors.push_back({{"line", e.line}, {"text", e.text}});
    const char* unit = perftest_unit_name(r.report.unit);
    auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    runs.push_back({{"first_line", r.first_line},
                    {"status", status_name(r.status)},
                    {"verdict", r.verdict},
                    {"notes", r.notes},
                    {"test", text_or_null(r.report.test)},
                    {"program", text_or_null(r.program)},
                    {"command", r.command.text.empty() ? json(nullptr) : json(r.command.text)},
                    {"latency", r.latency},
                    {"bidirectional", r.report.bidirectional || r.command_bidirectional},
                    {"device", text_or_null(r.report.device)},
                    {"link_type", text_or_null(r.report.link_type)},
                    {"qps", opt(r.report.qps)},
                    {"gpu_buffer", r.report.gpu_buffer},
                    {"gpu_name", text_or_null(r.report.gpu_name)},
                    {"dmabuf", r.report.dmabuf || r.command_dmabuf},
                    {"command_use_cuda", r.command_cuda},
                    {"command_use_rocm", r.command_rocm},
                    {"unit", unit ? json(unit) : json(nullptr)},
                    {"rows", rows},
                    {"average_gbps", opt(r.average_gbits)},
                    {"port_rate_gbps", opt(r.port_rate_gbps)},
                    {"port_rate_source", text_or_null(r.port_rate_source)},
                    {"vs_port", r.vs_port ? judgement_json(*r.vs_port) : json(nullptr)},
                    {"errors", errors}});
  }
  return {{"json_file", p.json},
          {"runs", runs},
          {"nic_model", p.nic_model.empty() ? json(nullptr) : json(p.nic_model)},
          {"nic_model_max_gbps", p.nic_model.empty() ? json(nullptr) : json(p.nic_model_max_gbps)}};
}

json artifact_json(const Artifact& a, bool detail) {
  json j = {{"file", a.file}, {"kind", artifact_kind_name(a.kind)}, {"status", status_name(a.status)}};
  if (!a.error.empty()) {
    j["status"] = "UNKNOWN";
    j["error"] = a.error;
    return j;
  }
  j["verdict"] = a.verdict;
  j["notes"] = a.notes;
  if (a.nccl_log && (a.kind == ArtifactKind::NcclLog || a.nccl_log->records > 0)) {
    json log = nccl_log_json(*a.nccl_log, detail);
    if (a.kind == ArtifactKind::NcclLog)
      move_items_into(j, std::move(log));
    else
      j["nccl_log"] = std::move(log);
  }
  if (a.nccl_tests) move_items_into(j, nccl_tests_json(*a.nccl_tests, a.busbw_vs_nics));
  if (a.ibv) move_items_into(j, ibv_json(*a.ibv));
  if (a.gdscheck) move_items_into(j, gdscheck_json(*a.gdscheck));
  if (a.gdsio) move_items_into(j, gdsio_json(*a.gdsio));
  if (a.cufile_log) move_items_into(j, cufile_log_json(*a.cufile_log));
  if (a.perftest) j["perftest"] = perftest_json(*a.perftest);
  if (a.topology && a.paths) {
    json t = topo_json(*a.topology, *a.paths);
    t.erase("schema");
    // The document's own fields, not the artifact's. (A named json: a range
    // over a temporary's items() would outlive the temporary.)
    const json meta = report_meta({}, "", std::nullopt);
    for (const auto& [key, value] : meta.items()) t.erase(key);
    move_items_into(j, std::move(t));
  }
  return j;
}

}  // namespace

json analyze_json(const std::vector<Artifact>& artifacts, bool detail, std::chrono::system_clock::time_point now,
                  const std::vector<Crosscheck>& crosschecks) {
  json list = json::array();
  for (const auto& a : artifacts) list.push_back(artifact_json(a, detail));
  Status status = worse(overall_status(artifacts), crosscheck_status(crosschecks));
  json j = {{"schema", "gdrcheck.analyze/1"},
            {"status", status_name(status)},
            {"artifacts", std::move(list)},
            {"crosscheck", crosscheck_json(crosschecks)}};
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), std::nullopt));
  return j;
}

}  // namespace gdrcheck

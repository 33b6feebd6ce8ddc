#include "report/node_json.h"

#include "host/sysfs_values.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

json nullable(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

json ports_json(const RdmaDevice* d) {
  json ports = json::array();
  if (!d) return ports;
  for (const auto& p : d->ports) {
    auto rate = parse_ib_rate_gbps(p.rate.value.value_or(""));
    auto state = parse_numbered_state(p.state.value.value_or(""));
    auto phys = parse_numbered_state(p.phys_state.value.value_or(""));
    ports.push_back({{"port", p.number},
                     {"state", state ? json(state->name) : json(nullptr)},
                     {"phys_state", phys ? json(phys->name) : json(nullptr)},
                     {"link_layer", nullable(p.link_layer.value)},
                     {"rate_gbps", rate ? json(*rate) : json(nullptr)}});
  }
  return ports;
}

json gpus_json(const NodeReport& r) {
  json out = json::array();
  for (const Endpoint* g : r.topology.with_role(DeviceRole::Gpu))
    out.push_back({{"id", g->id},
                   {"bdf", g->address ? json(g->address->str()) : json(nullptr)},
                   {"model", g->model},
                   {"numa_node", g->locality.numa >= 0 ? json(g->locality.numa) : json(nullptr)}});
  return out;
}

json nics_json(const NodeReport& r, const HostState& h) {
  json out = json::array();
  for (const Endpoint* n : r.topology.with_role(DeviceRole::Nic)) {
    const RdmaDevice* d = nullptr;
    for (const auto& x : h.rdma)
      if (x.name == n->name) d = &x;
    out.push_back({{"id", n->id},
                   {"name", n->name},
                   {"bdf", n->address ? json(n->address->str()) : json(nullptr)},
                   {"model", n->model},
                   {"rdma_device", n->rdma_device},
                   {"firmware", d ? nullable(d->fw_ver.value) : json(nullptr)},
                   {"numa_node", n->locality.numa >= 0 ? json(n->locality.numa) : json(nullptr)},
                   {"ports", ports_json(d)}});
  }
  return out;
}

json pairs_json(const NodeReport& r) {
  json out = json::array();
  for (const auto& p : r.pairs) {
    const GdrPrediction* pred = nullptr;
    for (const auto& x : r.predictions)
      if (x.gpu == p.gpu) pred = &x;
    out.push_back({{"gpu", p.gpu},
                   {"nic", p.nic.empty() ? json(nullptr) : json(p.nic)},
                   {"nic_name", p.nic_name.empty() ? json(nullptr) : json(p.nic_name)},
                   {"path", p.path.empty() ? json(nullptr) : json(p.path)},
                   {"nccl_path", p.nccl_path},
                   {"gdr_send", tri_name(p.gdr_send)},
                   {"gdr_recv", tri_name(p.gdr_recv)},
                   {"status", status_name(p.status)},
                   {"reasons", p.reasons},
                   {"nccl_rules", pred ? json(pred->rules) : json::array()},
                   {"nccl_level", pred ? json(pred->level) : json(nullptr)}});
  }
  return out;
}

json findings_json(const NodeReport& r) {
  json out = json::array();
  for (const auto& f : r.findings) {
    json j = {{"check", f.check},     {"subject", f.subject},   {"status", status_name(f.status)},
              {"summary", f.summary}, {"evidence", f.evidence}, {"fix", f.fix.empty() ? json(nullptr) : json(f.fix)}};
    if (!f.affects.empty()) j["affects"] = f.affects;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

json node_json(const NodeReport& r, const HostState& h) {
  return {{"schema", "gdrcheck.node/1"},
          {"host", r.host},
          {"root", r.root},
          {"status", status_name(r.status)},
          {"nccl_version", r.nccl_version.str()},
          {"kernel", nullable(h.kernel_release.value)},
          {"gpus", gpus_json(r)},
          {"nics", nics_json(r, h)},
          {"pairs", pairs_json(r)},
          {"findings", findings_json(r)},
          {"notes", r.topology.notes}};
}

}  // namespace gdrcheck

#include "report/topo_json.h"

#include "report/report_meta.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

json optional_address(const Endpoint& e) {
  return e.address ? json(e.address->str()) : json(nullptr);
}

json numa_value(const Endpoint& e) {
  return e.locality.numa >= 0 ? json(e.locality.numa) : json(nullptr);
}

json endpoint_json(const Endpoint& e) {
  json j = {
      {"id", e.id}, {"bdf", optional_address(e)}, {"name", e.name}, {"model", e.model}, {"numa_node", numa_value(e)}};
  if (e.role == DeviceRole::Nic) j["rdma_device"] = e.rdma_device;
  if (e.role == DeviceRole::Extra || e.role == DeviceRole::Nvme) j["role"] = device_role_name(e.role);
  if (!e.attributes.empty()) j["attributes"] = e.attributes;
  return j;
}

json matrix_json(const TopologyPaths& p, bool nccl) {
  json m = json::object();
  for (const auto& a : p.ids) {
    json row = json::object();
    for (const auto& b : p.ids) row[b] = nccl ? p.nccl_at(a, b).code : p.smi_at(a, b).code;
    m[a] = row;
  }
  return m;
}

json reasons_json(const TopologyPaths& p) {
  json m = json::object();
  for (const auto& a : p.ids)
    for (const auto& b : p.ids)
      if (a < b) m[a + "-" + b] = {{"smi", p.smi_at(a, b).why}, {"nccl", p.nccl_at(a, b).why}};
  return m;
}

}  // namespace

json topo_json(const Topology& t, const TopologyPaths& p, std::chrono::system_clock::time_point now,
               const std::optional<std::string>& host) {
  json j;
  j["schema"] = "gdrcheck.topo/1";
  j["source"] = {{"kind", source_kind_name(t.kind)}, {"path", t.source}};
  json gpus = json::array(), nics = json::array(), others = json::array();
  json cpu = json::object(), numa = json::object();
  for (const auto& e : t.endpoints) {
    if (e.role == DeviceRole::NvSwitch) continue;
    json ej = endpoint_json(e);
    if (e.role == DeviceRole::Gpu)
      gpus.push_back(ej);
    else if (e.role == DeviceRole::Nic)
      nics.push_back(ej);
    else
      others.push_back(ej);
    cpu[e.id] = e.locality.cpus.empty() ? json(nullptr) : json(e.locality.cpus);
    numa[e.id] = e.locality.numa >= 0 ? json(std::to_string(e.locality.numa)) : json(nullptr);
  }
  j["gpus"] = gpus;
  j["nics"] = nics;
  j["devices"] = others;
  j["matrix"] = matrix_json(p, false);
  j["nccl_matrix"] = matrix_json(p, true);
  j["reasons"] = reasons_json(p);
  json closest = json::array();
  for (const auto& c : p.closest)
    closest.push_back({{"gpu", c.gpu}, {"nics", c.nics}, {"path", c.smi_code}, {"nccl_path", c.nccl_code}});
  j["closest_nics"] = closest;
  j["cpu_affinity"] = cpu;
  j["numa_affinity"] = numa;
  j["notes"] = t.notes;
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), host));
  return j;
}

}  // namespace gdrcheck

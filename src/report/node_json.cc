#include "report/node_json.h"

#include <set>

#include "checks/manifest.h"
#include "host/driver_info.h"
#include "host/sysfs_values.h"
#include "report/report_meta.h"

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

json endpoint_name(const NodeReport& r, const std::string& id) {
  if (id.empty()) return nullptr;
  const Endpoint* e = r.topology.find(id);
  return e && e->role == DeviceRole::Nic ? json(e->name) : json(id);
}

// NCCL's own decision for the GPU, apart from what the host makes of it.
json nccl_decision_json(const NodeReport& r, const GdrPrediction& p) {
  return {{"version", r.nccl_version.str()},
          {"net", p.net_name.empty() ? json(nullptr) : json(p.net_name)},
          {"send_nic", endpoint_name(r, p.send_nic)},
          {"recv_nic", endpoint_name(r, p.recv_nic)},
          {"pxn_peer", p.pxn_peer.empty() ? json(nullptr) : json(p.pxn_peer)},
          {"path", nccl_path_name(p.path)},
          {"gdr_send", tri_name(p.send)},
          {"gdr_recv", tri_name(p.recv)},
          {"through", p.through.empty() ? json(nullptr) : json(p.through)},
          {"rule", p.decided_by}};
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
                   {"gdr_send", gdr_use_name(p.gdr_send)},
                   {"gdr_recv", gdr_use_name(p.gdr_recv)},
                   {"ready", p.ready()},
                   {"status", status_name(p.status)},
                   {"reasons", p.reasons},
                   {"fail_reasons", p.fail_reasons},
                   {"nccl", pred ? nccl_decision_json(r, *pred) : json(nullptr)},
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

// The facts that make nodes of one cluster comparable (cluster
// fingerprints): driver flavour, peer-memory flavour, NCCL settings, IOMMU.
json driver_json(const HostState& h) {
  auto d = parse_nvidia_version(h.nvidia_version.value.value_or(""));
  if (!d) return nullptr;
  return {{"version", d->version}, {"kernel_module", d->open_module ? "open" : "proprietary"}};
}

bool module_loaded(const HostState& h, const std::string& name) {
  auto it = h.modules.find(name);
  return it != h.modules.end() && it->second.loaded;
}

// "nvidia_peermem", "nv_peer_mem", "... (no memory_peers entry)", "none"; null when
// the capture has no /sys/module to tell from.
json peer_memory_json(const HostState& h) {
  json peers = h.memory_peers_dir ? json(h.memory_peers) : json(nullptr);
  if (!h.module_dir) return {{"flavor", nullptr}, {"memory_peers", peers}};
  bool registered = false;
  for (const auto& p : h.memory_peers) registered |= p.rfind("nv_mem", 0) == 0;
  std::string flavor = module_loaded(h, "nv_peer_mem")      ? "nv_peer_mem"
                       : module_loaded(h, "nvidia_peermem") ? "nvidia_peermem"
                                                            : "none";
  if (flavor != "none" && !registered) flavor += " (no memory_peers entry)";
  return {{"flavor", flavor}, {"memory_peers", peers}};
}

json nccl_settings_json(const HostState& h) {
  json out = json::object();
  for (const auto& [name, s] : h.nccl.values) out[name] = {{"value", s.value}, {"origin", s.origin}};
  return out;
}

// Distinct IOMMU group types of the GPUs and NICs (kernels >= 5.11).
json iommu_json(const HostState& h) {
  std::set<std::string> types;
  for (const auto& [addr, f] : h.functions)
    if (f.iommu_group_type.value) types.insert(*f.iommu_group_type.value);
  return {{"group_types", types}, {"units", h.iommu_class_dir ? json(h.iommu_units.size()) : json(nullptr)}};
}

json inventory_json(const NodeReport& r, const HostState& h) {
  json m = make_manifest(r, h);
  m.erase("schema");
  return m;
}

json nccl_choice_json(const NcclVersionChoice& c) {
  return {{"version", c.found.str()}, {"rules", c.rules.str()}, {"origin", c.origin}, {"approximated", c.approximated}};
}

// Which NCCL the prediction follows, what else is installed, and what NCCL
// builds its topology from.
json nccl_json(const NodeReport& r, const HostState& h) {
  json installed = json::array(), plugins = json::array(), others = json::array();
  for (const auto& i : h.nccl_installed)
    installed.push_back({{"version", i.version.str()}, {"kind", nccl_install_kind_name(i.kind)}, {"path", i.path}});
  for (const auto& f : h.net_plugins)
    plugins.push_back({{"plugin", f.plugin}, {"path", f.path}, {"identified_by", f.identified_by}});
  for (const auto& a : r.nccl_alternatives) {
    json gpus = json::object();
    for (const auto& p : a.predictions)
      gpus[p.gpu] = {{"gdr_send", tri_name(p.send)}, {"gdr_recv", tri_name(p.recv)}, {"rule", p.decided_by}};
    json alt = nccl_choice_json(a.nccl);
    alt["gpus"] = std::move(gpus);
    others.push_back(std::move(alt));
  }
  json j = nccl_choice_json(r.nccl);
  j["topology"] = r.nccl_topology;
  j["installed"] = std::move(installed);
  j["net_plugins"] = std::move(plugins);
  j["other_releases"] = std::move(others);
  return j;
}

json plan_json(const NodeReport& r) {
  json out = json::array();
  for (const auto& s : r.plan)
    out.push_back({{"gpu", s.gpu},
                   {"gets_gdr", s.gets_gdr},
                   {"how", s.how},
                   {"why_not", s.why_not.empty() ? json(nullptr) : json(s.why_not)},
                   {"change", s.change.empty() ? json(nullptr) : json(s.change)},
                   {"what_if", s.what_if.empty() ? json(nullptr) : json(s.what_if)}});
  return out;
}

json what_if_json(const NodeReport& r) {
  json before = json::array();
  for (const auto& p : r.before_what_if)
    before.push_back({{"gpu", p.gpu},
                      {"nic_name", p.nic_name},
                      {"path", p.path},
                      {"gdr_send", gdr_use_name(p.gdr_send)},
                      {"gdr_recv", gdr_use_name(p.gdr_recv)}});
  return {{"moves", r.what_if}, {"before", before}};
}

}  // namespace

json node_json(const NodeReport& r, const HostState& h, std::chrono::system_clock::time_point now) {
  json j = {{"schema", "gdrcheck.node/1"},
            {"host", r.host},
            {"root", r.root},
            {"status", status_name(r.status)},
            {"nccl_version", r.nccl_version.str()},
            {"nccl", nccl_json(r, h)},
            {"kernel", nullable(h.kernel_release.value)},
            {"driver", driver_json(h)},
            {"peer_memory", peer_memory_json(h)},
            {"iommu", iommu_json(h)},
            {"nccl_settings", nccl_settings_json(h)},
            {"inventory", inventory_json(r, h)},
            {"gpus", gpus_json(r)},
            {"nics", nics_json(r, h)},
            {"pairs", pairs_json(r)},
            {"findings", findings_json(r)},
            {"notes", r.topology.notes}};
  if (r.from_topology_file) {  // node --topo: no live host behind the report
    j["topology_file"] = {{"path", r.root},
                          {"kind", source_kind_name(r.topology.kind)},
                          {"assumed", r.assumed.empty() ? json(nullptr) : json(r.assumed)}};
    j["plan"] = plan_json(r);
    if (!r.what_if.empty()) j["what_if"] = what_if_json(r);
  }
  add_report_meta(j, report_meta(now, r.nccl.rules.str(), r.host));
  return j;
}

}  // namespace gdrcheck

#include "bench/bench_nics.h"

#include <map>
#include <set>

#include "checks/node_evidence.h"
#include "host/sysfs_values.h"

namespace gdrcheck {
namespace {

struct PortFacts {
  int port = 1;
  double rate_gbps = 0;
  LinkLayer layer = LinkLayer::Unknown;
};

// The first ACTIVE port (mlx5 reports a default rate on down ports), else
// the first port with its rate left unknown.
PortFacts port_facts(const RdmaDevice& d) {
  for (const auto& p : d.ports) {
    if (!p.state.value || p.state.value->find("ACTIVE") == std::string::npos) continue;
    PortFacts f;
    f.port = p.number;
    f.rate_gbps = parse_ib_rate_gbps(p.rate.value.value_or("")).value_or(0);
    f.layer = link_layer_from_name(p.link_layer.value.value_or(""));
    return f;
  }
  PortFacts f;
  if (!d.ports.empty()) {
    f.port = d.ports.front().number;
    f.layer = link_layer_from_name(d.ports.front().link_layer.value.value_or(""));
  }
  return f;
}

const RdmaDevice* rdma_named(const HostState& h, const std::string& name) {
  for (const auto& d : h.rdma)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

NodeNicFacts nic_facts_from_node(const NodeReport& r, const HostState& h) {
  NodeNicFacts out;
  out.host = r.host;
  GdrHostFacts facts = gdr_host_facts(r.topology, h);
  bool peermem = false;
  for (const auto& [file, present] : facts.peermem_files) peermem |= present;
  bool dmabuf_only = !peermem && facts.dmabuf_possible == Tri::Yes;

  std::set<std::string> used;  // NIC names, in name order
  for (const auto& pred : r.predictions) {
    ++out.gpus;
    const Endpoint* gpu = r.topology.find(pred.gpu);
    if (pred.nics.empty()) {
      out.notes.push_back(pred.gpu + ": NCCL would use no RDMA NIC");
      continue;
    }
    const Endpoint* nic = r.topology.find(pred.nics.front());
    if (!nic || !gpu) continue;
    GpuNicPair pair;
    pair.gpu = pred.gpu;
    pair.gpu_bus_id = gpu->address ? gpu->address->str() : "";
    pair.nic = nic->name;
    pair.nccl_path = nccl_path_name(pred.path);
    pair.dmabuf_only = dmabuf_only;
    if (const RdmaDevice* d = rdma_named(h, nic->name)) {
      PortFacts p = port_facts(*d);
      pair.port = p.port;
      pair.port_rate_gbps = p.rate_gbps;
      pair.link_layer = p.layer;
    }
    out.pairs.push_back(pair);
    for (const auto& id : pred.nics)
      if (const Endpoint* n = r.topology.find(id)) used.insert(n->name);
  }
  // One NicSpec per distinct (rate, link layer).
  std::map<std::pair<double, LinkLayer>, NicSpec> kinds;
  for (const auto& name : used) {
    const RdmaDevice* d = rdma_named(h, name);
    PortFacts p = d ? port_facts(*d) : PortFacts{};
    if (p.rate_gbps <= 0) out.notes.push_back(name + ": no ACTIVE port with a readable rate");
    auto key = std::make_pair(p.rate_gbps, p.layer);
    auto it = kinds.find(key);
    if (it == kinds.end())
      kinds[key] = NicSpec{name, p.rate_gbps, p.layer, 1};
    else {
      it->second.name += "," + name;
      ++it->second.count;
    }
  }
  for (auto& [key, spec] : kinds) out.nics.push_back(spec);
  return out;
}

NicSpec nic_from_flags(double rate_gbps, int count, const std::string& link_layer) {
  NicSpec s;
  s.name = "--nic-rate";
  s.rate_gbps = rate_gbps;
  s.count = count;
  s.link_layer = link_layer_from_name(link_layer);
  return s;
}

}  // namespace gdrcheck

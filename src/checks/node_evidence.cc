#include "checks/node_evidence.h"

namespace gdrcheck {

const PciFunctionState* NodeEvidence::function(const Endpoint& e) const {
  if (!e.address) return nullptr;
  auto it = host.functions.find(*e.address);
  return it == host.functions.end() ? nullptr : &it->second;
}

const RdmaDevice* NodeEvidence::rdma(const std::string& name) const {
  for (const auto& d : host.rdma)
    if (d.name == name) return &d;
  return nullptr;
}

const GdrPrediction* NodeEvidence::prediction(const std::string& gpu) const {
  for (const auto& p : predictions)
    if (p.gpu == gpu) return &p;
  return nullptr;
}

bool NodeEvidence::has_gpus() const {
  return !topology.with_role(DeviceRole::Gpu).empty();
}

std::string endpoint_label(const Endpoint& d) {
  if (d.role == DeviceRole::Gpu || d.name.empty()) return d.id;
  return d.name;
}

}  // namespace gdrcheck

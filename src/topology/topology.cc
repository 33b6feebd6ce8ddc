#include "topology/topology.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace gdrcheck {

const char* source_kind_name(SourceKind k) {
  switch (k) {
    case SourceKind::Sysfs:
      return "sysfs";
    case SourceKind::HwlocXml:
      return "hwloc-xml";
    case SourceKind::NcclXml:
      return "nccl-xml";
    case SourceKind::SmiText:
      return "smi-text";
  }
  return "unknown";
}

const char* device_role_name(DeviceRole r) {
  switch (r) {
    case DeviceRole::Gpu:
      return "gpu";
    case DeviceRole::NvSwitch:
      return "nvswitch";
    case DeviceRole::Nic:
      return "nic";
    case DeviceRole::Nvme:
      return "nvme";
    case DeviceRole::Extra:
      return "extra";
  }
  return "extra";
}

int Topology::root_of(int node) const {
  if (node < 0) return -1;
  while (nodes[node].parent >= 0) node = nodes[node].parent;
  return node;
}

std::vector<int> Topology::bridge_chain(int node) const {
  std::vector<int> chain;
  if (node < 0) return chain;
  for (int p = nodes[node].parent; p >= 0; p = nodes[p].parent)
    if (nodes[p].kind == PciNode::Kind::Bridge) chain.push_back(p);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::optional<int> Endpoint::int_attribute(const std::string& name) const {
  auto it = attributes.find(name);
  if (it == attributes.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (errno || *end != '\0' || v < -1000000 || v > 1000000) return std::nullopt;
  return static_cast<int>(v);
}

std::string unproven_path_between(const Endpoint& a, const Endpoint& b) {
  if (a.path_unproven.empty()) return b.path_unproven;
  if (b.path_unproven.empty() || a.path_unproven == b.path_unproven) return a.path_unproven;
  return a.path_unproven + "; " + b.path_unproven;
}

std::vector<PciAddress> pci_functions(const Topology& t) {
  std::vector<PciAddress> out;
  for (const auto& n : t.nodes)
    if (n.address) out.push_back(*n.address);
  return out;
}

const Endpoint* Topology::find(const std::string& id) const {
  for (const auto& e : endpoints)
    if (e.id == id) return &e;
  return nullptr;
}

std::vector<const Endpoint*> Topology::with_role(DeviceRole r) const {
  std::vector<const Endpoint*> out;
  for (const auto& e : endpoints)
    if (e.role == r) out.push_back(&e);
  return out;
}

Locality Topology::locality_of(int node) const {
  for (int n = node; n >= 0; n = nodes[n].parent)
    if (nodes[n].locality.known() || !nodes[n].locality.cpus.empty()) return nodes[n].locality;
  return {};
}

int Topology::add_node(PciNode n) {
  int idx = static_cast<int>(nodes.size());
  int parent = n.parent;
  nodes.push_back(std::move(n));
  if (parent >= 0) nodes[parent].children.push_back(idx);
  return idx;
}

}  // namespace gdrcheck

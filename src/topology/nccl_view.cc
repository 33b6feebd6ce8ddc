// NCCL's view of a PCI tree (nccl-spec.md §1.2–1.4). Written from the
// behaviour described there and in NCCL's graph/xml.cc and graph/topo.cc;
// no NCCL code is reused.
#include "topology/nccl_view.h"

#include <algorithm>
#include <map>
#include <utility>

namespace gdrcheck {
namespace {

using Kind = PciNode::Kind;

std::string node_name(const Topology& t, int idx) {
  const PciNode& n = t.nodes[idx];
  if (n.address) return n.address->str();
  return n.label.empty() ? "node " + std::to_string(idx) : n.label;
}

// ---- Ports tree → NCCL switch nodes ---------------------------------------

// NCCL walks a device's sysfs path upwards two components at a time, so with
// the bridge chain [b0 (root port) .. bk (parent)] the device hangs off
// b(k-1), that bridge off b(k-3), and so on; once the walk leaves the PCI
// bus numbers it lands on the CPU node of the NUMA id. Each placed node is a
// copy of the Ports node, created once and shared by everything below it.
class SwitchBuilder {
 public:
  explicit SwitchBuilder(const Topology& in) : in_(in) {
    out_.kind = in.kind;
    out_.source = in.source;
    out_.tree = TreeStyle::Switches;
    out_.numa_count = in.numa_count;
    out_.notes = in.notes;
  }

  Topology build() {
    for (int i = 0; i < static_cast<int>(in_.nodes.size()); ++i)
      if (in_.nodes[i].kind == Kind::Device) place(i);
    auto nic_nodes = merged_nic_nodes();
    for (Endpoint e : in_.endpoints) {
      if (e.node >= 0) {
        auto it = nic_nodes.find(e.id);
        e.node = it != nic_nodes.end() ? it->second : place(e.node);
      }
      out_.endpoints.push_back(std::move(e));
    }
    if (cpu_by_numa_.count(-1))
      out_.notes.push_back("NCCL view: devices with unknown NUMA node (numa_node -1) share NCCL's CPU node -1");
    return std::move(out_);
  }

 private:
  int place(int old) {
    auto it = made_.find(old);
    if (it != made_.end()) return it->second;
    const PciNode& n = in_.nodes[old];
    if (n.kind == Kind::Cpu || n.kind == Kind::HostBridge) return cpu_for(in_.locality_of(old));
    std::vector<int> chain = in_.bridge_chain(old);
    int parent = chain.size() >= 2 ? place(chain[chain.size() - 2]) : cpu_for(in_.locality_of(old));
    PciNode copy = n;
    copy.parent = parent;
    copy.children.clear();
    int idx = out_.add_node(std::move(copy));
    made_[old] = idx;
    return idx;
  }

  // One CPU node per NUMA id, as NCCL has no NODE level; -1 when unknown.
  int cpu_for(const Locality& loc) {
    int numa = loc.known() ? loc.numa : -1;
    auto it = cpu_by_numa_.find(numa);
    if (it != cpu_by_numa_.end()) {
      PciNode& cpu = out_.nodes[it->second];
      if (cpu.locality.cpus.empty()) cpu.locality.cpus = loc.cpus;
      return it->second;
    }
    PciNode cpu;
    cpu.kind = Kind::Cpu;
    cpu.label = "CPU" + std::to_string(numa);
    cpu.locality = loc;
    cpu.locality.numa = numa;
    int idx = out_.add_node(std::move(cpu));
    cpu_by_numa_[numa] = idx;
    return idx;
  }

  // NCCL forces a NIC's function digit to 0 and (NCCL_IB_MERGE_VFS=1, the
  // default) its device digits too, so the ports and VFs of one adapter are
  // one NCCL device. Endpoints stay separate but share the node of the
  // lowest-addressed function below the same bridge.
  std::map<std::string, int> merged_nic_nodes() {
    std::map<std::pair<int, PciAddress>, std::pair<PciAddress, int>> first;  // key → (address, old node)
    auto key_of = [&](const Endpoint& e) {
      PciAddress m = *e.address;
      m.device = 0;
      m.function = 0;
      return std::make_pair(in_.nodes[e.node].parent, m);
    };
    auto mergeable = [&](const Endpoint& e) {
      return e.role == DeviceRole::Nic && e.address && e.node >= 0 && in_.nodes[e.node].kind == Kind::Device;
    };
    for (const auto& e : in_.endpoints) {
      if (!mergeable(e)) continue;
      auto [it, fresh] = first.try_emplace(key_of(e), *e.address, e.node);
      if (!fresh && *e.address < it->second.first) it->second = {*e.address, e.node};
    }
    std::map<std::string, int> out;
    for (const auto& e : in_.endpoints)
      if (mergeable(e)) out[e.id] = place(first.at(key_of(e)).second);
    return out;
  }

  const Topology& in_;
  Topology out_;
  std::map<int, int> made_;
  std::map<int, int> cpu_by_numa_;
};

// ---- Broadcom switch flattening ---------------------------------------------

uint64_t pci_id64(const PciNode& n) {
  return static_cast<uint64_t>(n.vendor) << 48 | static_cast<uint64_t>(n.device) << 32 |
         static_cast<uint64_t>(n.subsystem_vendor) << 16 | n.subsystem_device;
}

// Broadcom PEX switches show up as a parent switch with same-ID virtual
// sub-switches. Gen4 (1000:c010, subsystem 1000:a0xx) looks the same at both
// levels; Gen5 (1000:c030, subsystem vendor 1000) tells them apart by the
// top digit of the subsystem device: 0xxx on the parent, 1xxx below it.
int bcm_gen(const PciNode& n, int level) {
  if (!n.ids_known) return 0;
  uint64_t masked = pci_id64(n) & ~uint64_t{0xfff};
  if (masked == 0x1000c0101000a000ull) return 4;
  if (masked == (0x1000c03010000000ull | static_cast<uint64_t>(level) * 0x1000)) return 5;
  return 0;
}

// Roots in index order, each followed by its subtree; `dropped` roots (and
// so their subtrees) are left out.
std::vector<int> preorder(const Topology& t, const std::vector<bool>& dropped = {}) {
  std::vector<int> order, stack;
  for (int i = static_cast<int>(t.nodes.size()) - 1; i >= 0; --i)
    if (t.nodes[i].parent < 0 && (dropped.empty() || !dropped[i])) stack.push_back(i);
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    const auto& ch = t.nodes[n].children;
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

// Renumbers the nodes that are not dropped, keeping pre-order, and
// re-points endpoints.
void compact(Topology& t, const std::vector<bool>& dropped) {
  std::vector<int> order = preorder(t, dropped);
  std::vector<int> index(t.nodes.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);
  std::vector<PciNode> nodes;
  nodes.reserve(order.size());
  for (int old : order) {
    PciNode n = std::move(t.nodes[old]);
    n.parent = n.parent >= 0 ? index[n.parent] : -1;
    for (int& c : n.children) c = index[c];
    nodes.push_back(std::move(n));
  }
  t.nodes = std::move(nodes);
  for (auto& e : t.endpoints)
    if (e.node >= 0) e.node = index[e.node];
}

// Moves the children of the absorbed sub-switches up to `parent`, in place,
// and marks the sub-switches dropped.
void absorb(Topology& t, int parent, const std::vector<int>& subs, std::vector<bool>& dropped) {
  std::vector<int> kids;
  for (int c : t.nodes[parent].children) {
    if (std::find(subs.begin(), subs.end(), c) == subs.end()) {
      kids.push_back(c);
      continue;
    }
    for (int g : t.nodes[c].children) {
      t.nodes[g].parent = parent;
      kids.push_back(g);
    }
    t.nodes[c].children.clear();
    t.nodes[c].parent = -1;
    dropped[c] = true;
  }
  t.nodes[parent].children = std::move(kids);
}

// Each Broadcom parent switch is handled once, top-down, like NCCL (which
// marks a switch after flattening it). NCCL also scans a switch's uplink;
// a parent switch with a sub-switch ID never occurs on real hardware, so
// only children are considered here.
void flatten_bcm(Topology& t, bool gen5) {
  std::vector<std::string> flattened;
  std::vector<bool> dropped(t.nodes.size(), false);
  int absorbed = 0;
  for (int s : preorder(t)) {
    const PciNode& sw = t.nodes[s];
    if (dropped[s] || sw.kind != Kind::Bridge) continue;
    int gen = bcm_gen(sw, 0);
    if (gen == 0 || (gen == 5 && !gen5)) continue;
    std::vector<int> subs;
    for (int c : sw.children)
      if (t.nodes[c].kind == Kind::Bridge && bcm_gen(t.nodes[c], 1) == gen) subs.push_back(c);
    if (subs.empty()) continue;
    flattened.push_back(node_name(t, s) + " (Gen" + std::to_string(gen) + ")");
    absorbed += static_cast<int>(subs.size());
    absorb(t, s, subs, dropped);
  }
  if (flattened.empty()) return;
  std::string list;
  for (const auto& f : flattened) list += (list.empty() ? "" : ", ") + f;
  t.notes.push_back("NCCL view: " + std::to_string(flattened.size()) + " Broadcom switch(es) flattened, " +
                    std::to_string(absorbed) + " virtual sub-switches merged into their parent: " + list);
  compact(t, dropped);
}

// ---- path types -----------------------------------------------------------

bool nvlink_to(const Endpoint& a, const Endpoint& b) {
  if (!b.address) return false;
  for (const auto& l : a.nvlinks) {
    auto addr = PciAddress::parse(l.target);
    if (l.count > 0 && addr && *addr == *b.address) return true;
  }
  return false;
}

// Only class 0x068000 is an NVSwitch for NCCL; 0x068001 is an NVLink to a CPU.
bool nvlink_to_nvswitch(const Endpoint& e) {
  for (const auto& l : e.nvlinks)
    if (l.count > 0 && l.target_class == 0x068000) return true;
  return false;
}

std::vector<int> path_up(const Topology& t, int node) {
  std::vector<int> up;
  for (int n = node; n >= 0 && up.size() <= t.nodes.size(); n = t.nodes[n].parent) up.push_back(n);
  return up;
}

std::string cpu_text(const Topology& t, int root) {
  const PciNode& r = t.nodes[root];
  std::string name = node_name(t, root);
  if (r.kind == Kind::Cpu && !r.locality.known()) name += " (NUMA node unknown, numa_node -1)";
  return name;
}

NcclClass across_roots(const Topology& t, int ra, int rb) {
  return {NcclPath::SYS, "different CPU nodes: " + cpu_text(t, ra) + " and " + cpu_text(t, rb)};
}

}  // namespace

Topology nccl_view(const Topology& t, const NcclViewOptions& options) {
  if (t.tree == TreeStyle::None) return t;
  Topology view = t.tree == TreeStyle::Ports ? SwitchBuilder(t).build() : t;
  if (options.flatten_bcm) flatten_bcm(view, options.flatten_bcm_gen5);
  return view;
}

NcclClass nccl_class(const Topology& t, const Endpoint& a, const Endpoint& b) {
  if (&a == &b || a.id == b.id) return {NcclPath::LOC, "same device"};
  if (a.role == DeviceRole::Gpu && b.role == DeviceRole::Gpu) {
    if (nvlink_to(a, b) || nvlink_to(b, a)) return {NcclPath::NVL, "direct NVLink between the GPUs"};
    if (nvlink_to_nvswitch(a) && nvlink_to_nvswitch(b)) return {NcclPath::NVL, "both GPUs have NVLinks to NVSwitches"};
  }
  // A tree that lost a bridge would still give a type, and a wrong one.
  if (std::string why = unproven_path_between(a, b); !why.empty()) return {NcclPath::Unknown, why};
  if (t.tree != TreeStyle::Switches) return {NcclPath::Unknown, "not an NCCL switch tree (use nccl_view first)"};
  int na = a.node, nb = b.node;
  if (na < 0 || nb < 0 || na >= static_cast<int>(t.nodes.size()) || nb >= static_cast<int>(t.nodes.size()))
    return {NcclPath::Unknown, "no PCI tree position for this pair"};
  if (na == nb) return {NcclPath::LOC, "same PCI device " + node_name(t, na) + " (NCCL merges its ports)"};
  std::vector<int> ua = path_up(t, na), ub = path_up(t, nb);
  for (std::size_t da = 0; da < ua.size(); ++da) {
    auto it = std::find(ub.begin(), ub.end(), ua[da]);
    if (it == ub.end()) continue;
    std::size_t db = static_cast<std::size_t>(it - ub.begin());
    int lca = ua[da];
    if (t.nodes[lca].kind == Kind::Cpu || t.nodes[lca].kind == Kind::HostBridge)
      return {NcclPath::PHB, "meet only at " + cpu_text(t, lca)};
    if (da <= 1 && db <= 1) return {NcclPath::PIX, "both directly below PCIe switch " + node_name(t, lca)};
    return {NcclPath::PXB, "share PCIe switch " + node_name(t, lca) + " through further switches"};
  }
  return across_roots(t, ua.back(), ub.back());
}

}  // namespace gdrcheck

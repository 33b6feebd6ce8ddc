#include "nccl/nccl_nets.h"

#include <algorithm>

#include "host/text_format.h"
#include "nccl/ib_hca_filter.h"

namespace gdrcheck {
namespace {

std::string port_label(const NicPortFacts& p) {
  return printable(p.device) + " port " + std::to_string(p.port);
}

// Why NCCL's IB transport would not offer this port; "" when it would.
std::string left_out_reason(const NicPortFacts& p) {
  if (p.uverbs == Tri::No)
    return port_label(p) + ": no uverbs device (ib_uverbs not loaded), so ibverbs does not list it";
  if (!p.state.empty() && p.state != "ACTIVE")
    return port_label(p) + " " + printable(p.state) + ": NCCL skips ports that are not ACTIVE";
  if (!p.link_layer.empty() && p.link_layer != "InfiniBand" && p.link_layer != "Ethernet")
    return port_label(p) + " link layer " + printable(p.link_layer) +
           ": NCCL's IB transport takes only InfiniBand and Ethernet (RoCE) ports";
  return "";
}

double attribute_gbps(const Endpoint& nic) {
  // NCCL XML: speed in Mb/s.
  auto it = nic.attributes.find("speed");
  if (it == nic.attributes.end()) return 0;
  try {
    return std::stod(it->second) / 1000.0;
  } catch (...) {
    return 0;
  }
}

int attribute_port(const Endpoint& nic) {
  auto it = nic.attributes.find("port");
  if (it == nic.attributes.end()) return 1;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return 1;
  }
}

// Ports as the source shows them when no port state was read.
std::vector<NicPortFacts> assumed_ports(const Topology& view) {
  std::vector<NicPortFacts> out;
  for (const Endpoint* n : view.with_role(DeviceRole::Nic)) {
    if (!n->rdma_device) continue;
    NicPortFacts p;
    p.nic_id = n->id;
    p.device = n->name;
    p.port = attribute_port(*n);
    p.gbps = attribute_gbps(*n);
    out.push_back(p);
  }
  return out;
}

void apply_hca(NcclNetList& list, const NcclSettings& st, const NcclVersion& v, std::vector<NcclNet>& nets) {
  const NcclSetting* hca = st.find("NCCL_IB_HCA");
  if (!hca) return;
  HcaFilter f = parse_hca(hca->value, v);
  std::vector<std::string> names, kept, all;
  for (const auto& n : nets) names.push_back(n.name);
  std::vector<NcclNet> out;
  for (const auto& n : nets) {
    all.push_back(printable(n.name) + ":" + std::to_string(n.port));
    if (hca_matches(f, n.name, n.port)) {
      kept.push_back(all.back());
      out.push_back(n);
    } else {
      list.left_out.try_emplace(
          n.nic_id, printable(n.name) + " port " + std::to_string(n.port) + ": not selected by " + hca->cite());
    }
  }
  std::string pitfalls = join(hca_prefix_pitfalls(f, names), "; ");
  list.rules.push_back(
      hca->cite() + " selects " + (kept.empty() ? "none" : join(kept)) + " of " + join(all) +
      (pitfalls.empty() ? "" : " (prefix match: " + pitfalls + "; a leading '=' matches whole names)"));
  nets = std::move(out);
}

// ---- merging the ports of one adapter ------------------------------------------------

// Whether this release fuses the ports/functions of one adapter into one
// device: 2.20.3–2.23.4 inside the IB transport (NCCL_IB_MERGE_NICS,
// src/transport/net_ib.cc:ncclIbFindMatchingDev@v2.20.5-1), from 2.24.3 by
// topology at NCCL_NET_MERGE_LEVEL (default PORT), skipped when
// NCCL_TOPO_DUMP_FILE is set (src/graph/topo.cc:ncclTopoProcessNet@v2.24.3-1).
std::string merge_off_reason(const NcclSettings& st, const NcclVersion& v) {
  if (v < NcclVersion{2, 20, 3}) return "NCCL fuses them only from 2.20.3";
  if (nccl_int_param(st, "NCCL_IB_MERGE_NICS", 1) == 0) return st.find("NCCL_IB_MERGE_NICS")->cite();
  if (v < NcclVersion{2, 24, 3}) return "";
  const NcclSetting* level = st.find("NCCL_NET_MERGE_LEVEL");
  if (level && level->value == "LOC") return level->cite();
  if (const NcclSetting* dump = st.find("NCCL_TOPO_DUMP_FILE")) return dump->cite();
  return "";
}

// The adapter a function belongs to: its bus id without the function
// (NCCL compares PCI paths with the function digit zeroed).
std::string adapter_of(const Topology& view, const NcclNet& n) {
  const Endpoint* e = view.find(n.nic_id);
  if (!e || !e->address) return "";
  std::string bdf = e->address->str();
  return bdf.substr(0, bdf.rfind('.'));
}

std::vector<std::vector<NcclNet>> group_by_adapter(const Topology& view, const std::vector<NcclNet>& nets) {
  std::vector<std::vector<NcclNet>> groups;
  std::vector<std::string> keys;
  for (const auto& n : nets) {
    std::string key = adapter_of(view, n);
    auto it = key.empty() ? keys.end() : std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.push_back({n});
    } else {
      groups[static_cast<std::size_t>(it - keys.begin())].push_back(n);
    }
  }
  return groups;
}

NcclNet fused(const std::vector<NcclNet>& group) {
  NcclNet out = group.front();
  for (std::size_t i = 1; i < group.size(); ++i) {
    out.name += "+" + group[i].name;
    out.gbps = out.gbps > 0 && group[i].gbps > 0 ? out.gbps + group[i].gbps : 0;
    out.facts_known = out.facts_known && group[i].facts_known;
  }
  return out;
}

void merge_ports(NcclNetList& list, const Topology& view, const NcclSettings& st, const NcclVersion& v,
                 std::vector<NcclNet>& nets) {
  auto groups = group_by_adapter(view, nets);
  bool any = std::any_of(groups.begin(), groups.end(), [](auto& g) { return g.size() > 1; });
  if (!any) return;
  std::string off = merge_off_reason(st, v);
  // 2.22.3–2.23.4: a mix of single- and multi-port adapters turns merging
  // off for the whole host (ncclIbInit@v2.22.3-1).
  bool mixed = std::any_of(groups.begin(), groups.end(), [&](auto& g) { return g.size() != groups.front().size(); });
  if (off.empty() && mixed && v >= NcclVersion{2, 22, 3} && v < NcclVersion{2, 24, 3})
    off = "a mix of single- and multi-port adapters (NCCL 2.22.3-2.23.4)";
  if (!off.empty()) {
    list.rules.push_back("ports of one adapter stay separate devices: " + off);
    return;
  }
  std::vector<NcclNet> out;
  for (const auto& g : groups) {
    out.push_back(fused(g));
    if (g.size() > 1)
      list.rules.push_back("NCCL " + v.str() + " fuses the ports of one adapter into " + printable(out.back().name) +
                           (out.back().gbps > 0 ? " (" + fixed(out.back().gbps, 0) + " Gb/s)" : ""));
  }
  nets = std::move(out);
}

}  // namespace

NcclNetList nccl_nets(const Topology& view, const std::optional<std::vector<NicPortFacts>>& ports,
                      const NcclSettings& settings, const NcclVersion& version) {
  NcclNetList list;
  std::vector<NicPortFacts> facts = ports ? *ports : assumed_ports(view);
  if (!ports && !facts.empty())
    list.rules.push_back("port states not known from this source: every RDMA NIC taken as one ACTIVE port");
  std::vector<NcclNet> nets;
  for (const auto& p : facts) {
    if (!view.find(p.nic_id)) continue;
    std::string why = left_out_reason(p);
    if (!why.empty()) {
      list.left_out.try_emplace(p.nic_id, why);
      list.rules.push_back(why);
      continue;
    }
    bool known = !ports || (!p.state.empty() && !p.link_layer.empty() && p.uverbs != Tri::Unknown);
    if (!known) list.rules.push_back(port_label(p) + ": state, link layer or uverbs device unreadable; assumed usable");
    nets.push_back({p.device, p.nic_id, p.port, p.gbps, known});
  }
  apply_hca(list, settings, version, nets);
  merge_ports(list, view, settings, version, nets);
  list.nets = std::move(nets);
  return list;
}

}  // namespace gdrcheck

// `acs`: Access Control Services on every bridge between each GPU and its
// NIC, decoded from `config` (extended capability 0x000D). P2P Request
// Redirect, Completion Redirect and Egress Control send GPU↔NIC traffic up
// to the root complex. A 64-byte config was read without root: UNKNOWN,
// never OK. Grace + ConnectX-8 platforms need specific bits set, so there
// gdrcheck reports what is set instead of demanding all-off.
#include <map>

#include "checks/node_evidence.h"
#include "host/device_ids.h"
#include "host/text_format.h"
#include "pcie/config_space.h"

namespace gdrcheck {
namespace {

// Bridges the pair's P2P traffic crosses: those below the deepest common
// bridge on both sides (all of them when only the host bridge is shared).
std::vector<int> bridges_between(const Topology& t, int a, int b) {
  std::vector<int> ca = t.bridge_chain(a), cb = t.bridge_chain(b), out;
  std::size_t common = 0;
  while (common < ca.size() && common < cb.size() && ca[common] == cb[common]) ++common;
  out.insert(out.end(), ca.begin() + static_cast<long>(common), ca.end());
  out.insert(out.end(), cb.begin() + static_cast<long>(common), cb.end());
  return out;
}

bool grace_platform(const Topology& t) {
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    if (g->node < 0) continue;
    auto info = nvidia_gpu_info(t.nodes[g->node].device, g->model);
    if (info && (info->family == "GH200" || info->family == "GB200")) return true;
  }
  for (const Endpoint* n : t.with_role(DeviceRole::Nic))
    if (n->node >= 0 && t.nodes[n->node].vendor == 0x15b3 && t.nodes[n->node].device == 0x1023) return true;
  return false;
}

std::string prefixed_hex4(uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

Finding judge_bridge(const PciFunctionState* f, const std::string& bdf, const std::string& pairs, bool grace) {
  std::string path = "/sys/bus/pci/devices/" + bdf + "/config";
  if (!f || !f->config.ok())
    return problem("acs", bdf, Status::Unknown, "config space not readable (" + pairs + ")",
                   {f ? f->config.reason() : path + ": not captured"}, "run gdrcheck as root on the node");
  ConfigSpace cs = decode_config(f->config.content);
  std::vector<std::string> ev{path + ": " + std::to_string(cs.size) + " bytes (" + config_access_name(cs.access) + ")"};
  if (!cs.acs_known())
    return problem("acs", bdf, Status::Unknown,
                   cs.access == ConfigAccess::HeaderOnly ? "ACS unknown: config read without root (" + pairs + ")"
                                                         : "ACS unknown: no extended config space (" + pairs + ")",
                   ev,
                   cs.access == ConfigAccess::HeaderOnly ? "run as root to check ACS"
                                                         : "enable MMCONFIG/ECAM (extended config access)");
  if (!cs.acs) return ok("acs", bdf, "no ACS capability on this bridge (" + pairs + ")", ev);
  std::string cap = prefixed_hex4(cs.acs->capability), ctl = prefixed_hex4(cs.acs->control);
  ev.push_back("ACSCap " + cap + ": " + acs_flags_string(cs.acs->capability));
  ev.push_back("ACSCtl " + ctl + ": " + acs_flags_string(cs.acs->control));
  if (grace)
    return ok("acs", bdf,
              "ACSCtl " + ctl + " (" + pairs +
                  "); this platform needs specific ACS bits: compare with rdma_topo's expectation",
              ev);
  if (cs.acs->control & kAcsRedirectMask)
    return problem("acs", bdf, Status::Critical,
                   "ACS redirects peer-to-peer traffic to the root complex (ACSCtl " + ctl + ") on the path " + pairs,
                   ev,
                   "disable ACS in the BIOS (PCIe ACS / VT-d settings), or at boot pci=disable_acs_redir=" + bdf +
                       ", or until reboot: setpci -s " + bdf + " ECAP_ACS+0x6.w=0000");
  if (cs.acs->control != 0)
    return ok("acs", bdf, "ACSCtl " + ctl + ": no redirect bits, P2P stays local (" + pairs + ")", ev);
  return ok("acs", bdf, "ACS redirect off (" + pairs + ")", ev);
}

// A GPU or NIC whose PCIe path is not proven (a bridge's config unreadable,
// so hwloc left the bridge out of the tree) crosses a bridge no finding
// above judged: OKs for the bridges that were read must not stand for it.
std::vector<Finding> unproven_paths(const Topology& t) {
  std::vector<Finding> out;
  for (DeviceRole role : {DeviceRole::Gpu, DeviceRole::Nic})
    for (const Endpoint* d : t.with_role(role)) {
      if (d->path_unproven.empty()) continue;
      Finding f = problem(
          "acs", role == DeviceRole::Nic ? d->name : d->id, Status::Unknown,
          "ACS unknown: not every bridge between it and the root port could be read: " + printable(d->path_unproven),
          {printable(d->path_unproven)},
          "read the node as root, or capture the root again with every "
          "/sys/bus/pci/devices/*/config; `lspci -tv` on the node shows the real tree and "
          "`lspci -vvv` each bridge's ACSCtl");
      f.affects = {d->id};
      out.push_back(std::move(f));
    }
  return out;
}

// An unprivileged capture hides ACS on every bridge alike: one finding
// says so instead of one per bridge.
Finding merge_rootless(const std::vector<Finding>& each) {
  Finding f = each.front();
  f.subject = "host";
  f.summary = "ACS unknown on all " + std::to_string(each.size()) +
              " bridges between GPUs and their NICs: config read without root";
  f.affects.clear();
  for (const auto& b : each) f.affects.insert(f.affects.end(), b.affects.begin(), b.affects.end());
  f.evidence = {each.front().evidence.front() + " (and the same on the other " + std::to_string(each.size() - 1) + ")"};
  return f;
}

}  // namespace

std::vector<Finding> check_acs_between(const NodeEvidence& e, const std::vector<EndpointPair>& pairs) {
  if (e.topology.tree != TreeStyle::Ports) return {};
  bool grace = grace_platform(e.topology);
  std::vector<int> order;
  std::map<int, std::string> pairs_of;
  std::map<int, std::vector<std::string>> affects;
  for (const auto& [a, b] : pairs) {
    if (!a || !b || a->node < 0 || b->node < 0) continue;
    for (int bridge : bridges_between(e.topology, a->node, b->node)) {
      if (!pairs_of.count(bridge)) order.push_back(bridge);
      std::string& s = pairs_of[bridge];
      s += (s.empty() ? "" : ", ") + endpoint_label(*a) + "-" + endpoint_label(*b);
      affects[bridge].push_back(a->role == DeviceRole::Gpu ? a->id : endpoint_label(*a));
      affects[bridge].push_back(endpoint_label(*b));
    }
  }
  std::vector<Finding> out;
  bool all_rootless = !order.empty();
  for (int b : order) {
    const PciNode& node = e.topology.nodes[b];
    if (!node.address) continue;
    auto it = e.host.functions.find(*node.address);
    Finding f =
        judge_bridge(it == e.host.functions.end() ? nullptr : &it->second, node.address->str(), pairs_of[b], grace);
    f.affects = affects[b];
    all_rootless = all_rootless && f.status == Status::Unknown && f.summary.find("without root") != std::string::npos;
    out.push_back(std::move(f));
  }
  if (all_rootless) out = {merge_rootless(out)};
  return out;
}

std::vector<Finding> check_acs(const NodeEvidence& e) {
  if (e.topology.tree != TreeStyle::Ports) return {};
  std::vector<EndpointPair> pairs;
  for (const auto& p : e.predictions) {
    const Endpoint* g = e.topology.find(p.gpu);
    if (!g || p.nics.empty()) continue;
    pairs.push_back({g, e.topology.find(p.nics.front())});
  }
  auto out = check_acs_between(e, pairs);
  auto unproven = unproven_paths(e.topology);
  out.insert(out.end(), unproven.begin(), unproven.end());
  return out;
}

}  // namespace gdrcheck

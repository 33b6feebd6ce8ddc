// `link`: the PCIe link of each GPU and NIC and of the switch uplinks on
// their paths — current against maximum width and speed, and against the
// parent port's capability. A width drop is a fault; a GPU running below its
// top speed is only a note (GPUs lower the link speed when idle). Root and
// downstream ports are not judged by their own status: their maximum is the
// port's, not the partner's (lspci's rule). A NIC whose PCIe link cannot
// carry its port rate is flagged too.
#include <cmath>
#include <map>

#include "checks/node_evidence.h"
#include "host/sysfs_values.h"
#include "host/text_format.h"
#include "pcie/config_space.h"

namespace gdrcheck {
namespace {

struct LinkFacts {
  std::optional<double> cur_gts, max_gts;
  std::optional<int> cur_width, max_width;
  bool any() const { return cur_gts || max_gts || cur_width || max_width; }
};

LinkFacts link_facts_of(const PciFunctionState& f) {
  return {
      parse_link_speed(f.current_link_speed.value.value_or("")), parse_link_speed(f.max_link_speed.value.value_or("")),
      parse_link_width(f.current_link_width.value.value_or("")), parse_link_width(f.max_link_width.value.value_or(""))};
}

std::vector<std::string> evidence_of(const PciFunctionState& f) {
  return {f.current_link_speed.evidence(), f.current_link_width.evidence(), f.max_link_speed.evidence(),
          f.max_link_width.evidence()};
}

std::string gen(double gts) {
  if (auto g = pcie_generation(gts)) return "Gen" + std::to_string(*g);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", gts);
  return buf;
}

std::string describe_link(const LinkFacts& l) {
  std::string s;
  if (l.cur_gts) s += gen(*l.cur_gts);
  if (l.cur_width) s += " x" + std::to_string(*l.cur_width);
  if (l.max_gts || l.max_width) {
    s += " (max";
    if (l.max_gts) s += " " + gen(*l.max_gts);
    if (l.max_width) s += " x" + std::to_string(*l.max_width);
    s += ")";
  }
  return s;
}

// Usable bandwidth of a link in Gb/s (per direction, after line encoding).
double pcie_gbps(double gts, int width) {
  double efficiency = gts < 8.0 ? 0.8 : 128.0 / 130.0;
  return gts * efficiency * width;
}

double active_port_rate(const NodeEvidence& e, const Endpoint& nic) {
  const RdmaDevice* d = e.rdma(nic.name);
  double best = 0;
  if (!d) return 0;
  for (const auto& p : d->ports)
    if (p.state.value.value_or("").find("ACTIVE") != std::string::npos)
      if (auto r = parse_ib_rate_gbps(p.rate.value.value_or(""))) best = std::max(best, *r);
  return best;
}

std::string slot_limit(const NodeEvidence& e, const Endpoint& d, const LinkFacts& l);

Finding endpoint_link(const NodeEvidence& e, const Endpoint& d, const PciFunctionState& f) {
  std::string subject = endpoint_label(d);
  LinkFacts l = link_facts_of(f);
  std::vector<std::string> ev = evidence_of(f);
  if (!l.any())
    return problem("link", subject, Status::Unknown, "no PCIe link files (virtual machine, or not captured)", ev,
                   "check the link on the host that owns the device (lspci -vv: LnkSta)");
  if (!l.cur_width || !l.max_width || !l.cur_gts || !l.max_gts)
    return problem("link", subject, Status::Unknown, "PCIe link partly unreadable: " + describe_link(l), ev,
                   "capture current_link_* and max_link_* for " + d.address->str());
  if (*l.cur_width < *l.max_width)
    return problem("link", subject, Status::Critical, "PCIe link degraded: " + describe_link(l) + " — width dropped",
                   ev, "reseat the card/riser, check slot bifurcation and BIOS link settings, update firmware");
  if (d.role == DeviceRole::Nic) {
    double rate = active_port_rate(e, d);
    double pcie = pcie_gbps(*l.cur_gts, *l.cur_width);
    if (rate > 0 && pcie < 0.9 * rate)
      return problem("link", subject, Status::Warning,
                     "PCIe " + describe_link(l) + " carries about " + std::to_string(static_cast<int>(pcie)) +
                         " Gb/s, less than the " + std::to_string(static_cast<int>(rate)) + " Gb/s port",
                     ev, "place the NIC in a slot with a faster/wider link");
  }
  if (*l.cur_gts + 0.01 < *l.max_gts) {
    if (d.role == DeviceRole::Gpu)
      return ok("link", subject,
                describe_link(l) + ": below top speed, normal for an idle GPU (check again under load)", ev);
    return problem("link", subject, Status::Warning, "PCIe link below top speed: " + describe_link(l), ev,
                   "reseat the card, check BIOS PCIe speed settings and firmware");
  }
  return ok("link", subject, describe_link(l) + slot_limit(e, d, l), ev);
}

// A device faster than the port it sits in runs at the port's top speed:
// not a fault, but worth saying (NCCL also uses the lower of the two).
std::string slot_limit(const NodeEvidence& e, const Endpoint& d, const LinkFacts& l) {
  const PciNode& n = e.topology.nodes[d.node];
  if (n.parent < 0 || !e.topology.nodes[n.parent].address || !l.max_gts) return "";
  auto it = e.host.functions.find(*e.topology.nodes[n.parent].address);
  if (it == e.host.functions.end()) return "";
  auto parent_max = parse_link_speed(it->second.max_link_speed.value.value_or(""));
  if (!parent_max || *parent_max + 0.01 >= *l.max_gts) return "";
  return "; limited by its parent port (" + gen(*parent_max) + "), not a fault";
}

// A switch upstream port (its width is the uplink's) — from the PCIe
// capability when captured, else from the tree: a bridge under a bridge
// with bridges below it.
bool is_upstream_port(const Topology& t, int node, const PciFunctionState& f) {
  if (f.config.ok()) {
    ConfigSpace cs = decode_config(f.config.content);
    if (cs.pcie) return cs.pcie->port_type == PciePortType::UpstreamPort;
  }
  const PciNode& n = t.nodes[node];
  if (n.parent < 0 || t.nodes[n.parent].kind != PciNode::Kind::Bridge) return false;
  for (int c : n.children)
    if (t.nodes[c].kind == PciNode::Kind::Bridge) return true;
  return false;
}

std::optional<Finding> uplink(const NodeEvidence& e, int node, const std::string& below) {
  const PciNode& n = e.topology.nodes[node];
  if (!n.address) return std::nullopt;
  auto it = e.host.functions.find(*n.address);
  if (it == e.host.functions.end() || !is_upstream_port(e.topology, node, it->second)) return std::nullopt;
  LinkFacts l = link_facts_of(it->second);
  if (!l.cur_width || !l.max_width) return std::nullopt;
  std::string subject = n.address->str();
  if (*l.cur_width < *l.max_width)
    return problem("link", subject, Status::Critical,
                   "switch uplink degraded: " + describe_link(l) + " (above " + below + ")", evidence_of(it->second),
                   "reseat the switch board/riser; check BIOS bifurcation for the root port");
  if (l.cur_gts && l.max_gts && *l.cur_gts + 0.01 < *l.max_gts)
    return problem("link", subject, Status::Warning,
                   "switch uplink below top speed: " + describe_link(l) + " (above " + below + ")",
                   evidence_of(it->second), "check BIOS PCIe speed settings and the switch firmware");
  return ok("link", subject, "switch uplink " + describe_link(l) + " (above " + below + ")", evidence_of(it->second));
}

// A device whose PCIe path is not proven (a bridge's config unreadable, so
// hwloc left the bridge out) has a switch uplink no finding judges: the
// uplinks that were read must not stand for its whole path.
Finding unproven_path(const Endpoint& d) {
  return problem("link", endpoint_label(d), Status::Unknown,
                 "links above it unknown: not every bridge between it and the root port could be read: " +
                     printable(d.path_unproven),
                 {printable(d.path_unproven)},
                 "read the node as root, or capture the root again with every /sys/bus/pci/devices/*/config; "
                 "`lspci -tv` on the node shows the real tree and `lspci -vv` each bridge's LnkSta");
}

}  // namespace

std::vector<Finding> check_link(const NodeEvidence& e) {
  std::vector<const Endpoint*> devices;
  for (DeviceRole role : {DeviceRole::Gpu, DeviceRole::Nic})
    for (const Endpoint* d : e.topology.with_role(role)) devices.push_back(d);
  return check_link_of(e, devices);
}

std::vector<Finding> check_link_of(const NodeEvidence& e, const std::vector<const Endpoint*>& devices) {
  std::vector<Finding> out;
  std::map<int, std::string> uplinks;
  std::vector<int> order;
  for (const Endpoint* d : devices) {
    const PciFunctionState* f = e.function(*d);
    if (!f || d->node < 0) continue;
    if (d->role == DeviceRole::Nic && d->address && d->address->function != 0 && !f->virtual_function)
      continue;  // one per NIC
    out.push_back(endpoint_link(e, *d, *f));
    if (!d->path_unproven.empty()) out.push_back(unproven_path(*d));
    for (int b : e.topology.bridge_chain(d->node)) {
      if (!uplinks.count(b)) order.push_back(b);
      std::string& s = uplinks[b];
      s += (s.empty() ? "" : ", ") + endpoint_label(*d);
    }
  }
  for (int b : order)
    if (auto f = uplink(e, b, uplinks[b])) out.push_back(*f);
  return out;
}

}  // namespace gdrcheck

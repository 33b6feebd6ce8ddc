// `port`: each RDMA port — state and physical state, link layer (InfiniBand
// or Ethernet = RoCE), rate and generation, a rate below what the NIC model
// can do, and for RoCE a RoCE v2 GID. A rate read from a port that is not
// ACTIVE is not trusted (mlx5 reports a default rate for down ports).
#include <cmath>

#include "checks/node_evidence.h"
#include "host/device_ids.h"
#include "host/sysfs_values.h"

namespace gdrcheck {
namespace {

// "400 Gb/sec (4X NDR)" → "NDR 4X"; Ethernet ports by their total rate.
std::string generation(const std::string& rate_text, double gbps, bool ethernet) {
  if (ethernet) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gGbE", gbps);
    return buf;
  }
  auto open = rate_text.find('('), close = rate_text.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  std::string inside = rate_text.substr(open + 1, close - open - 1);  // "4X NDR"
  auto space = inside.find(' ');
  if (space == std::string::npos) return inside;
  return inside.substr(space + 1) + " " + inside.substr(0, space);
}

std::string subject(const RdmaDevice& d, const RdmaPort& p) {
  return d.name + "/" + std::to_string(p.number);
}

// The fastest rate one port of this card can run. Dual-port cards (a second
// function of the same device ID) split the model's bandwidth: a dual-port
// ConnectX-7 is 2x200G, so 200 Gb/s per port is not a degraded link.
double model_max_rate(const NodeEvidence& e, const RdmaDevice& d) {
  if (!d.pci) return 0;
  const PciNode* self = nullptr;
  for (const auto& n : e.topology.nodes)
    if (n.address && *n.address == *d.pci && n.vendor == 0x15b3) self = &n;
  if (!self) return 0;
  auto info = mellanox_nic_info(self->device);
  if (!info) return 0;
  for (const auto& n : e.topology.nodes)
    if (n.address && n.address != self->address && n.vendor == self->vendor && n.device == self->device &&
        n.address->domain == d.pci->domain && n.address->bus == d.pci->bus && n.address->device == d.pci->device)
      return info->max_rate_gbps / 2;
  return info->max_rate_gbps;
}

Finding state_problem(const RdmaDevice& d, const RdmaPort& p, const std::vector<std::string>& ev) {
  auto state = parse_numbered_state(p.state.value.value_or(""));
  auto phys = parse_numbered_state(p.phys_state.value.value_or(""));
  std::string s = state ? state->name : "?", ph = phys ? phys->name : "?";
  Status status = Status::Critical;
  std::string fix = "check the cable and the switch port (ibstat " + d.name + " " + std::to_string(p.number) +
                    "; mlxlink -d " + d.name + ")";
  if (phys && phys->name == "LinkUp" && (s == "INIT" || s == "ARMED"))
    fix = "the link is up but not configured: check that a subnet manager (opensm/UFM) is running on the fabric";
  if (phys && phys->name == "Disabled")
    fix = "the port is administratively disabled: enable it (ibportstate / switch config)";
  return problem("port", subject(d, p), status,
                 "port " + s + " (physical state " + ph + "): no RDMA traffic through it", ev, fix);
}

Finding check_one_port(const NodeEvidence& e, const RdmaDevice& d, const RdmaPort& p) {
  std::vector<std::string> ev{p.state.evidence(), p.phys_state.evidence(), p.rate.evidence(), p.link_layer.evidence()};
  if (!p.state.known() || !p.phys_state.known())
    return problem("port", subject(d, p), Status::Unknown, "port state could not be read", ev,
                   "capture /sys/class/infiniband/" + d.name + "/ports/ with the port files");
  auto state = parse_numbered_state(*p.state.value);
  auto phys = parse_numbered_state(*p.phys_state.value);
  if (!state || state->name != "ACTIVE" || !phys || phys->name != "LinkUp") return state_problem(d, p, ev);

  bool ethernet = p.link_layer.value.value_or("") == "Ethernet";
  auto gbps = parse_ib_rate_gbps(p.rate.value.value_or(""));
  if (!gbps)
    return problem("port", subject(d, p), Status::Unknown, "ACTIVE, but the rate could not be read", ev,
                   "check /sys/class/infiniband/" + d.name + "/ports/" + std::to_string(p.number) + "/rate");
  std::string layer = ethernet ? "RoCE" : (p.link_layer.known() ? "InfiniBand" : "link layer unknown");
  std::string gen = generation(*p.rate.value, *gbps, ethernet);
  std::string what = "ACTIVE, " + layer + ", " + *p.rate.value + (gen.empty() ? "" : " = " + gen);
  double max = model_max_rate(e, d);
  if (max > 0 && *gbps + 0.5 < max)
    return problem("port", subject(d, p), Status::Warning,
                   what + ": below the " + std::to_string(static_cast<int>(max)) + " Gb/s this NIC model supports", ev,
                   "check the cable/transceiver and the switch port speed (mlxlink -d " + d.name +
                       "); a split or lower-rated cable also explains it");
  if (ethernet && p.gid_types_readable && p.roce_v2_gids.empty())
    return problem("port", subject(d, p), Status::Warning, what + ", but no RoCE v2 GID", ev,
                   "assign an IP address to the port's netdev (RoCE v2 GIDs are derived from it) and check "
                   "NCCL_IB_GID_INDEX");
  if (ethernet && !p.roce_v2_gids.empty()) ev.push_back("RoCE v2 GID " + p.roce_v2_gids.front());
  return ok("port", subject(d, p), what, ev);
}

}  // namespace

std::vector<Finding> check_port(const NodeEvidence& e) {
  std::vector<Finding> out;
  for (const auto& d : e.host.rdma) {
    if (d.ports.empty())
      out.push_back(problem("port", d.name, Status::Unknown, "no ports listed",
                            {"/sys/class/infiniband/" + d.name + "/ports: empty"},
                            "capture /sys/class/infiniband/" + d.name + "/ports/"));
    for (const auto& p : d.ports) out.push_back(check_one_port(e, d, p));
  }
  return out;
}

}  // namespace gdrcheck

#include "checks/storage_nic.h"

#include <cstdio>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

// "10.0.0.5" → "0000:0000:0000:0000:0000:ffff:0a00:0005" (how sysfs prints
// an IPv4-mapped GID); "" when not an IPv4 address.
std::string mapped_gid(const std::string& ip) {
  unsigned a, b, c, d;
  char extra;
  if (std::sscanf(ip.c_str(), "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &extra) != 4 || a > 255 || b > 255 || c > 255 ||
      d > 255)
    return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a, b, c, d);
  return buf;
}

const RdmaPort* port_of(const RdmaDevice& d, int number) {
  for (const auto& p : d.ports)
    if (p.number == number) return &p;
  return nullptr;
}

const Endpoint* nic_named(const Topology& t, const std::string& name) {
  for (const Endpoint* n : t.with_role(DeviceRole::Nic))
    if (n->name == name) return n;
  return nullptr;
}

}  // namespace

StorageNic find_nic_by_interface(const NodeEvidence& e, const InterfaceAddress& iface) {
  for (const auto& d : e.host.rdma)
    if (iface.pci && d.pci && *iface.pci == *d.pci)
      return {&d, port_of(d, iface.port), printable(iface.interface) + " is a function of " + d.name};
  return {};
}

StorageNic find_nic_by_address(const NodeEvidence& e, const GdsState& g, const std::string& ip, std::string& not_rdma) {
  const std::string gid = mapped_gid(ip);
  for (const auto& d : e.host.rdma)
    for (const auto& p : d.ports)
      for (const auto& x : p.roce_v2_gids)
        if (!gid.empty() && x == gid)
          return {&d, &p, d.name + " port " + std::to_string(p.number) + ": RoCE v2 GID " + x};
  if (!g.addresses) return {};
  for (const auto& a : *g.addresses) {
    if (a.ipv4 != ip) continue;
    StorageNic n = find_nic_by_interface(e, a);
    if (n.device) {
      n.how = printable(a.interface) + " holds " + printable(ip) + "; " + n.how;
      return n;
    }
    not_rdma = printable(a.interface);
  }
  return {};
}

Finding judge_storage_nic(const NodeEvidence& e, const std::string& check, const std::string& subject,
                          const std::string& lead, const RdmaDevice& device, const RdmaPort* port,
                          std::vector<std::string> ev, const std::string& fix, GdsPaths& paths) {
  const std::string nic = device.name + (port ? " port " + std::to_string(port->number) : "");
  if (!port || !port->state.value)
    return problem(check, subject, Status::Unknown, lead + nic + ", whose port state is unknown", ev,
                   "read /sys/class/infiniband/" + device.name + "/ports/*/state");
  ev.push_back(port->state.evidence());
  if (port->state.value->find("ACTIVE") == std::string::npos)
    return problem(check, subject, Status::Warning, lead + nic + ", which is not ACTIVE: storage I/O cannot use it", ev,
                   "bring the port up (cable, switch port, subnet manager), or stop using it for storage");
  const Endpoint* n = nic_named(e.topology, device.name);
  if (!n || !e.has_gpus()) return ok(check, subject, lead + nic + " (ACTIVE)", ev);
  NearestGpus near = nearest_gpus(e.topology, *n);
  paths.add(n, near.gpus);
  ev.insert(ev.end(), near.evidence.begin(), near.evidence.end());
  if (near.gpus.empty())
    return problem(check, subject, Status::Unknown, lead + nic + " (ACTIVE); where it sits against the GPUs is unknown",
                   ev, "read the node as root");
  if (near.best.path == SmiPath::SYS)
    return problem(check, subject, Status::Warning,
                   lead + nic +
                       " (ACTIVE), on another socket than every GPU (SYS): remote reads cross the socket "
                       "interconnect",
                   ev, fix);
  return ok(check, subject, lead + nic + " (ACTIVE), nearest " + near.ids(), ev);
}

}  // namespace gdrcheck

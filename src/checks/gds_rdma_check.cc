// `gds.rdma`: the RDMA NICs cuFile is told to use for remote storage
// (properties.rdma_dev_addr_list: client-side IPv4 addresses; platform-spec
// §5.2, §5.3). Each address must be this host's, on an RDMA NIC whose port
// is up; the NIC's PCIe path to the GPUs it serves is judged like a drive's
// (nearest GPUs; across sockets a WARNING; ACS, IOMMU and link through
// checks/gds_paths.h). An address is tied to a NIC by the port's RoCE GIDs
// (IPv4-mapped) or by the interface that holds it (InfiniBand's IPoIB).
#include <cstdio>

#include "checks/gds_checks.h"
#include "checks/gds_paths.h"
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

struct Located {
  const RdmaDevice* device = nullptr;
  const RdmaPort* port = nullptr;
  std::string how;  // evidence
};

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

Located locate(const NodeEvidence& e, const GdsState& g, const std::string& ip, std::string& not_rdma) {
  const std::string gid = mapped_gid(ip);
  for (const auto& d : e.host.rdma)
    for (const auto& p : d.ports)
      for (const auto& x : p.roce_v2_gids)
        if (!gid.empty() && x == gid)
          return {&d, &p, d.name + " port " + std::to_string(p.number) + ": RoCE v2 GID " + x};
  if (!g.addresses) return {};
  for (const auto& a : *g.addresses) {
    if (a.ipv4 != ip) continue;
    for (const auto& d : e.host.rdma)
      if (a.pci && d.pci && *a.pci == *d.pci)
        return {&d, port_of(d, a.port), printable(a.interface) + " holds " + ip + "; its function is " + d.name};
    not_rdma = printable(a.interface);
  }
  return {};
}

Finding judge(const NodeEvidence& e, const GdsState& g, const std::string& raw, const std::string& file,
              GdsPaths& paths) {
  const std::string ip = printable(raw);
  std::vector<std::string> ev{file + ": properties.rdma_dev_addr_list has " + ip};
  std::string not_rdma;
  Located at = locate(e, g, raw, not_rdma);
  if (!at.device) {
    if (!not_rdma.empty())
      return problem("gds.rdma", ip, Status::Warning, ip + " is on " + not_rdma + ", which is not an RDMA NIC", ev,
                     "list the addresses of this node's RDMA NICs (ip -br addr; rdma link) in rdma_dev_addr_list");
    if (g.addresses)
      return problem("gds.rdma", ip, Status::Warning,
                     ip + " is not an address of this host: cuFile cannot use it for RDMA", ev,
                     "rdma_dev_addr_list holds this client's own RDMA NIC addresses (ip -br addr), per node");
    ev.push_back("this root holds no interface addresses (" + std::string(kAddressesCapture) + ")");
    return problem("gds.rdma", ip, Status::Unknown,
                   ip + " is in no RoCE GID of this root's NICs, and its interface addresses are not known", ev,
                   "run gdrcheck gds on the node, or capture it with gdrcheck snapshot");
  }
  ev.push_back(at.how);
  const std::string nic = at.device->name + (at.port ? " port " + std::to_string(at.port->number) : "");
  if (!at.port || !at.port->state.value)
    return problem("gds.rdma", ip, Status::Unknown, ip + " is on " + nic + ", whose port state is unknown", ev,
                   "read /sys/class/infiniband/" + at.device->name + "/ports/*/state");
  ev.push_back(at.port->state.evidence());
  if (at.port->state.value->find("ACTIVE") == std::string::npos)
    return problem("gds.rdma", ip, Status::Warning,
                   ip + " is on " + nic + ", which is not ACTIVE: cuFile cannot use it", ev,
                   "bring the port up (cable, switch port, subnet manager), or take the address out of the list");
  const Endpoint* n = nic_named(e.topology, at.device->name);
  if (!n || !e.has_gpus()) return ok("gds.rdma", ip, ip + " is on " + nic + " (ACTIVE)", ev);
  NearestGpus near = nearest_gpus(e.topology, *n);
  paths.add(n, near.gpus);
  ev.insert(ev.end(), near.evidence.begin(), near.evidence.end());
  if (near.gpus.empty())
    return problem("gds.rdma", ip, Status::Unknown,
                   ip + " is on " + nic + " (ACTIVE); where it sits against the GPUs is unknown", ev,
                   "read the node as root");
  if (near.best.path == SmiPath::SYS)
    return problem("gds.rdma", ip, Status::Warning,
                   ip + " is on " + nic +
                       " (ACTIVE), on another socket than every GPU (SYS): remote reads cross "
                       "the socket interconnect",
                   ev, "list a NIC of the GPUs' socket in rdma_dev_addr_list");
  return ok("gds.rdma", ip, ip + " is on " + nic + " (ACTIVE), nearest " + near.ids(), ev);
}

bool user_space_rdma_mounted(const GdsState& g) {
  if (!g.mounts) return false;
  for (const auto& m : g.mounts->mounts)
    if (m.fstype == "wekafs" || m.fstype == "gpfs") return true;
  return false;
}

}  // namespace

std::vector<Finding> check_gds_peermem(const NodeEvidence& e, const GdsState& g,
                                       const std::optional<CufileConfig>& config) {
  bool listed = config && !config->rdma_dev_addr_list.empty();
  if (!listed && !user_space_rdma_mounted(g)) return {};
  std::vector<Finding> out = check_peermem(e);
  for (auto& f : out) {
    f.check = "gds.peermem";
    if (config && config->rdma_peer_type == "dmabuf")
      f.evidence.push_back(config->file +
                           ": rdma_peer_type \"dmabuf\": cuFile registers GPU memory through DMA-BUF, "
                           "not nvidia-peermem");
  }
  return out;
}

std::vector<Finding> check_gds_rdma(const NodeEvidence& e, const GdsState& g, const std::optional<CufileConfig>& config,
                                    GdsPaths& paths) {
  if (!config || config->rdma_dev_addr_list.empty()) return {};
  std::vector<Finding> out;
  for (const auto& ip : config->rdma_dev_addr_list) out.push_back(judge(e, g, ip, config->file, paths));
  return out;
}

}  // namespace gdrcheck

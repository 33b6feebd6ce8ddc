// `gds.lnet`: the NICs a Lustre mount reads through. GDS on Lustre goes
// through nvidia-fs and LNet's kernel RDMA (o2ib); cuFile's own NIC list
// does not apply, LNet's network interfaces do. Each o2ib NI is tied to an
// RDMA port (by its NID's address, or the interface the `networks`
// parameter names) and judged like any storage NIC: ACTIVE, near the GPUs.
// LNet over TCP only means no RDMA at all for the mount.
#include "checks/gds_checks.h"
#include "checks/gds_paths.h"
#include "checks/storage_nic.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

const char* const kLnetFix =
    "configure an o2ib network on a NIC of the GPUs' socket (options lnet networks=o2ib0(ib0))";

bool lustre_mounted(const GdsState& g) {
  if (!g.mounts) return false;
  for (const auto& m : g.mounts->mounts)
    if (m.fstype == "lustre") return true;
  return false;
}

Finding from_nid(const NodeEvidence& e, const GdsState& g, const LnetNid& nid, GdsPaths& paths) {
  const std::string name = printable(nid.address + "@" + nid.net);
  std::vector<std::string> ev{g.lnet.nids_file + ": " + name};
  std::string not_rdma;
  StorageNic n = find_nic_by_address(e, g, nid.address, not_rdma);
  if (!n.device) {
    std::string why = !not_rdma.empty() ? " is on " + not_rdma + ", which has no RDMA device"
                      : g.addresses     ? " is not an address of this host's RDMA NICs"
                                        : ": no RoCE GID holds it and this root records no interface addresses";
    return problem(
        "gds.lnet", name, g.addresses ? Status::Warning : Status::Unknown, "LNet's NI " + name + why, ev,
        g.addresses ? std::string(kLnetFix) : "run gdrcheck gds on the node, or capture it with gdrcheck snapshot");
  }
  ev.push_back(n.how);
  return judge_storage_nic(e, "gds.lnet", name, "LNet's NI " + name + " is on ", *n.device, n.port, ev, kLnetFix,
                           paths);
}

Finding from_interface(const NodeEvidence& e, const GdsState& g, const InterfaceAddress& iface, GdsPaths& paths) {
  const std::string name = printable(iface.interface);
  std::vector<std::string> ev{g.lnet.networks.evidence()};
  StorageNic n = find_nic_by_interface(e, iface);
  if (!n.device)
    return problem("gds.lnet", name, Status::Warning, "LNet's o2ib interface " + name + " has no RDMA device", ev,
                   kLnetFix);
  ev.push_back(n.how);
  return judge_storage_nic(e, "gds.lnet", name, "LNet's o2ib interface " + name + " is on ", *n.device, n.port, ev,
                           kLnetFix, paths);
}

}  // namespace

std::vector<Finding> check_gds_lnet(const NodeEvidence& e, const GdsState& g, GdsPaths& paths) {
  if (!lustre_mounted(g)) return {};
  const LnetState& l = g.lnet;
  std::vector<Finding> out;
  if (l.nids) {
    std::vector<std::string> other;
    for (const auto& nid : *l.nids) {
      if (nid.net.rfind("o2ib", 0) == 0)
        out.push_back(from_nid(e, g, nid, paths));
      else if (nid.net != "lo")
        other.push_back(printable(nid.address + "@" + nid.net));
    }
    if (out.empty())
      out.push_back(problem("gds.lnet", "lnet", other.empty() ? Status::Unknown : Status::Warning,
                            other.empty() ? "LNet lists no network interface"
                                          : "LNet runs over TCP only (" + join(other, ", ") +
                                                "): Lustre reads use no RDMA NIC, so GDS cannot go direct on Lustre",
                            {l.nids_file + ": " + std::to_string(l.nids->size()) + " NIs"}, kLnetFix));
    return out;
  }
  for (const auto& iface : l.o2ib_interfaces) out.push_back(from_interface(e, g, iface, paths));
  if (out.empty())
    out.push_back(problem("gds.lnet", "lnet", Status::Unknown, "which NICs LNet reads Lustre through is unknown",
                          {printable(l.nids_file), l.networks.evidence()},
                          "read /sys/kernel/debug/lnet/nis as root (lnetctl net show)"));
  return out;
}

}  // namespace gdrcheck

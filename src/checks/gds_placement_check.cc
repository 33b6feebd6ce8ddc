// `gds.placement`: where each local NVMe drive sits against the GPUs
// (platform-spec §5.6): under the same PCIe switch (PIX/PXB) is the short
// path; through the CPU's root complex (PHB/NODE) works, slower, and
// nvidia-fs counts it as cross_root_port; across sockets (SYS) every read
// crosses the socket link. The GPUs with the shortest path are the ones the
// drive should feed; the paths go to checks/gds_paths.h for ACS, IOMMU and
// link.
#include <algorithm>

#include "checks/gds_checks.h"
#include "checks/gds_paths.h"
#include "host/text_format.h"
#include "topology/path_class.h"

namespace gdrcheck {
namespace {

const Endpoint* nvme_endpoint_at(const Topology& t, const PciAddress& a) {
  for (const auto& e : t.endpoints)
    if (e.role == DeviceRole::Nvme && e.address && *e.address == a) return &e;
  return nullptr;
}

std::string drive_words(const NvmeController& c) {
  std::string s = printable(c.name) + " (" + c.pci->str();
  if (!c.model.empty()) s += ", " + printable(c.model);
  return s + ")";
}

Finding place(const Topology& t, const NvmeController& c, GdsPaths& paths) {
  const Endpoint* d = nvme_endpoint_at(t, *c.pci);
  if (!d)
    return problem("gds.placement", printable(c.name), Status::Unknown,
                   drive_words(c) + " is not in the PCI tree read from this root", c.evidence,
                   "capture /sys/bus/pci/devices and /sys/devices with the root (gdrcheck snapshot)");
  NearestGpus n = nearest_gpus(t, *d);
  paths.add(d, n.gpus);
  std::vector<std::string> ev = c.evidence;
  ev.insert(ev.end(), n.evidence.begin(), n.evidence.end());
  if (n.gpus.empty()) {
    std::string why = d->path_unproven.empty() ? "no GPU path could be classed" : printable(d->path_unproven);
    return problem("gds.placement", printable(c.name), Status::Unknown,
                   "where " + drive_words(c) + " sits against the GPUs is unknown: " + why, ev,
                   "read the node as root, or capture it again with every /sys/bus/pci/devices/*/config");
  }
  const std::string feeds = n.ids();
  switch (n.best.path) {
    case SmiPath::PIX:
    case SmiPath::PXB:
      return ok("gds.placement", printable(c.name),
                drive_words(c) + " shares a PCIe switch with " + feeds + ": the direct path stays below the switch",
                ev);
    case SmiPath::PHB:
    case SmiPath::NODE:
      return ok("gds.placement", printable(c.name),
                drive_words(c) + " reaches its nearest GPUs " + feeds +
                    " through the CPU's root complex: direct, slower than under a switch (nvidia-fs counts it as "
                    "cross_root_port)",
                ev);
    default:
      return problem("gds.placement", printable(c.name), Status::Warning,
                     drive_words(c) + " is on another socket than every GPU (" + n.best.code() +
                         "): each direct read crosses the socket interconnect",
                     ev,
                     "read this drive from the GPUs of its own socket, or move it into a slot of the GPUs' socket "
                     "(below their PCIe switch is best)");
  }
}

}  // namespace

std::vector<Finding> check_gds_placement(const NodeEvidence& e, const GdsState& g, GdsPaths& paths) {
  if (!g.nvme_class_readable)
    return {problem("gds.placement", "host", Status::Unknown, "NVMe drives unknown: the root has no /sys/class",
                    {"/sys/class: not found"}, "capture the root with gdrcheck snapshot")};
  std::vector<Finding> out;
  int local = 0;
  for (const auto& c : g.nvme_controllers) {
    if (c.transport != "pcie") continue;  // NVMe-oF: the path is the NIC's
    ++local;
    if (!c.pci) {
      out.push_back(problem("gds.placement", printable(c.name), Status::Unknown,
                            printable(c.name) + ": its PCI function could not be read", c.evidence,
                            "read /sys/class/nvme/" + printable(c.name) + "/device on the node"));
      continue;
    }
    if (!e.has_gpus()) continue;
    out.push_back(place(e.topology, c, paths));
  }
  if (local == 0)
    return {ok("gds.placement", "host", "no local NVMe drive (/sys/class/nvme lists no PCIe controller)",
               {"/sys/class/nvme: " + std::to_string(g.nvme_controllers.size()) + " controllers"})};
  if (!e.has_gpus())
    out.push_back(problem("gds.placement", "host", Status::Unknown,
                          "the GPUs are not in the PCI tree read from this root: drive placement unknown",
                          {"topology: no GPU"}, "read the node as root, or capture it again with gdrcheck snapshot"));
  return out;
}

}  // namespace gdrcheck

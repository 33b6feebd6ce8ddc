// `gds.placement`: where each local NVMe drive sits against the GPUs
// (platform-spec §5.6): under the same PCIe switch (PIX/PXB) is the short
// path; through the CPU's root complex (PHB/NODE) works, slower, and
// nvidia-fs counts it as cross_root_port; across sockets (SYS) every read
// crosses the socket link. The GPUs with the shortest path are the ones the
// drive should feed. The node checks judge ACS, IOMMU and the PCIe links on
// those paths (ids gds.acs, gds.iommu, gds.link).
#include <algorithm>

#include "checks/gds_checks.h"
#include "host/text_format.h"
#include "topology/path_class.h"

namespace gdrcheck {
namespace {

const Endpoint* endpoint_at(const Topology& t, const PciAddress& a) {
  for (const auto& e : t.endpoints)
    if (e.role == DeviceRole::Nvme && e.address && *e.address == a) return &e;
  return nullptr;
}

std::string drive_words(const NvmeController& c) {
  std::string s = printable(c.name) + " (" + c.pci->str();
  if (!c.model.empty()) s += ", " + printable(c.model);
  return s + ")";
}

struct Nearest {
  SmiClass best;
  std::vector<const Endpoint*> gpus;
  std::vector<std::string> evidence;  // "GPU0 PXB: <rule>" per GPU
};

Nearest nearest_gpus(const Topology& t, const Endpoint& drive) {
  Nearest n;
  n.best.path = SmiPath::Unknown;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    SmiClass c = smi_class(t, *g, drive);
    n.evidence.push_back(g->id + " " + c.code() + ": " + printable(c.why));
    if (c.path == SmiPath::Unknown) continue;
    if (n.gpus.empty() || c.path < n.best.path) {
      n.best = c;
      n.gpus = {g};
    } else if (c.path == n.best.path) {
      n.gpus.push_back(g);
    }
  }
  return n;
}

Finding place(const Topology& t, const NvmeController& c, std::vector<EndpointPair>& pairs,
              std::vector<const Endpoint*>& drives) {
  const Endpoint* d = endpoint_at(t, *c.pci);
  if (!d)
    return problem("gds.placement", printable(c.name), Status::Unknown,
                   drive_words(c) + " is not in the PCI tree read from this root", c.evidence,
                   "capture /sys/bus/pci/devices and /sys/devices with the root (gdrcheck snapshot)");
  drives.push_back(d);
  Nearest n = nearest_gpus(t, *d);
  std::vector<std::string> ev = c.evidence;
  ev.insert(ev.end(), n.evidence.begin(), n.evidence.end());
  if (n.gpus.empty()) {
    std::string why = d->path_unproven.empty() ? "no GPU path could be classed" : printable(d->path_unproven);
    return problem("gds.placement", printable(c.name), Status::Unknown,
                   "where " + drive_words(c) + " sits against the GPUs is unknown: " + why, ev,
                   "read the node as root, or capture it again with every /sys/bus/pci/devices/*/config");
  }
  std::vector<std::string> ids;
  for (const Endpoint* g : n.gpus) {
    ids.push_back(g->id);
    pairs.push_back({g, d});
  }
  const std::string feeds = join(ids, ", ") + " (" + n.best.code() + ")";
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

// Node-check findings renamed into the gds family, with what they are about.
void as_gds(std::vector<Finding> found, const std::string& id, std::vector<Finding>& out) {
  for (auto& f : found) {
    f.check = id;
    out.push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> check_gds_placement(const NodeEvidence& e, const GdsState& g) {
  if (!g.nvme_class_readable)
    return {problem("gds.placement", "host", Status::Unknown, "NVMe drives unknown: the root has no /sys/class",
                    {"/sys/class: not found"}, "capture the root with gdrcheck snapshot")};
  std::vector<Finding> out;
  std::vector<EndpointPair> pairs;
  std::vector<const Endpoint*> drives;
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
    out.push_back(place(e.topology, c, pairs, drives));
  }
  if (local == 0)
    return {ok("gds.placement", "host", "no local NVMe drive (/sys/class/nvme lists no PCIe controller)",
               {"/sys/class/nvme: " + std::to_string(g.nvme_controllers.size()) + " controllers"})};
  if (!e.has_gpus())
    out.push_back(problem("gds.placement", "host", Status::Unknown,
                          "the GPUs are not in the PCI tree read from this root: drive placement unknown",
                          {"topology: no GPU"}, "read the node as root, or capture it again with gdrcheck snapshot"));
  as_gds(check_acs_between(e, pairs), "gds.acs", out);
  as_gds(check_iommu_of(e, drives), "gds.iommu", out);
  as_gds(check_link_of(e, drives), "gds.link", out);
  return out;
}

}  // namespace gdrcheck

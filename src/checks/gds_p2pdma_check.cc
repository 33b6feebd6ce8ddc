// `gds.p2pdma`: the prerequisites of the kernel PCI-P2PDMA route, judged
// when the cuFile configuration turns it on (platform-spec §5.5, from
// NVIDIA's GDS P2PDMA notes and gds-diag's kernel checks): a kernel with
// P2PDMA, the open NVIDIA kernel module 565 or newer, Ampere or newer GPUs,
// and on x86 NVMe multipath off and the driver's registry keys
// RMForceStaticBar1=1 and RmForceDisableIomapWC=1. A prerequisite missing
// sends the I/O back to nvidia-fs or compat mode: a WARNING each.
#include "checks/gds_checks.h"
#include "host/device_ids.h"
#include "host/driver_info.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

constexpr const char* kRegistryFix =
    "add options nvidia NVreg_RegistryDwords=\"RMForceStaticBar1=1;RmForceDisableIomapWC=1\" to "
    "/etc/modprobe.d/nvidia.conf, rebuild the initramfs and reboot";

Finding p2pdma_kernel(const P2pdmaState& s) {
  if (!s.kernel)
    return problem("gds.p2pdma", "kernel", Status::Unknown, "whether the kernel has PCI-P2PDMA is unknown",
                   {printable(s.kernel_evidence)}, "read /proc/kallsyms on the node (or capture the kernel's config)");
  if (!*s.kernel)
    return problem("gds.p2pdma", "kernel", Status::Warning, "the kernel has no PCI-P2PDMA support",
                   {printable(s.kernel_evidence)},
                   "boot a kernel built with CONFIG_PCI_P2PDMA=y (Ubuntu 6.2 and newer have it), or use nvidia-fs");
  return ok("gds.p2pdma", "kernel", "the kernel has PCI-P2PDMA", {printable(s.kernel_evidence)});
}

Finding driver(const HostState& h) {
  std::optional<NvidiaDriver> d;
  if (h.nvidia_version.value) d = parse_nvidia_version(*h.nvidia_version.value);
  if (!d)
    return problem(
        "gds.p2pdma", "driver", Status::Unknown, "the NVIDIA driver's version and flavour are unknown",
        {h.nvidia_version.value ? h.nvidia_version.path + ": not a driver banner" : h.nvidia_version.evidence()},
        "read /proc/driver/nvidia/version on the node");
  std::string what = printable(d->version) + (d->open_module ? " (open kernel module)" : " (proprietary module)");
  if (!d->open_module || d->major < 565)
    return problem("gds.p2pdma", "driver", Status::Warning,
                   "PCI-P2PDMA needs the open NVIDIA kernel module 565 or newer; this is " + what,
                   {h.nvidia_version.path + ": " + what}, "install the open kernel module (nvidia-open) 565 or newer");
  return ok("gds.p2pdma", "driver", "NVIDIA " + what, {h.nvidia_version.path + ": " + what});
}

std::vector<Finding> x86_keys(const P2pdmaState& s) {
  std::vector<Finding> out;
  if (s.x86 == false) return out;  // the rules below are x86's (Grace uses C2C)
  const std::string arch = s.x86 ? "" : " (architecture unknown: x86 rules applied)";
  if (!s.nvme_multipath.value)
    out.push_back(problem("gds.p2pdma", "multipath", Status::Unknown, "whether NVMe multipath is on is unknown" + arch,
                          {s.nvme_multipath.evidence()}, "read /sys/module/nvme_core/parameters/multipath"));
  else if (*s.nvme_multipath.value != "N")
    out.push_back(problem("gds.p2pdma", "multipath", Status::Warning,
                          "NVMe multipath is on: PCI-P2PDMA on x86 needs it off" + arch, {s.nvme_multipath.evidence()},
                          "boot with nvme_core.multipath=N"));
  else
    out.push_back(ok("gds.p2pdma", "multipath", "NVMe multipath off", {s.nvme_multipath.evidence()}));
  if (!s.registry.value)
    out.push_back(problem("gds.p2pdma", "registry", Status::Unknown,
                          "the NVIDIA driver's registry keys are unknown" + arch, {s.registry.evidence()},
                          "read /proc/driver/nvidia/params as root"));
  else if (s.registry.value->find("RMForceStaticBar1=1") == std::string::npos ||
           s.registry.value->find("RmForceDisableIomapWC=1") == std::string::npos)
    out.push_back(problem("gds.p2pdma", "registry", Status::Warning,
                          "the NVIDIA driver lacks RMForceStaticBar1=1 and RmForceDisableIomapWC=1, which PCI-P2PDMA "
                          "needs on x86" +
                              arch,
                          {s.registry.path + ": " + printable(*s.registry.value)}, kRegistryFix));
  else
    out.push_back(ok("gds.p2pdma", "registry", "RMForceStaticBar1=1 and RmForceDisableIomapWC=1 set",
                     {s.registry.path + ": " + printable(*s.registry.value)}));
  return out;
}

std::vector<Finding> gpus(const Topology& t) {
  std::vector<Finding> out;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    if (g->node < 0) continue;
    auto info = nvidia_gpu_info(t.nodes[g->node].device, g->model);
    if (info && info->sm > 0 && info->sm < 80)
      out.push_back(problem("gds.p2pdma", g->id, Status::Warning,
                            printable(info->family) + " is older than Ampere: PCI-P2PDMA supports A100, A40, L4, "
                                                      "L40S, H100, H200 and Blackwell GPUs",
                            {printable(g->model)}, "use nvidia-fs for this GPU"));
  }
  return out;
}

}  // namespace

std::vector<Finding> check_gds_p2pdma(const NodeEvidence& e, const GdsState& g,
                                      const std::optional<CufileConfig>& config) {
  if (!config || config->use_pci_p2pdma != true) return {};
  std::vector<Finding> out{p2pdma_kernel(g.p2pdma), driver(e.host)};
  auto keys = x86_keys(g.p2pdma);
  out.insert(out.end(), keys.begin(), keys.end());
  auto old = gpus(e.topology);
  out.insert(out.end(), old.begin(), old.end());
  return out;
}

}  // namespace gdrcheck

// `gds.driver`: the nvidia-fs kernel module GPUDirect Storage's nvfs routes
// need (NVMe, NVMe-oF, Lustre, NFS over RDMA, BeeGFS), the storage drivers
// that registered GDS DMA operations with it, and the bridges it found with
// ACS enabled (platform-spec §5.1).
#include <algorithm>

#include "checks/gds_checks.h"
#include "host/capture_extent.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

std::string backend_list(const std::vector<NvidiaFsBackend>& b) {
  std::vector<std::string> names;
  for (const auto& x : b) names.push_back(printable(x.name) + (x.version.empty() ? "" : " " + printable(x.version)));
  return join(names, ", ");
}

bool has_backend(const std::vector<NvidiaFsBackend>& b, const std::string& name) {
  return std::any_of(b.begin(), b.end(), [&](const NvidiaFsBackend& x) { return x.name == name; });
}

Finding not_loaded(const GdsState& g) {
  if (auto area = uncaptured_area(g.uncaptured, "/sys/module/nvidia_fs"))
    return problem("gds.driver", "host", Status::Unknown, "nvidia-fs not captured (the root has no " + *area + ")",
                   {not_captured_evidence(*area)}, copy_advice({*area, "/proc/driver"}));
  return problem("gds.driver", "host", Status::Warning,
                 "nvidia-fs is not loaded: cuFile I/O on NVMe, NVMe-oF, Lustre, NFS over RDMA and BeeGFS goes "
                 "through host memory (compat mode); the PCI-P2PDMA route and user-space RDMA file systems do not "
                 "need it",
                 {"/sys/module/nvidia_fs: not found"},
                 "load it (modprobe nvidia-fs; the nvidia-fs package of the GDS install), or set up the PCI-P2PDMA "
                 "route (docs/gds.md)");
}

}  // namespace

std::vector<Finding> check_gds_driver(const GdsState& g) {
  if (!g.nvidia_fs_loaded) return {not_loaded(g)};
  std::vector<Finding> out;
  std::vector<std::string> ev{g.module_version.evidence(), g.proc_version.evidence()};
  std::string version = g.module_version.value ? printable(*g.module_version.value) : "version unknown";
  if (!g.backends) {
    ev.push_back(g.backends_problem);
    out.push_back(problem("gds.driver", "host", Status::Unknown,
                          "nvidia-fs " + version + " loaded; which storage drivers registered with it is unknown", ev,
                          "read /proc/driver/nvidia-fs/modules as root (or capture it)"));
  } else if (g.backends->empty()) {
    ev.push_back("/proc/driver/nvidia-fs/modules: empty");
    out.push_back(problem(
        "gds.driver", "host", Status::Warning,
        "nvidia-fs " + version + " loaded but no storage driver registered GDS DMA operations: no nvfs route works", ev,
        "install the GDS-enabled storage drivers (MLNX_OFED/DOCA's nvme and nvme_rdma, or the "
        "file system client's GDS module) and reload them after nvidia-fs"));
  } else {
    ev.push_back("/proc/driver/nvidia-fs/modules: " + backend_list(*g.backends));
    if (!has_backend(*g.backends, "nvme"))
      out.push_back(problem("gds.driver", "host", Status::Warning,
                            "nvidia-fs " + version +
                                " loaded, but the NVMe driver did not register with it: local "
                                "NVMe goes through compat mode on the nvfs route",
                            ev,
                            "use the NVMe driver with GDS support (MLNX_OFED/DOCA nvme, or a kernel with it), or the "
                            "PCI-P2PDMA route"));
    else
      out.push_back(
          ok("gds.driver", "host", "nvidia-fs " + version + "; registered: " + backend_list(*g.backends), ev));
  }
  if (g.acs_bridges && !g.acs_bridges->empty()) {
    std::vector<std::string> bridges;
    for (const auto& b : *g.acs_bridges) bridges.push_back(printable(b));
    out.push_back(problem("gds.driver", "acs", Status::Warning,
                          std::to_string(bridges.size()) +
                              " PCI bridge(s) with ACS enabled, as nvidia-fs found them: peer-to-peer DMA between "
                              "drives and GPUs below them is redirected through the root complex",
                          {"/proc/driver/nvidia-fs/bridges: " + join(bridges, ", ")},
                          "disable ACS on those bridges (BIOS, or setpci at boot) on bare metal; see docs/gds.md"));
  }
  return out;
}

}  // namespace gdrcheck

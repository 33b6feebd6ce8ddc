// `driver`: NVIDIA driver version and flavour (open/proprietary), kernel
// release, and the RDMA kernel modules (mlx5_core, mlx5_ib, ib_uverbs).
#include <algorithm>

#include "checks/node_evidence.h"
#include "host/capture_extent.h"
#include "host/driver_info.h"

namespace gdrcheck {
namespace {

bool loaded(const HostState& h, const std::string& m) {
  return h.modules.count(m) && h.modules.at(m).loaded;
}

// Without the version file the driver is "not loaded" only when a part of
// the host that would show it was read and shows nothing: the procfs
// directory or the module list. A root that has neither says nothing.
Finding missing_version(const HostState& h, std::vector<std::string> ev) {
  auto proc_area = h.not_captured("/proc/driver/nvidia/version");
  if (proc_area) ev.push_back(not_captured_evidence(*proc_area));
  if (loaded(h, "nvidia"))
    return proc_area
               ? problem("driver", "nvidia", Status::Unknown,
                         "NVIDIA module loaded; its version was not captured (the root has no " + *proc_area + ")", ev,
                         copy_advice({"/proc/driver/nvidia/version"}))
               : problem("driver", "nvidia", Status::Unknown, "NVIDIA module loaded but its version file is unreadable",
                         ev, "check dmesg for why the NVIDIA driver did not initialise, and reload it");
  if (proc_area && !h.module_dir)
    return problem("driver", "nvidia", Status::Unknown,
                   "NVIDIA driver not captured: the root has neither " + *proc_area + " nor /sys/module", ev,
                   copy_advice({"/proc/driver/nvidia/version", "/sys/module"}));
  if (h.module_dir) ev.push_back("/sys/module/nvidia: absent");
  return problem("driver", "nvidia", Status::Critical, "NVIDIA driver not loaded", ev,
                 "install and load the NVIDIA data-center driver (modprobe nvidia); check dmesg");
}

Finding nvidia_driver(const NodeEvidence& e) {
  const HostState& h = e.host;
  std::vector<std::string> ev{h.nvidia_version.evidence()};
  if (h.modules.count("nvidia") && h.modules.at("nvidia").taint.known())
    ev.push_back(h.modules.at("nvidia").taint.evidence());
  if (!h.nvidia_version.known()) return missing_version(h, ev);
  auto d = parse_nvidia_version(*h.nvidia_version.value);
  if (!d)
    return problem("driver", "nvidia", Status::Unknown, "NVIDIA driver version text not understood", ev,
                   "report this /proc/driver/nvidia/version to the gdrcheck developers");
  return ok("driver", "nvidia",
            "NVIDIA driver " + d->version + (d->open_module ? " (open kernel module)" : " (proprietary kernel module)"),
            ev);
}

// The RDMA stack each NIC needs: its PCI driver (mlx5_core, mlx4_core),
// the matching verbs driver (mlx5_ib, mlx4_ib), ib_core and ib_uverbs.
std::vector<std::string> needed_modules(const NodeEvidence& e) {
  std::vector<std::string> need;
  auto add = [&need](const std::string& m) {
    if (std::find(need.begin(), need.end(), m) == need.end()) need.push_back(m);
  };
  for (const Endpoint* n : e.topology.with_role(DeviceRole::Nic)) {
    const PciFunctionState* f = e.function(*n);
    if (!f || !f->driver) continue;
    const std::string& d = *f->driver;
    if (d == "mlx5_core" || d == "mlx4_core") {
      add(d);
      add(d.substr(0, 4) + "_ib");
    }
  }
  if (need.empty()) return need;
  add("ib_core");
  add("ib_uverbs");
  return need;
}

Finding rdma_modules(const NodeEvidence& e) {
  const HostState& h = e.host;
  std::vector<std::string> need = needed_modules(e);
  if (need.empty())
    return ok("driver", "rdma", "no Mellanox/NVIDIA NIC driver bound: no mlx modules needed",
              {"no NIC function bound to mlx5_core or mlx4_core"});
  std::vector<std::string> ev, missing;
  if (!h.module_dir)
    return problem("driver", "rdma", Status::Unknown, "RDMA modules unknown: /sys/module not captured",
                   {not_captured_evidence("/sys/module")}, copy_advice({"/sys/module"}));
  for (const auto& m : need) {
    ev.push_back("/sys/module/" + m + (loaded(h, m) ? ": present" : ": absent"));
    if (!loaded(h, m)) missing.push_back(m);
  }
  std::string all, list;
  for (const auto& m : need) all += (all.empty() ? "" : ", ") + m;
  if (missing.empty()) return ok("driver", "rdma", all + " loaded", ev);
  for (const auto& m : missing) list += (list.empty() ? "" : " ") + m;
  return problem("driver", "rdma", Status::Critical, "RDMA modules missing: " + list, ev,
                 "modprobe -a " + list + " (or restart openibd with MLNX_OFED/DOCA)");
}

Finding kernel(const NodeEvidence& e) {
  const Fact& k = e.host.kernel_release;
  if (!k.known())
    return problem("driver", "kernel", Status::Unknown, "kernel release unknown", {k.evidence()},
                   copy_advice({"/proc/sys/kernel/osrelease"}));
  return ok("driver", "kernel", "Linux " + *k.value, {k.evidence()});
}

}  // namespace

std::vector<Finding> check_driver(const NodeEvidence& e) {
  std::vector<Finding> out{kernel(e)};
  if (e.has_gpus()) out.push_back(nvidia_driver(e));
  if (!e.topology.with_role(DeviceRole::Nic).empty()) out.push_back(rdma_modules(e));
  return out;
}

}  // namespace gdrcheck

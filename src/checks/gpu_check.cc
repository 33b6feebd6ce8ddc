// `gpu`: NVIDIA GPUs present, their model, NUMA node, driver binding and
// whether GPUDirect RDMA applies to them at all.
#include "checks/node_evidence.h"
#include "host/device_ids.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

std::string id_text(const PciNode& n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x:%04x", n.vendor, n.device);
  return buf;
}

// A GPU known from a topology file alone: its model decides; the driver
// binding is the `host` finding's (checks/host_assumptions.h).
Finding judged_without_driver(const Endpoint& gpu, const std::optional<GpuInfo>& info,
                              const std::vector<std::string>& ev) {
  if (!info)
    return problem("gpu", gpu.id, Status::Unknown,
                   "model not known from the topology file: GPUDirect capability not known", ev,
                   "use a topology that names the GPU (lstopo XML or NCCL's topology dump carry the PCI device ID)");
  std::string where = gpu.locality.known() ? "NUMA node " + std::to_string(gpu.locality.numa) : "NUMA node unknown";
  return ok(
      "gpu", gpu.id,
      info->family + " (sm " + std::to_string(info->sm / 10) + "." + std::to_string(info->sm % 10) + "), " + where, ev);
}

Finding check_one_gpu(const NodeEvidence& e, const Endpoint& gpu) {
  const PciNode& node = e.topology.nodes[gpu.node];
  std::vector<std::string> ev{"PCI " + gpu.address->str() + " [" + id_text(node) + "] " + gpu.model};
  const PciFunctionState* f = e.function(gpu);
  if (f) ev.push_back(f->numa_node.evidence());
  std::string driver = f && f->driver ? *f->driver : "";
  ev.push_back("driver: " + (e.topology_file_only ? std::string("not in a topology file")
                             : driver.empty()     ? std::string("none bound")
                                                  : driver));

  auto info = nvidia_gpu_info(node.device, gpu.model);
  if (info && !info->gdr_capable)
    // By design, not a fault: a WARNING, so a GeForce cluster is not drained.
    return problem("gpu", gpu.id, Status::Warning,
                   "GeForce/consumer GPU: CUDA reports no GPUDirect RDMA support (cudaDevAttrGPUDirectRDMASupported "
                   "= 0), so NCCL stages network traffic through host memory",
                   ev, "use a data-center or professional GPU where GPUDirect RDMA is needed");
  if (e.topology_file_only) return judged_without_driver(gpu, info, ev);
  if (driver == "vfio-pci")
    return problem("gpu", gpu.id, Status::Warning,
                   "bound to vfio-pci (passed through to a VM), not to the NVIDIA driver", ev,
                   "check this GPU inside the VM it is assigned to, or rebind it to the nvidia driver");
  if (driver.empty() || driver != "nvidia")
    return problem("gpu", gpu.id, Status::Critical, "not bound to the NVIDIA driver", ev,
                   "load the NVIDIA driver (modprobe nvidia) and check dmesg for errors on " + gpu.address->str());
  if (!info)
    return problem("gpu", gpu.id, Status::Unknown,
                   "NVIDIA device " + id_text(node) + " is not in gdrcheck's table: GPUDirect capability not known", ev,
                   "update gdrcheck; GPUDirect RDMA is supported on data-center and professional GPUs");
  std::string where = gpu.locality.known() ? "NUMA node " + std::to_string(gpu.locality.numa) : "NUMA node unknown";
  if (!gpu.locality.known() && e.topology.numa_count > 1)
    return problem("gpu", gpu.id, Status::Warning, info->family + ": NUMA locality unknown (numa_node -1)", ev,
                   "enable NUMA/SRAT (and ACPI _PXM) reporting in the BIOS so the kernel knows where the GPU attaches");
  return ok("gpu", gpu.id,
            info->family + " (sm " + std::to_string(info->sm / 10) + "." + std::to_string(info->sm % 10) + "), " +
                where + ", driver nvidia",
            ev);
}

// No GPU on the bus. With the NVIDIA driver loaded that is not a machine
// without GPUs but GPUs that fell off the bus (Xid 79) or were removed: the
// node cannot run GPU jobs, so it is CRITICAL and gets drained, not skipped.
Finding no_gpu(const HostState& h) {
  std::vector<std::string> ev{"no function with vendor 0x10de and class 0x0300/0x0302 under /sys/bus/pci/devices"};
  if (h.nvidia_driver_loaded) {
    ev.push_back("NVIDIA driver loaded: " +
                 std::string(h.nvidia_version.known() ? h.nvidia_version.path : "/sys/module/nvidia") + " present");
    return problem("gpu", "host", Status::Critical,
                   "NVIDIA driver loaded but no NVIDIA GPU on the PCI bus: the GPUs fell off the bus (Xid 79) or were "
                   "removed",
                   ev,
                   "look for Xid 79 / \"GPU has fallen off the bus\" in the kernel log (dmesg, journalctl -k); drain "
                   "the node, power-cycle it, and check the GPUs' power, seating and temperature");
  }
  return problem("gpu", "host", Status::Unknown, "no NVIDIA GPU found: nothing to check for GPUDirect RDMA", ev,
                 "run gdrcheck on a GPU node; if this is one, check that the GPUs are visible (lspci -d 10de:)");
}

}  // namespace

// GPUs of a pasted matrix: labels only, no device ID to tell the model.
Finding unnamed_gpus(const std::vector<std::string>& ids) {
  return problem("gpu", "host", Status::Unknown,
                 std::to_string(ids.size()) +
                     " GPUs without a model: a pasted matrix names none, so whether they "
                     "support GPUDirect RDMA is not known (data-center GPUs do)",
                 {"GPUs in the matrix: " + join(ids, ", ")},
                 "give the topology as lstopo XML or NCCL's topology dump (both carry the PCI device ID)");
}

std::vector<Finding> check_gpu(const NodeEvidence& e) {
  std::vector<Finding> out;
  std::vector<std::string> unnamed;
  for (const Endpoint* gpu : e.topology.with_role(DeviceRole::Gpu)) {
    if (gpu->node < 0 || !gpu->address) {
      if (e.topology_file_only) unnamed.push_back(gpu->id);
      continue;
    }
    out.push_back(check_one_gpu(e, *gpu));
  }
  if (!unnamed.empty()) out.push_back(unnamed_gpus(unnamed));
  if (out.empty()) out.push_back(no_gpu(e.host));
  return out;
}

}  // namespace gdrcheck

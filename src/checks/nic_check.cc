// `nic`: RDMA NICs — model and generation from the PCI device ID, PF or VF,
// firmware, and whether an RDMA device exists for the function.
#include "checks/node_evidence.h"
#include "host/capture_extent.h"
#include "host/device_ids.h"

namespace gdrcheck {
namespace {

std::string nic_model_of(const PciNode& n, const Endpoint& nic) {
  if (n.vendor == 0x15b3)
    if (auto info = mellanox_nic_info(n.device)) return info->model;
  std::string vendor = other_rdma_vendor(n.vendor);
  if (!vendor.empty()) return vendor;
  return nic.model.empty() ? "unknown NIC" : nic.model;
}

Finding check_one_nic(const NodeEvidence& e, const Endpoint& nic) {
  const PciNode& node = e.topology.nodes[nic.node];
  std::string model = nic_model_of(node, nic);
  const PciFunctionState* f = e.function(nic);
  bool vf = f && f->virtual_function;
  if (auto info = mellanox_nic_info(node.device); node.vendor == 0x15b3 && info) vf = vf || info->vf;
  std::vector<std::string> ev{"PCI " + nic.address->str() + " " + nic.model};
  if (f && f->driver) ev.push_back("driver: " + *f->driver);
  std::string kind = model + (vf ? " VF" : " PF");

  if (auto info = mellanox_nic_info(node.device); node.vendor == 0x15b3 && info && info->recovery_mode)
    return problem("nic", nic.name, Status::Critical, "ConnectX in flash-recovery mode (no usable firmware)", ev,
                   "reflash the firmware with mlxfwreset/flint (NVIDIA firmware tools) and reboot");
  if (e.topology_file_only) {
    std::string name = nic.rdma_device ? nic.name : nic.address->str();
    return ok("nic", name, kind + " (" + nic.address->str() + "); RDMA device and firmware not in a topology file", ev);
  }
  if (!nic.rdma_device && e.host.not_captured("/sys/class/infiniband")) {
    ev.push_back(not_captured_evidence("/sys/class/infiniband"));
    return problem("nic", nic.address->str(), Status::Unknown,
                   kind + ": RDMA devices not captured (the root has no /sys/class/infiniband)", ev,
                   copy_advice({"/sys/class/infiniband"}));
  }
  if (!nic.rdma_device)
    return problem("nic", nic.address->str(), Status::Critical, kind + " has no RDMA device in /sys/class/infiniband",
                   ev,
                   "load the RDMA driver (modprobe mlx5_ib; with MLNX_OFED/DOCA: /etc/init.d/openibd restart) and "
                   "check dmesg for mlx5_core errors");
  const RdmaDevice* d = e.rdma(nic.name);
  if (d) {
    ev.push_back(d->fw_ver.evidence());
    if (d->hca_type.known()) ev.push_back(d->hca_type.evidence());
  }
  std::string fw = d && d->fw_ver.known() ? ", firmware " + *d->fw_ver.value : ", firmware unknown";
  return ok("nic", nic.name, kind + " (" + nic.address->str() + ")" + fw, ev);
}

}  // namespace

std::vector<Finding> check_nic(const NodeEvidence& e) {
  std::vector<Finding> out;
  for (const Endpoint* nic : e.topology.with_role(DeviceRole::Nic)) {
    if (e.topology_file_only && (nic->node < 0 || !nic->address))  // a pasted matrix: a name at most
      out.push_back(ok("nic", nic->name, nic->id + " of the matrix; model, RDMA device and firmware not in it",
                       {nic->id + ": " + nic->name}));
    if (nic->node < 0 || !nic->address) continue;
    out.push_back(check_one_nic(e, *nic));
  }
  if (out.empty())
    out.push_back(problem(
        "nic", "host", e.has_gpus() ? Status::Critical : Status::Unknown,
        "no RDMA NIC: multi-node NCCL traffic falls back to TCP sockets",
        {"/sys/class/infiniband: " + std::string(e.host.rdma.empty() ? "no RDMA devices" : "no PCI RDMA devices")},
        "install the RDMA NIC drivers (mlx5_core, mlx5_ib, ib_uverbs) or check that the NICs are seated"));
  return out;
}

}  // namespace gdrcheck

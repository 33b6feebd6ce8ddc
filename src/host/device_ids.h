// What a PCI device ID says about a GPU or an RDMA NIC: family, compute
// capability, whether GPUDirect RDMA applies, NIC generation and top rate.
// Tables from platform-spec.md §4.3 and §7.1 (pci.ids).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gdrcheck {

struct GpuInfo {
  std::string family;  // "H100", "A100", "V100", "L40S", "GeForce"
  int sm = 0;          // compute capability major*10+minor (0 = unknown)
  // Data-center and professional parts support GPUDirect RDMA; GeForce
  // consumer parts do not.
  bool gdr_capable = true;
};

// nullopt for an NVIDIA device ID not in the table.
std::optional<GpuInfo> nvidia_gpu_info(uint16_t device_id, const std::string& pci_name = "");

// How a GPU model can reach other GPUs over NVLink, from its device ID.
//  Sxm:           an SXM module (V100 SXM2/SXM3, A100/A800 SXM4, H100/H800/H200
//                 SXM5, B200 ...): it only exists on an HGX/DGX baseboard,
//                 which always links its GPUs (directly or through NVSwitch).
//  BridgeCapable: a PCIe card with NVLink bridge connectors (A100 PCIe, H100
//                 PCIe/NVL, A40, RTX A6000, RTX 3090 ...): linked only when a
//                 bridge is fitted, which no file shows.
//  None:          the model has no NVLink at all (T4, L4, L40S, A10, RTX 4090 ...).
//  Unknown:       not in the table.
enum class NvLinkFormFactor { Unknown, Sxm, BridgeCapable, None };
const char* nvlink_form_factor_name(NvLinkFormFactor f);  // "unknown", "sxm", "pcie-bridge-capable", "no-nvlink"

// `pci_name` (pci.ids, "AD102 [GeForce RTX 4090]") decides for consumer parts
// not in the table: GeForce RTX 40 and 50 series have no NVLink connector.
NvLinkFormFactor nvlink_form_factor(uint16_t device_id, const std::string& pci_name = "");

struct NicInfo {
  std::string model;   // "ConnectX-7", "BlueField-3", "ConnectX-6 Dx"
  int generation = 0;  // ConnectX generation (3..10); for BlueField, that of its integrated ConnectX
  int bluefield = 0;   // 1..4 for BlueField integrated NICs
  bool vf = false;
  double max_rate_gbps = 0;    // fastest port rate the model supports (0 = unknown)
  bool recovery_mode = false;  // flash-recovery device IDs
};

// Mellanox/NVIDIA (0x15b3) RDMA functions; nullopt for unknown IDs.
std::optional<NicInfo> mellanox_nic_info(uint16_t device_id);

// Other RDMA NICs by vendor: "EFA" (0x1d0f), "bnxt_re" (0x14e4), "irdma" (0x8086),
// "qedr" (0x1077), "hfi1"/"qib" (QLogic/Intel). Empty when unknown.
std::string other_rdma_vendor(uint16_t vendor);

}  // namespace gdrcheck

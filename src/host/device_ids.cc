#include "host/device_ids.h"

#include <array>

namespace gdrcheck {
namespace {

struct GpuRow {
  uint16_t id;
  const char* family;
  int sm;
};

// Data-center NVIDIA GPUs (platform-spec §7.1).
constexpr GpuRow kGpus[] = {
    {0x1db1, "V100", 70},          {0x1db4, "V100", 70},  {0x1db5, "V100", 70},  {0x1db6, "V100", 70},
    {0x1db8, "V100", 70},          {0x1df6, "V100S", 70}, {0x1eb8, "T4", 75},    {0x20b0, "A100", 80},
    {0x20b1, "A100", 80},          {0x20f1, "A100", 80},  {0x20b2, "A100", 80},  {0x20b3, "A100", 80},
    {0x20b5, "A100", 80},          {0x20b8, "A100X", 80}, {0x20bd, "A800", 80},  {0x20f3, "A800", 80},
    {0x20f5, "A800", 80},          {0x20f6, "A800", 80},  {0x20b7, "A30", 80},   {0x2235, "A40", 86},
    {0x2236, "A10", 86},           {0x2330, "H100", 90},  {0x2331, "H100", 90},  {0x2321, "H100", 90},
    {0x2336, "H100", 90},          {0x2337, "H100", 90},  {0x2338, "H100", 90},  {0x2339, "H100", 90},
    {0x233d, "H100", 90},          {0x2313, "H100", 90},  {0x2322, "H800", 90},  {0x2324, "H800", 90},
    {0x233a, "H800", 90},          {0x2335, "H200", 90},  {0x233b, "H200", 90},  {0x2329, "H20", 90},
    {0x2328, "H20", 90},           {0x232c, "H20", 90},   {0x230e, "H20", 90},   {0x2342, "GH200", 90},
    {0x2348, "GH200", 90},         {0x2901, "B200", 100}, {0x2920, "B100", 100}, {0x29bc, "B100", 100},
    {0x2941, "GB200", 100},        {0x26b5, "L40", 89},   {0x26b9, "L40S", 89},  {0x26b7, "L20", 89},
    {0x26ba, "L20", 89},           {0x27b8, "L4", 89},    {0x27b6, "L2", 89},    {0x2bb1, "RTX PRO 6000", 120},
    {0x2bb5, "RTX PRO 6000", 120}, {0x15f8, "P100", 60},  {0x15f7, "P100", 60},  {0x15f9, "P100", 60},
};

struct FormFactorRow {
  uint16_t id;
  NvLinkFormFactor form;
};

// NVLink form factor by device ID. Names are pci.ids' (Debian 12 pciutils)
// or, marked [§7.1], platform-spec §7.1's for IDs newer than that file. The
// NVLink facts are from NVIDIA's product datasheets: SXM modules sit on
// HGX/DGX baseboards whose GPUs are always NVLink-connected; the PCIe cards
// listed as bridge-capable have NVLink bridge connectors (the V100 and P100
// PCIe cards have none: their datasheets give NVLink for the SXM2 versions
// only); the Ada and Blackwell workstation parts, T4, A10, A16 and A2 have
// no NVLink.
constexpr FormFactorRow kFormFactors[] = {
    // SXM modules.
    {0x15f9, NvLinkFormFactor::Sxm},  // GP100GL [Tesla P100 SXM2 16GB]
    {0x1db1, NvLinkFormFactor::Sxm},  // GV100GL [Tesla V100 SXM2 16GB]
    {0x1db5, NvLinkFormFactor::Sxm},  // GV100GL [Tesla V100 SXM2 32GB]
    {0x1db8, NvLinkFormFactor::Sxm},  // GV100GL [Tesla V100 SXM3 32GB] (DGX-2, NVSwitch)
    {0x1df5, NvLinkFormFactor::Sxm},  // GV100GL [Tesla V100 SXM2 16GB]
    {0x20b0, NvLinkFormFactor::Sxm},  // GA100 [A100 SXM4 40GB]
    {0x20b2, NvLinkFormFactor::Sxm},  // GA100 [A100 SXM4 80GB]
    {0x20b3, NvLinkFormFactor::Sxm},  // GA100 [A100-SXM-64GB]
    {0x20f3, NvLinkFormFactor::Sxm},  // GA100 [A800-SXM4-80GB]
    {0x2330, NvLinkFormFactor::Sxm},  // GH100 [H100 SXM5 80GB]
    {0x2339, NvLinkFormFactor::Sxm},  // GH100 [H100]: SXM5 94GB [§7.1]
    {0x2324, NvLinkFormFactor::Sxm},  // GH100 [H800]: the SXM5 part; the PCIe card is 0x2322
    {0x2335, NvLinkFormFactor::Sxm},  // H200 SXM 141GB [§7.1]
    {0x2901, NvLinkFormFactor::Sxm},  // B200 [§7.1]: HGX B200 baseboards only
    {0x2941, NvLinkFormFactor::Sxm},  // HGX GB200 [§7.1]: superchip boards, NVLink to the switch trays
    // PCIe cards with NVLink bridge connectors.
    {0x1dba, NvLinkFormFactor::BridgeCapable},  // GV100GL [Quadro GV100]
    {0x20b1, NvLinkFormFactor::BridgeCapable},  // GA100 [A100 PCIe 40GB]
    {0x20f1, NvLinkFormFactor::BridgeCapable},  // GA100 [A100 PCIe 40GB]
    {0x20b5, NvLinkFormFactor::BridgeCapable},  // GA100 [A100 PCIe 80GB]
    {0x20f5, NvLinkFormFactor::BridgeCapable},  // GA100 [A800 80GB PCIe]
    {0x20f6, NvLinkFormFactor::BridgeCapable},  // GA100 [A800 40GB PCIe]
    {0x20b7, NvLinkFormFactor::BridgeCapable},  // GA100GL [A30 PCIe]
    {0x2235, NvLinkFormFactor::BridgeCapable},  // GA102GL [A40]
    {0x2230, NvLinkFormFactor::BridgeCapable},  // GA102GL [RTX A6000]
    {0x2231, NvLinkFormFactor::BridgeCapable},  // GA102GL [RTX A5000]
    {0x2233, NvLinkFormFactor::BridgeCapable},  // GA102GL [RTX A5500]
    {0x2232, NvLinkFormFactor::BridgeCapable},  // GA102GL [RTX A4500]
    {0x2204, NvLinkFormFactor::BridgeCapable},  // GA102 [GeForce RTX 3090]
    {0x2203, NvLinkFormFactor::BridgeCapable},  // GA102 [GeForce RTX 3090 Ti]
    {0x2331, NvLinkFormFactor::BridgeCapable},  // GH100 [H100 PCIe]
    {0x2321, NvLinkFormFactor::BridgeCapable},  // GH100: H100L 94GB [§7.1], the H100 NVL card
    {0x2322, NvLinkFormFactor::BridgeCapable},  // GH100 [H800 PCIe]
    {0x233b, NvLinkFormFactor::BridgeCapable},  // H200 NVL [§7.1]
    // No NVLink.
    {0x15f7, NvLinkFormFactor::None},  // GP100GL [Tesla P100 PCIe 12GB]
    {0x15f8, NvLinkFormFactor::None},  // GP100GL [Tesla P100 PCIe 16GB]
    {0x1db4, NvLinkFormFactor::None},  // GV100GL [Tesla V100 PCIe 16GB]
    {0x1db6, NvLinkFormFactor::None},  // GV100GL [Tesla V100 PCIe 32GB]
    {0x1df6, NvLinkFormFactor::None},  // GV100GL [Tesla V100S PCIe 32GB]
    {0x1eb8, NvLinkFormFactor::None},  // TU104GL [Tesla T4]
    {0x2236, NvLinkFormFactor::None},  // GA102GL [A10]
    {0x2237, NvLinkFormFactor::None},  // GA102GL [A10G]
    {0x25b6, NvLinkFormFactor::None},  // GA107GL [A2 / A16]
    {0x26b1, NvLinkFormFactor::None},  // AD102GL [L6000 / RTX 6000 Ada Generation]
    {0x26b5, NvLinkFormFactor::None},  // AD102GL [L40]
    {0x26b9, NvLinkFormFactor::None},  // L40S [§7.1]
    {0x26b7, NvLinkFormFactor::None},  // L20 [§7.1]
    {0x26ba, NvLinkFormFactor::None},  // L20 [§7.1]
    {0x27b8, NvLinkFormFactor::None},  // AD104GL [L4]
    {0x27b6, NvLinkFormFactor::None},  // L2 [§7.1]
    {0x2684, NvLinkFormFactor::None},  // AD102 [GeForce RTX 4090]
    {0x2bb1, NvLinkFormFactor::None},  // RTX PRO 6000 Blackwell (WS) [§7.1]
    {0x2bb5, NvLinkFormFactor::None},  // RTX PRO 6000 Blackwell (Server) [§7.1]
};

struct NicRow {
  uint16_t id;
  const char* model;
  int generation;
  int bluefield;
  bool vf;
  double max_rate;
};

// Mellanox/NVIDIA functions (platform-spec §4.3); top port rates per model.
constexpr NicRow kNics[] = {
    {0x1003, "ConnectX-3", 3, 0, false, 56},     {0x1007, "ConnectX-3 Pro", 3, 0, false, 56},
    {0x1013, "ConnectX-4", 4, 0, false, 100},    {0x1014, "ConnectX-4 VF", 4, 0, true, 100},
    {0x1015, "ConnectX-4 Lx", 4, 0, false, 50},  {0x1016, "ConnectX-4 Lx VF", 4, 0, true, 50},
    {0x1017, "ConnectX-5", 5, 0, false, 100},    {0x1018, "ConnectX-5 VF", 5, 0, true, 100},
    {0x1019, "ConnectX-5 Ex", 5, 0, false, 100}, {0x101a, "ConnectX-5 Ex VF", 5, 0, true, 100},
    {0x101b, "ConnectX-6", 6, 0, false, 200},    {0x101c, "ConnectX-6 VF", 6, 0, true, 200},
    {0x101d, "ConnectX-6 Dx", 6, 0, false, 200}, {0x101e, "ConnectX VF (mlx5Gen)", 0, 0, true, 0},
    {0x101f, "ConnectX-6 Lx", 6, 0, false, 50},  {0x1021, "ConnectX-7", 7, 0, false, 400},
    {0x1023, "ConnectX-8", 8, 0, false, 800},    {0x1025, "ConnectX-9", 9, 0, false, 1600},
    {0x1027, "ConnectX-10", 10, 0, false, 0},    {0xa2d2, "BlueField", 5, 1, false, 100},
    {0xa2d3, "BlueField VF", 5, 1, true, 100},   {0xa2d6, "BlueField-2", 6, 2, false, 200},
    {0xa2dc, "BlueField-3", 7, 3, false, 400},   {0xa2df, "BlueField-4", 8, 4, false, 800},
};

}  // namespace

std::optional<GpuInfo> nvidia_gpu_info(uint16_t device_id, const std::string& pci_name) {
  for (const auto& g : kGpus)
    if (g.id == device_id) return GpuInfo{g.family, g.sm, true};
  // Consumer parts are too many to list; pci.ids names them GeForce.
  if (pci_name.find("GeForce") != std::string::npos) return GpuInfo{"GeForce", 0, false};
  return std::nullopt;
}

const char* nvlink_form_factor_name(NvLinkFormFactor f) {
  switch (f) {
    case NvLinkFormFactor::Unknown:
      return "unknown";
    case NvLinkFormFactor::Sxm:
      return "sxm";
    case NvLinkFormFactor::BridgeCapable:
      return "pcie-bridge-capable";
    case NvLinkFormFactor::None:
      return "no-nvlink";
  }
  return "unknown";
}

NvLinkFormFactor nvlink_form_factor(uint16_t device_id, const std::string& pci_name) {
  for (const auto& f : kFormFactors)
    if (f.id == device_id) return f.form;
  // The connector was dropped after the RTX 30 series.
  for (const char* series : {"GeForce RTX 40", "GeForce RTX 50"})
    if (pci_name.find(series) != std::string::npos) return NvLinkFormFactor::None;
  return NvLinkFormFactor::Unknown;
}

std::optional<NicInfo> mellanox_nic_info(uint16_t device_id) {
  if (device_id >= 0x0209 && device_id <= 0x0229) {
    NicInfo info;
    info.model = "ConnectX in flash-recovery mode";
    info.recovery_mode = true;
    return info;
  }
  for (const auto& n : kNics)
    if (n.id == device_id) return NicInfo{n.model, n.generation, n.bluefield, n.vf, n.max_rate, false};
  return std::nullopt;
}

std::string other_rdma_vendor(uint16_t vendor) {
  switch (vendor) {
    case 0x1d0f:
      return "AWS EFA";
    case 0x14e4:
      return "Broadcom (bnxt_re)";
    case 0x8086:
      return "Intel (irdma)";
    case 0x1077:
      return "QLogic/Marvell";
    case 0x1fc1:
      return "QLogic (qib)";
    case 0x19e5:
      return "Huawei (hns)";
    default:
      return "";
  }
}

}  // namespace gdrcheck

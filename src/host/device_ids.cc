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

// Pieces of NIC choice that stand alone: NCCL's PCIe bandwidth figure
// (src/graph/topo.cc:ncclTopoAddPci, kvDictPciGen) and which settings
// remove NVLink paths (src/graph/paths.cc:ncclGetLevel). The choice itself
// is exercised end to end in gdr_predict_test.cc; here only what tells a
// path from NVLink as the reason it stays undecided.
#include "nccl/net_choice.h"

#include <gtest/gtest.h>

#include "gdr_predict_fixtures.h"

namespace gdrcheck {
namespace {

PciLink link(double max_gts, int max_width, double cur_gts, int cur_width) {
  PciLink l;
  l.max_gts = max_gts;
  l.max_width = max_width;
  l.current_gts = cur_gts;
  l.current_width = cur_width;
  return l;
}

TEST(NetChoice, PcieBandwidthFollowsNcclsTable) {
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(link(16, 16, 16, 16), false), 24.0);  // Gen4 x16: 16 × 120 / 80
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(link(32, 16, 32, 16), false), 48.0);  // Gen5 x16
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(link(8, 16, 8, 16), false), 12.0);    // Gen3 x16
}

// 2.30.7 takes NVML's current generation and width for GPUs; earlier
// releases the maximum (src/graph/xml.cc:ncclTopoGetXmlFromSys).
TEST(NetChoice, CurrentLinkOnlyWhenAsked) {
  PciLink idle = link(32, 16, 2.5, 8);
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(idle, false), 48.0);
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(idle, true), 8 * 15 / 80.0);
}

TEST(NetChoice, UnknownLinkIsZero) {
  EXPECT_DOUBLE_EQ(nccl_pcie_bw(PciLink{}, false), 0.0);
}

TEST(NetChoice, P2pSettingsThatRemoveNvlinkPaths) {
  EXPECT_TRUE(nvlink_paths_kept({}));
  EXPECT_FALSE(nvlink_paths_kept(merge_nccl_settings({{{"NCCL_P2P_DISABLE", "1", "--env"}}})));
  EXPECT_FALSE(nvlink_paths_kept(merge_nccl_settings({{{"NCCL_P2P_LEVEL", "LOC", "--env"}}})));
  EXPECT_TRUE(nvlink_paths_kept(merge_nccl_settings({{{"NCCL_P2P_LEVEL", "NVL", "--env"}}})));
  EXPECT_TRUE(nvlink_paths_kept(merge_nccl_settings({{{"NCCL_P2P_DISABLE", "0", "--env"}}})));
}

// ---- what left the choice undecided ---------------------------------------------

struct Chooser {
  predict_testing::Topo b;
  std::vector<NcclNet> nets;
  std::map<std::string, GpuFacts> facts;
  NcclSettings settings;

  // Every NIC as a 200 Gb/s device; `nets` must outlive the routes.
  NetChoice choose() {
    nets.clear();
    for (const Endpoint* n : b.t.with_role(DeviceRole::Nic)) nets.push_back({n->name, n->id, 1, 200, true});
    std::vector<const Endpoint*> gpus = b.t.with_role(DeviceRole::Gpu);
    NcclVersion version = NcclVersion::newest();
    NetChoiceInput in{b.t, gpus, facts, settings, version, nullptr};
    return choose_net(in, b.ep("GPU0"), nets);
  }
};

// CPU0 ─ {switch ─ {GPU0, NIC1 mlx5_1}, switch ─ NIC0 mlx5_0}: the PIX NIC
// wins when every path is proven.
Chooser pix_beside_phb() {
  Chooser c;
  int cpu = c.b.cpu(0);
  int s = c.b.sw(cpu);
  c.b.gpu(s);
  c.b.nic(c.b.sw(cpu), "mlx5_0");
  c.b.nic(s, "mlx5_1");
  c.facts["GPU0"].nvlink = Tri::No;
  return c;
}

TEST(NetChoiceUndecided, ProvenPathsDecide) {
  Chooser c = pix_beside_phb();
  NetChoice ch = c.choose();
  EXPECT_EQ(ch.certain, Tri::Yes);
  EXPECT_FALSE(ch.path_unknown);
  EXPECT_EQ(ch.path_why, "");
  ASSERT_FALSE(ch.local.empty());
  EXPECT_EQ(ch.local.front().nic->id, "NIC1");
}

TEST(NetChoiceUndecided, UnprovenCloserNicIsAPathReason) {
  Chooser c = pix_beside_phb();
  c.b.ep("NIC1").path_unproven = "PCIe path of NIC1 not proven: bridge config unreadable";
  NetChoice ch = c.choose();
  EXPECT_EQ(ch.certain, Tri::Unknown);
  EXPECT_TRUE(ch.path_unknown);
  EXPECT_EQ(ch.path_why, "PCIe path of NIC1 not proven: bridge config unreadable");
}

TEST(NetChoiceUndecided, EveryPathUnknownIsAPathReason) {
  Chooser c = pix_beside_phb();
  c.b.ep("GPU0").path_unproven = "PCIe path of GPU0 not proven: config not found";
  NetChoice ch = c.choose();
  EXPECT_EQ(ch.certain, Tri::Unknown);
  EXPECT_TRUE(ch.path_unknown);
  EXPECT_EQ(ch.path_why, "PCIe path of GPU0 not proven: config not found");
}

// Control bytes in a reason are never passed on raw.
TEST(NetChoiceUndecided, ReasonIsPrintable) {
  Chooser c = pix_beside_phb();
  c.b.ep("GPU0").path_unproven = "lost \x1b]0;pwn\x07 bridge";
  NetChoice ch = c.choose();
  EXPECT_TRUE(ch.path_unknown);
  EXPECT_EQ(ch.path_why.find('\x1b'), std::string::npos) << ch.path_why;
}

// NVLink unknown with only a PHB NIC: PXN could change the choice, but no
// path is at fault.
TEST(NetChoiceUndecided, UnknownNvlinkIsNotAPathReason) {
  Chooser c;
  int cpu = c.b.cpu(0);
  c.b.gpu(c.b.sw(cpu));
  c.b.gpu(c.b.sw(cpu));
  c.b.nic(c.b.sw(cpu), "mlx5_0");
  c.facts["GPU0"].nvlink = Tri::Unknown;
  c.facts["GPU1"].nvlink = Tri::Unknown;
  NetChoice ch = c.choose();
  EXPECT_EQ(ch.certain, Tri::Unknown);
  EXPECT_FALSE(ch.path_unknown);
  EXPECT_EQ(ch.path_why, "");
}

// A peer GPU whose path to the NIC is unproven may carry this GPU's traffic
// through PXN: a path, not NVLink, leaves it open.
TEST(NetChoiceUndecided, UnprovenPeerPathIsAPathReason) {
  Chooser c;
  int cpu = c.b.cpu(0);
  int s = c.b.sw(cpu);
  c.b.gpu(c.b.sw(cpu));
  c.b.gpu(s);
  c.b.nic(s, "mlx5_0");
  c.b.nvlink("GPU0", "GPU1");
  c.b.ep("GPU1").path_unproven = "PCIe path of GPU1 not proven: lost bridge";
  NetChoice ch = c.choose();
  EXPECT_EQ(ch.certain, Tri::Unknown);
  EXPECT_TRUE(ch.path_unknown);
  EXPECT_EQ(ch.path_why, "PCIe path of GPU1 not proven: lost bridge");
}

}  // namespace
}  // namespace gdrcheck

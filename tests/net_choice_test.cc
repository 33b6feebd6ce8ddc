// Pieces of NIC choice that stand alone: NCCL's PCIe bandwidth figure
// (src/graph/topo.cc:ncclTopoAddPci, kvDictPciGen) and which settings
// remove NVLink paths (src/graph/paths.cc:ncclGetLevel). The choice itself
// is exercised end to end in gdr_predict_test.cc.
#include "nccl/net_choice.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gdrcheck

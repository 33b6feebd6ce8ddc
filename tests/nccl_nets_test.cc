// The devices NCCL's IB transport enumerates
// (src/transport/net_ib/init.cc:ncclIbInitDevices@v2.30.7-1,
// src/transport/net_ib.cc:ncclIbInit@v2.12.12-1) and how ports of one
// adapter fuse (2.20.3+).
#include "nccl/nccl_nets.h"

#include <gtest/gtest.h>

#include "nccl_versions.h"

namespace gdrcheck {
namespace {

using testing::nccl_version;

// NICs NIC0.. at 0000:<bus>:00.<fn>.
Topology nics(std::vector<std::pair<int, int>> bus_fn) {
  Topology t;
  t.tree = TreeStyle::Switches;
  int i = 0;
  for (auto [bus, fn] : bus_fn) {
    Endpoint e;
    e.id = "NIC" + std::to_string(i);
    e.role = DeviceRole::Nic;
    e.name = "mlx5_" + std::to_string(i++);
    e.address = PciAddress{0, static_cast<uint8_t>(bus), 0, static_cast<uint8_t>(fn)};
    t.endpoints.push_back(e);
  }
  return t;
}

NicPortFacts port(const std::string& nic_id, const std::string& dev, const std::string& state = "ACTIVE",
                  const std::string& layer = "InfiniBand", Tri uverbs = Tri::Yes, double gbps = 400) {
  return {nic_id, dev, 1, uverbs, state, layer, gbps};
}

std::vector<std::string> names(const NcclNetList& l) {
  std::vector<std::string> out;
  for (const auto& n : l.nets) out.push_back(n.name);
  return out;
}

TEST(NcclNets, ActiveIbAndRocePortsAreOffered) {
  Topology t = nics({{0x18, 0}, {0x29, 0}});
  auto l = nccl_nets(t, std::vector{port("NIC0", "mlx5_0"), port("NIC1", "mlx5_1", "ACTIVE", "Ethernet")}, {},
                     nccl_version("2.30.7"));
  EXPECT_EQ(names(l), (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_TRUE(l.left_out.empty());
}

TEST(NcclNets, PortsThatAreNotActiveAreSkippedWithTheReason) {
  Topology t = nics({{0x18, 0}, {0x29, 0}, {0x3a, 0}});
  auto l =
      nccl_nets(t, std::vector{port("NIC0", "mlx5_0", "DOWN"), port("NIC1", "mlx5_1", "INIT"), port("NIC2", "mlx5_2")},
                {}, nccl_version("2.18.6"));
  EXPECT_EQ(names(l), (std::vector<std::string>{"mlx5_2"}));
  EXPECT_EQ(l.left_out.at("NIC0"), "mlx5_0 port 1 DOWN: NCCL skips ports that are not ACTIVE");
  EXPECT_NE(l.left_out.at("NIC1").find("INIT"), std::string::npos);
}

TEST(NcclNets, NoUverbsMeansIbverbsListsNothing) {
  Topology t = nics({{0x18, 0}});
  auto l =
      nccl_nets(t, std::vector{port("NIC0", "mlx5_0", "ACTIVE", "InfiniBand", Tri::No)}, {}, nccl_version("2.30.7"));
  EXPECT_TRUE(l.nets.empty());
  EXPECT_NE(l.left_out.at("NIC0").find("ib_uverbs not loaded"), std::string::npos);
}

// EFA reports no link layer NCCL's IB transport accepts (it goes through
// the aws-ofi-nccl plugin instead).
TEST(NcclNets, OtherLinkLayersAreNotTheIbTransports) {
  Topology t = nics({{0x18, 0}});
  auto l = nccl_nets(t, std::vector{port("NIC0", "rdmap16s27", "ACTIVE", "Unspecified")}, {}, nccl_version("2.30.7"));
  EXPECT_TRUE(l.nets.empty());
  EXPECT_NE(l.left_out.at("NIC0").find("only InfiniBand and Ethernet"), std::string::npos);
}

TEST(NcclNets, UnreadableStateIsAssumedUsableAndSaid) {
  Topology t = nics({{0x18, 0}});
  auto l = nccl_nets(t, std::vector{port("NIC0", "mlx5_0", "", "", Tri::Unknown)}, {}, nccl_version("2.30.7"));
  ASSERT_EQ(l.nets.size(), 1u);
  EXPECT_FALSE(l.nets[0].facts_known);
  ASSERT_FALSE(l.rules.empty());
  EXPECT_NE(l.rules.back().find("assumed usable"), std::string::npos);
}

TEST(NcclNets, WithoutPortFactsEveryRdmaNicIsAssumedActive) {
  Topology t = nics({{0x18, 0}, {0x29, 0}});
  t.endpoints[1].rdma_device = false;
  auto l = nccl_nets(t, std::nullopt, {}, nccl_version("2.30.7"));
  EXPECT_EQ(names(l), (std::vector<std::string>{"mlx5_0"}));
  EXPECT_NE(l.rules.front().find("port states not known"), std::string::npos);
}

TEST(NcclNets, IbHcaFiltersAfterTheStateChecks) {
  Topology t = nics({{0x18, 0}, {0x29, 0}});
  NcclSettings st = merge_nccl_settings({{{"NCCL_IB_HCA", "=mlx5_1", "--env"}}});
  auto l = nccl_nets(t, std::vector{port("NIC0", "mlx5_0"), port("NIC1", "mlx5_1")}, st, nccl_version("2.30.7"));
  EXPECT_EQ(names(l), (std::vector<std::string>{"mlx5_1"}));
  EXPECT_NE(l.left_out.at("NIC0").find("not selected by NCCL_IB_HCA==mlx5_1"), std::string::npos);
}

// ncclIbFindMatchingDev@v2.20.5-1; ncclTopoAutoMerge@v2.24.3-1 (level PORT).
TEST(NcclNets, PortsOfOneAdapterFuseFrom2203) {
  Topology t = nics({{0x18, 0}, {0x18, 1}});
  std::vector ports{port("NIC0", "mlx5_0", "ACTIVE", "InfiniBand", Tri::Yes, 200),
                    port("NIC1", "mlx5_1", "ACTIVE", "InfiniBand", Tri::Yes, 200)};
  EXPECT_EQ(names(nccl_nets(t, ports, {}, nccl_version("2.19.4"))), (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  auto fused = nccl_nets(t, ports, {}, nccl_version("2.20.5"));
  ASSERT_EQ(names(fused), (std::vector<std::string>{"mlx5_0+mlx5_1"}));
  EXPECT_DOUBLE_EQ(fused.nets[0].gbps, 400);
  EXPECT_EQ(names(nccl_nets(t, ports, {}, nccl_version("2.30.7"))), (std::vector<std::string>{"mlx5_0+mlx5_1"}));
}

TEST(NcclNets, MergingTurnedOffBySettings) {
  Topology t = nics({{0x18, 0}, {0x18, 1}});
  std::vector ports{port("NIC0", "mlx5_0"), port("NIC1", "mlx5_1")};
  auto off = merge_nccl_settings({{{"NCCL_IB_MERGE_NICS", "0", "--env"}}});
  EXPECT_EQ(nccl_nets(t, ports, off, nccl_version("2.21.5")).nets.size(), 2u);
  auto loc = merge_nccl_settings({{{"NCCL_NET_MERGE_LEVEL", "LOC", "--env"}}});
  EXPECT_EQ(nccl_nets(t, ports, loc, nccl_version("2.26.6")).nets.size(), 2u);
  auto dump = merge_nccl_settings({{{"NCCL_TOPO_DUMP_FILE", "/tmp/t.xml", "--env"}}});
  EXPECT_EQ(nccl_nets(t, ports, dump, nccl_version("2.26.6")).nets.size(), 2u);
  EXPECT_EQ(nccl_nets(t, ports, dump, nccl_version("2.21.5")).nets.size(), 1u);  // the dump rule came with 2.24.3
}

// ncclIbInit@v2.22.3-1: single- and multi-port adapters together → no merging.
TEST(NcclNets, MixedAdaptersStaySeparateIn2223To2234) {
  Topology t = nics({{0x18, 0}, {0x18, 1}, {0x29, 0}});
  std::vector ports{port("NIC0", "mlx5_0"), port("NIC1", "mlx5_1"), port("NIC2", "mlx5_2")};
  EXPECT_EQ(nccl_nets(t, ports, {}, nccl_version("2.23.4")).nets.size(), 3u);
  EXPECT_EQ(nccl_nets(t, ports, {}, nccl_version("2.21.5")).nets.size(), 2u);
  EXPECT_EQ(nccl_nets(t, ports, {}, nccl_version("2.24.3")).nets.size(), 2u);
}

TEST(NcclNets, HostileDeviceNamesArePrintedSafely) {
  Topology t = nics({{0x18, 0}});
  auto l = nccl_nets(t, std::vector{port("NIC0", "mlx5_0\x1b[31m", "DOWN")}, {}, nccl_version("2.30.7"));
  EXPECT_EQ(l.left_out.at("NIC0").find('\x1b'), std::string::npos);
  EXPECT_NE(l.left_out.at("NIC0").find("\\x1b"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

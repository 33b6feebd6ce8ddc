// Tests for reading NIC rates from NCCL log messages (nccl_net_speed.h
// names the forms and where NCCL prints them). The topology line is from a
// real log (tests/data/nccl-logs/nccl-1053-socket-ib-disabled-lo.log,
// line 13: lo at NCCL's 10 Gb/s default, printed as 1.25 GB/s); the IB
// lines follow NCCL's format strings with the values of a 400G NDR port.
#include "evidence/nccl_net_speed.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(NcclNetSpeed, PerDeviceLine227) {
  auto s = parse_nccl_net_speed(
      "NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x55d0c8a0 pciPath=/sys/devices/"
      "pci0000:00/0000:00:01.0/0000:0c:00.0 ar=1");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "mlx5_0");
  EXPECT_EQ(s->port, 1);
  EXPECT_EQ(s->link_layer, "IB");
  EXPECT_DOUBLE_EQ(s->speed_mbps, 400000);
  auto roce = parse_nccl_net_speed("NET/IB: [3] mlx5_3:uverbs3:1/RoCE provider=Mlx5 speed=200000 context=0x1 ar=0");
  ASSERT_TRUE(roce);
  EXPECT_EQ(roce->link_layer, "RoCE");
  EXPECT_DOUBLE_EQ(roce->speed_mbps, 200000);
}

TEST(NcclNetSpeed, VirtualDevice) {
  auto s = parse_nccl_net_speed("NET/IB : Made virtual device [0] name=mlx5_0 speed=400000 ndevs=1");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "mlx5_0");
  EXPECT_FALSE(s->port);
  EXPECT_EQ(s->link_layer, "");
  EXPECT_DOUBLE_EQ(s->speed_mbps, 400000);
  auto merged = parse_nccl_net_speed("NET/IB : Made virtual device [8] name=mlx5_0+mlx5_1 speed=800000 ndevs=2");
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->name, "mlx5_0+mlx5_1");
  EXPECT_DOUBLE_EQ(merged->speed_mbps, 800000);
}

TEST(NcclNetSpeed, TopologyDumpInGBps) {
  auto s = parse_nccl_net_speed("+ NET[1.2] - NET/0 (0/0/1.250000)");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "NET/0");
  EXPECT_EQ(s->port, 0);
  EXPECT_DOUBLE_EQ(s->speed_mbps, 10000);
  auto newer = parse_nccl_net_speed("+ NET[50.0] - NET/0-1 (b8cef603009c5d24/1/50.000000)");
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->name, "NET/0-1");
  EXPECT_EQ(newer->port, 1);
  EXPECT_DOUBLE_EQ(newer->speed_mbps, 400000);
}

TEST(NcclNetSpeed, LinesWithoutARate) {
  EXPECT_FALSE(parse_nccl_net_speed("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>"));
  EXPECT_FALSE(parse_nccl_net_speed("+ PCI[24.0] - NIC/0"));
  EXPECT_FALSE(parse_nccl_net_speed("NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=0 context=0x1"));
  EXPECT_FALSE(parse_nccl_net_speed("NET/IB : Made virtual device [0] name=mlx5_0 ndevs=1"));
  EXPECT_FALSE(parse_nccl_net_speed("+ NET[1.2] - NET/0 (0/0/1.250000"));
  EXPECT_FALSE(parse_nccl_net_speed("Could not get speed from /sys/class/net/lo/speed. Defaulting to 10 Gbps."));
}

}  // namespace
}  // namespace gdrcheck

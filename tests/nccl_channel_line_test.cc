// Tests for reading NCCL connection lines (nccl-spec.md §4.1, §4.2).
#include "evidence/nccl_channel_line.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(NcclChannelLine, NetSendWithGdr) {
  auto c = parse_nccl_channel_line("Channel 02/1 : 0[0] -> 9[1] [send] via NET/IB/1/GDRDMA/Shared");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->channel, 2);
  EXPECT_EQ(c->conn_index, 1);
  EXPECT_EQ(c->from_rank, 0);
  EXPECT_EQ(c->to_rank, 9);
  EXPECT_FALSE(c->receive);
  EXPECT_TRUE(c->net);
  EXPECT_EQ(c->net_name, "IB");
  EXPECT_EQ(c->dev, 1);
  EXPECT_TRUE(c->gdr);
  EXPECT_TRUE(c->shared);
  EXPECT_FALSE(c->proxy_rank);
}

TEST(NcclChannelLine, ReceiveWithoutGdrPxnAndPluginName) {
  auto c = parse_nccl_channel_line("Channel 00/0 : 15[7] -> 0[0] [receive] via NET/AWS Libfabric/0(8)");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->receive);
  EXPECT_EQ(c->net_name, "AWS Libfabric");
  EXPECT_EQ(c->proxy_rank, 8);
  EXPECT_FALSE(c->gdr);
}

TEST(NcclChannelLine, OldStylesAndPciFlag) {
  auto ring = parse_nccl_channel_line("Ring 00 : 6 -> 2 [send] via NET/IB/0");
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->from_rank, 6);
  auto hex = parse_nccl_channel_line("Channel 00 : 0[1b000] -> 8[1b000] [send] via NET/IB/0/GDRDMA(PCI)");
  ASSERT_TRUE(hex);
  EXPECT_TRUE(hex->gdr);
  EXPECT_TRUE(hex->pci);
}

// The brackets name the GPU: its bus id up to 2.17, its NVML index from
// 2.18.3 (net.cc at every tag); kept as printed for the reader to map.
TEST(NcclChannelLine, DevicesInBracketsAreKeptAsPrinted) {
  auto bus = parse_nccl_channel_line("Channel 01/0 : 3[b7000] -> 11[b7000] [receive] via NET/IB/3");
  ASSERT_TRUE(bus);
  EXPECT_EQ(bus->from_device, "b7000");
  EXPECT_EQ(bus->to_device, "b7000");
  auto nvml = parse_nccl_channel_line("Channel 02/1 : 0[6] -> 9[1] [send] via NET/IB/1/GDRDMA");
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->from_device, "6");
  EXPECT_EQ(nvml->to_device, "1");
  auto ring = parse_nccl_channel_line("Ring 00 : 6 -> 2 [send] via NET/IB/0");
  ASSERT_TRUE(ring);
  EXPECT_TRUE(ring->from_device.empty());
  EXPECT_FALSE(parse_nccl_channel_line("Channel 00 : 0[1b000000000000000000] -> 8[0] [send] via NET/IB/0"));
}

TEST(NcclChannelLine, IntraNodeIsNotNet) {
  auto c = parse_nccl_channel_line("Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->net);
  EXPECT_FALSE(parse_nccl_channel_line("Channel 00/1 : 0[0] -> 1[1] via something else"));
}

TEST(NcclChannelLine, CutAndMalformedLines) {
  EXPECT_FALSE(parse_nccl_channel_line("Channel 11/0 : 0[0] ->"));
  EXPECT_TRUE(looks_like_cut_channel_line("Channel 11/0 : 0[0] ->"));
  EXPECT_FALSE(looks_like_cut_channel_line("Ring 00 : 7 -> 0 -> 1"));
  EXPECT_FALSE(parse_nccl_channel_line("Channel 1234567890 : 0 -> 1 [send] via NET/IB/0"));  // 10 digits
  EXPECT_FALSE(parse_nccl_channel_line("Channel 00 : 0[zz-z] -> 1 [send] via NET/IB/0"));
  EXPECT_FALSE(parse_nccl_channel_line("Channel 00 : 0 -> 1 [send] via NET//0"));
  EXPECT_FALSE(parse_nccl_channel_line("Using network IB"));
}

}  // namespace
}  // namespace gdrcheck

// Which GPU each rank of a log ran on and which NICs each process listed,
// on real logs (tests/data/nccl-logs/PROVENANCE.md, tests/data/pairs/PROVENANCE.md).
#include "evidence/nccl_rank_map.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "evidence/nccl_log.h"

namespace gdrcheck {
namespace {

std::string test_file_text(const std::string& rel) {
  std::ifstream in(std::string(GDRCHECK_TEST_DATA) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcclRankMap, BusIdIsNcclsIntegerForm) {
  EXPECT_EQ(nccl_bus_id("1b000")->str(), "0000:1b:00.0");
  EXPECT_EQ(nccl_bus_id("97000")->str(), "0000:97:00.0");
  EXPECT_EQ(nccl_bus_id("11b021")->str(), "0001:1b:02.1");  // domain 1: "0001:1b:02.1" without separators
  EXPECT_FALSE(nccl_bus_id("1b00g"));
  EXPECT_FALSE(nccl_bus_id(""));
  EXPECT_FALSE(nccl_bus_id("1b009"));  // function 9 does not exist
}

// 2.29 (automodel #3032): "[Rank 5] ncclCommInitRankConfig comm ... rank 5
// nranks 8 cudaDev 5 nvmlDev 5 busId 97000 ... - Init START".
TEST(NcclRankMap, InitLinesOfRecentReleases) {
  NcclRankMap m = parse_nccl_log(test_file_text("nccl-logs/automodel-3032-2.29-net-plugin-assigned.log")).rank_map;
  const NcclRankPlace* p = m.place("node-0", 5);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->cuda_dev, 5);
  EXPECT_EQ(p->nvml_dev, 5);
  EXPECT_EQ(p->nranks, 8);
  ASSERT_TRUE(p->bus);
  EXPECT_EQ(p->bus->str(), "0000:97:00.0");
  EXPECT_EQ(m.place("node-9", 5), nullptr);
}

// 2.21.5 with the HPC-X plugin (nccl #1737): one process, its device list
// with SHARP and RoCE suffixes, and busId 19000.
TEST(NcclRankMap, DeviceListByIndexAndTheRanksGpu) {
  NcclRankMap m = read_nccl_rank_map(test_file_text("pairs/nccl-1737-h100-6nic-ibext-sharp-no-channels/nccl.log"));
  const NcclNetDeviceList* l = m.devices_of("gh-3714u06");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->net, "IB");
  EXPECT_EQ(l->names, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5", "mlx5_2"}));
  const NcclRankPlace* p = m.place("gh-3714u06", 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->bus->str(), "0000:19:00.0");
}

TEST(NcclRankMap, OneDistinctListServesEveryHost) {
  NcclRankMap m = read_nccl_rank_map(
      "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
      "b:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.2<0>\n"
      "b:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n");
  ASSERT_EQ(m.device_lists.size(), 2u);
  EXPECT_EQ(m.devices_of("c"), &m.device_lists.front());  // alike: any host
  EXPECT_EQ(m.devices_of("b")->host, "b");
  NcclRankMap differ = read_nccl_rank_map(
      "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n"
      "b:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_3:1/IB\n");
  EXPECT_EQ(differ.devices_of("c"), nullptr);  // a host not in the log, lists unlike: unknown
}

// 2.21-2.23 fuse the ports of one adapter into one NET device.
TEST(NcclRankMap, FusedPortsAreOneDevice) {
  NcclRankMap m = read_nccl_rank_map(
      "h:1:1 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]={[2] mlx5_2:1/IB, [3] "
      "mlx5_3:1/IB} ; OOB ib0:10.0.0.1<0>\n");
  ASSERT_EQ(m.device_lists.size(), 1u);
  EXPECT_EQ(m.device_lists[0].names, (std::vector<std::string>{"mlx5_0+mlx5_1", "mlx5_2+mlx5_3"}));
}

// The largest communicator's numbering wins; older releases print busId %x
// with "Init COMPLETE"; nccl-tests prints one line per rank.
TEST(NcclRankMap, OlderLinesAndNcclTestsRankLines) {
  NcclRankMap m = read_nccl_rank_map(
      "n1:9:9 [3] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 3 busId 3d000 - Init COMPLETE\n"
      "n1:9:9 [3] NCCL INFO comm 0x2 rank 0 nranks 16 cudaDev 3 busId 3d000 - Init COMPLETE\n"
      "n1:9:9 [3] NCCL INFO comm 0x3 rank 0 nranks 4 cudaDev 7 busId 9c000 - Destroy COMPLETE\n"
      "#  Rank  1 Group  0 Pid 2329639 on n2 device  2 [0000:02:00] NVIDIA GeForce RTX 5090\n"
      "#   Rank  2 Pid  14926 on v100-gpu-1 device  0 [0x1b] Tesla V100-PCIE-16GB\n");
  const NcclRankPlace* r0 = m.place("n1", 0);
  ASSERT_NE(r0, nullptr);
  EXPECT_EQ(r0->nranks, 16);
  EXPECT_EQ(r0->cuda_dev, 3);
  EXPECT_FALSE(r0->nvml_dev);
  const NcclRankPlace* r1 = m.place("n2", 1);
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->cuda_dev, 2);
  EXPECT_EQ(r1->bus->str(), "0000:02:00.0");
  EXPECT_EQ(m.place("v100-gpu-1", 2)->bus->str(), "0000:1b:00.0");
}

}  // namespace
}  // namespace gdrcheck

// Tests for the set of distinct NCCL connections.
#include "evidence/nccl_connection_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gdrcheck {
namespace {

TEST(NcclConnectionIndex, FindsOnlyEqualKeys) {
  NcclConnectionIndex index;
  NcclConnectionKey k{0, 0, 1, 9, 0, 3, -1, "IB", "node1", "1234"};
  EXPECT_EQ(index.find(k), NcclConnectionIndex::npos);
  index.insert(k, 7);
  EXPECT_EQ(index.find(k), 7u);
  // Each field on its own makes another connection.
  std::vector<NcclConnectionKey> others(10, k);
  others[0].channel = 1;
  others[1].conn_index = 1;
  others[2].from_rank = 2;
  others[3].to_rank = 8;
  others[4].side = 1;
  others[5].dev = 4;
  others[6].proxy_rank = 0;
  others[7].net = "IBext";
  others[8].host = "node2";
  others[9].pid = "1235";
  for (const auto& o : others) EXPECT_EQ(index.find(o), NcclConnectionIndex::npos);
  // The text boundaries count: "IB"+"node1" is not "IBn"+"ode1".
  NcclConnectionKey shifted = k;
  shifted.net = "IBn";
  shifted.host = "ode1";
  EXPECT_EQ(index.find(shifted), NcclConnectionIndex::npos);
}

TEST(NcclConnectionIndex, GrowsAndKeepsEveryKey) {
  NcclConnectionIndex index;
  std::vector<std::string> hosts;
  for (int i = 0; i < 5000; ++i) hosts.push_back("host" + std::to_string(i % 97));
  for (int i = 0; i < 5000; ++i) index.insert({i % 32, 0, i, i + 1, i % 2, 0, -1, "IB", hosts[i], "1"}, i);
  EXPECT_EQ(index.size(), 5000u);
  for (int i = 0; i < 5000; ++i)
    ASSERT_EQ(index.find({i % 32, 0, i, i + 1, i % 2, 0, -1, "IB", hosts[i], "1"}), static_cast<std::size_t>(i));
  EXPECT_EQ(index.find({0, 0, 5000, 5001, 0, 0, -1, "IB", "host0", "1"}), NcclConnectionIndex::npos);
}

}  // namespace
}  // namespace gdrcheck

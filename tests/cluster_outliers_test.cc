// Majority and outliers over fingerprints.
#include "cluster/outliers.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

Fingerprint with_firmware(const std::string& fw, const std::string& kernel = "5.15") {
  Fingerprint f;
  for (const auto& a : fingerprint_aspects()) f.emplace_back(a, "same");
  for (auto& [a, v] : f) {
    if (a == "firmware") v = fw;
    if (a == "kernel") v = kernel;
  }
  return f;
}

struct Cluster {
  std::vector<std::string> hosts;
  std::vector<Fingerprint> prints;

  void add(const std::string& host, Fingerprint f) {
    hosts.push_back(host);
    prints.push_back(std::move(f));
  }
  OutlierAnalysis analyse() const {
    std::vector<std::pair<std::string, const Fingerprint*>> nodes;
    for (std::size_t i = 0; i < hosts.size(); ++i) nodes.emplace_back(hosts[i], &prints[i]);
    return find_outliers(nodes);
  }
};

TEST(Outliers, NamesTheNodeThatDiffersFromTheMajority) {
  Cluster c;
  for (int i = 1; i <= 64; ++i) c.add("node" + std::to_string(i), with_firmware(i == 17 ? "28.39.1002" : "28.41.1000"));
  OutlierAnalysis a = c.analyse();
  ASSERT_EQ(a.outliers.size(), 1u);
  EXPECT_EQ(a.outliers[0].describe(), "node17: firmware 28.39.1002 vs 28.41.1000 on 63 of 64 nodes");
  EXPECT_TRUE(a.splits.empty());
}

TEST(Outliers, OneNodeCanDifferInSeveralAspects) {
  Cluster c;
  for (int i = 0; i < 5; ++i) c.add("n" + std::to_string(i), with_firmware("A", i == 3 ? "6.8" : "5.15"));
  c.add("odd", with_firmware("B", "6.8"));
  OutlierAnalysis a = c.analyse();
  ASSERT_EQ(a.outliers.size(), 3u);
  EXPECT_EQ(a.outliers[0].describe(), "n3: kernel 6.8 vs 5.15 on 4 of 6 nodes");
  EXPECT_EQ(a.outliers[1].describe(), "odd: firmware B vs A on 5 of 6 nodes");
  EXPECT_EQ(a.outliers[2].describe(), "odd: kernel 6.8 vs 5.15 on 4 of 6 nodes");
}

TEST(Outliers, NoMajorityIsASplitNotAnOutlier) {
  Cluster c;
  c.add("a", with_firmware("X"));
  c.add("b", with_firmware("X"));
  c.add("c", with_firmware("Y"));
  c.add("d", with_firmware("Y"));
  c.add("e", with_firmware("Z"));
  OutlierAnalysis a = c.analyse();
  EXPECT_TRUE(a.outliers.empty());
  ASSERT_EQ(a.splits.size(), 1u);
  EXPECT_EQ(a.splits[0].aspect, "firmware");
  ASSERT_EQ(a.splits[0].values.size(), 3u);
  EXPECT_EQ(a.splits[0].values[0], (std::pair<std::string, std::size_t>{"X", 2}));
  EXPECT_EQ(a.splits[0].values[2], (std::pair<std::string, std::size_t>{"Z", 1}));
}

TEST(Outliers, TooFewNodesHaveNoMajority) {
  Cluster c;
  c.add("a", with_firmware("X"));
  c.add("b", with_firmware("Y"));
  OutlierAnalysis a = c.analyse();
  EXPECT_TRUE(a.outliers.empty());
  EXPECT_TRUE(a.splits.empty());
}

TEST(Outliers, IdenticalNodesHaveNone) {
  Cluster c;
  for (int i = 0; i < 10; ++i) c.add("n" + std::to_string(i), with_firmware("X"));
  OutlierAnalysis a = c.analyse();
  EXPECT_TRUE(a.outliers.empty());
  EXPECT_TRUE(a.splits.empty());
}

}  // namespace
}  // namespace gdrcheck

// --max-drain: how many nodes one run may drain before the cause is more
// likely the cluster's than the nodes'.
#include "cluster/drain_limit.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

DrainLimit limit(const std::string& text) {
  auto l = parse_drain_limit(text);
  EXPECT_TRUE(l) << text;
  return l.value_or(DrainLimit{});
}

TEST(DrainLimit, Parses) {
  EXPECT_EQ(limit("3").value, 3);
  EXPECT_FALSE(limit("3").percent);
  EXPECT_TRUE(limit("5%").percent);
  EXPECT_EQ(limit("100%").value, 100);
  for (const char* bad : {"", "0", "0%", "-1", "101%", "5.5", "%", "x", " 3", "3 ", "1e2", "9999999999"})
    EXPECT_FALSE(parse_drain_limit(bad)) << bad;
}

TEST(DrainLimit, DefaultIsFivePercentRoundedDownAtLeastOne) {
  DrainLimit d;  // the default
  EXPECT_EQ(decide_drain_limit(3, 64, d).limit, 3u);
  EXPECT_TRUE(decide_drain_limit(3, 64, d).allowed);
  EXPECT_EQ(decide_drain_limit(1, 4, d).limit, 1u);
  EXPECT_TRUE(decide_drain_limit(1, 4, d).allowed);
  EXPECT_FALSE(decide_drain_limit(2, 4, d).allowed);
  EXPECT_TRUE(decide_drain_limit(0, 0, d).allowed);
}

TEST(DrainLimit, PastTheLimitNothingIsDrainedAndItSaysWhy) {
  DrainLimitDecision d = decide_drain_limit(12, 64, DrainLimit{});
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.why,
            "12 nodes would be drained, more than --max-drain 5% (3 of 64): nothing drained; a cluster-wide cause (a "
            "manifest, a driver roll-out) is likelier than 12 broken nodes");
  DrainLimitDecision n = decide_drain_limit(4, 64, limit("3"));
  EXPECT_FALSE(n.allowed);
  EXPECT_EQ(n.why.rfind("4 nodes would be drained, more than --max-drain 3: nothing drained", 0), 0u) << n.why;
  EXPECT_TRUE(decide_drain_limit(64, 64, limit("100%")).allowed);
}

}  // namespace
}  // namespace gdrcheck

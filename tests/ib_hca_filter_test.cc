// NCCL_IB_HCA as each release parses it (src/misc/utils.cc:parseStringList,
// matchIfList).
#include "nccl/ib_hca_filter.h"

#include <gtest/gtest.h>

#include "nccl_versions.h"

namespace gdrcheck {
namespace {

using testing::nccl_version;

TEST(IbHcaFilter, PrefixMatchByDefault) {
  EXPECT_TRUE(ib_hca_selects("mlx5_1", "mlx5_1", 1));
  EXPECT_TRUE(ib_hca_selects("mlx5_1", "mlx5_10", 1));
  EXPECT_FALSE(ib_hca_selects("mlx5_1", "mlx5_2", 1));
}

TEST(IbHcaFilter, EqualsMeansWholeNames) {
  EXPECT_TRUE(ib_hca_selects("=mlx5_1", "mlx5_1", 1));
  EXPECT_FALSE(ib_hca_selects("=mlx5_1", "mlx5_10", 1));
}

TEST(IbHcaFilter, CaretExcludesAndAloneExcludesEverything) {
  EXPECT_FALSE(ib_hca_selects("^mlx5_0", "mlx5_0", 1));
  EXPECT_TRUE(ib_hca_selects("^mlx5_0", "mlx5_1", 1));
  EXPECT_FALSE(ib_hca_selects("^", "mlx5_1", 1));
  EXPECT_TRUE(ib_hca_selects("", "mlx5_1", 1));
}

TEST(IbHcaFilter, PortSuffixSelectsOnePort) {
  EXPECT_TRUE(ib_hca_selects("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(ib_hca_selects("mlx5_0:1", "mlx5_0", 2));
}

// parseStringList@v2.30.4-1 reads "mlx5_0:" with atoi → port 0, which no
// port has; @v2.30.7-1 splits with strsep and takes it as any port.
TEST(IbHcaFilter, EmptyPortMatchesNothingBefore2307AndAnyPortFrom2307) {
  EXPECT_FALSE(ib_hca_selects("mlx5_0:", "mlx5_0", 1, nccl_version("2.30.4")));
  EXPECT_FALSE(ib_hca_selects("mlx5_0:", "mlx5_0", 1, nccl_version("2.18.6")));
  EXPECT_TRUE(ib_hca_selects("mlx5_0:", "mlx5_0", 1, nccl_version("2.30.7")));
  // Excluding with an empty port excluded nothing before 2.30.7.
  EXPECT_TRUE(ib_hca_selects("^mlx5_0:", "mlx5_0", 1, nccl_version("2.29.7")));
  EXPECT_FALSE(ib_hca_selects("^mlx5_0:", "mlx5_0", 1, nccl_version("2.30.7")));
}

TEST(IbHcaFilter, NothingIsTrimmed) {
  EXPECT_FALSE(ib_hca_selects(" mlx5_0", "mlx5_0", 1));
  EXPECT_FALSE(ib_hca_selects("=mlx5_0\r", "mlx5_0", 1));
}

TEST(IbHcaFilter, PrefixPitfallsNameTheExtraDevices) {
  auto found = hca_prefix_pitfalls(parse_hca("mlx5_1"), {"mlx5_0", "mlx5_1", "mlx5_10", "mlx5_11"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "'mlx5_1' also matches mlx5_10, mlx5_11");
  EXPECT_TRUE(hca_prefix_pitfalls(parse_hca("=mlx5_1"), {"mlx5_1", "mlx5_10"}).empty());
  EXPECT_TRUE(hca_prefix_pitfalls(parse_hca("mlx5"), {"mlx5_1", "mlx5_10"}).empty());  // names no device
}

}  // namespace
}  // namespace gdrcheck

// The text helpers every renderer uses: safe printing of data from other
// machines, and device-name order.
#include "host/text_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gdrcheck {
namespace {

TEST(TextFormat, PrintableEscapesControlBytes) {
  EXPECT_EQ(printable("LOC\r"), "LOC\\r");
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(printable("tab\there\n\x7f"), "tab\\there\\n\\x7f");
  EXPECT_EQ(printable("mlx5_0 port 1"), "mlx5_0 port 1");
  EXPECT_EQ(printable("H100 \xe2\x80\x94 ok"), "H100 \xe2\x80\x94 ok");  // UTF-8 is text, not control
}

TEST(TextFormat, NaturalOrderComparesEveryNumber) {
  std::vector<std::string> names{"rdmap113s0", "mlx5_10", "rdmap79s0", "mlx5_2", "mlx5_1", "rdmap79s1", "mlx5_01"};
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  EXPECT_EQ(names, (std::vector<std::string>{"mlx5_1", "mlx5_01", "mlx5_2", "mlx5_10", "rdmap79s0", "rdmap79s1",
                                             "rdmap113s0"}));
}

TEST(TextFormat, NaturalOrderHandlesHugeNumbersAndPrefixes) {
  EXPECT_TRUE(natural_less("dev99999999999999999999", "dev100000000000000000000"));
  EXPECT_TRUE(natural_less("mlx5", "mlx5_0"));
  EXPECT_FALSE(natural_less("mlx5_0", "mlx5_0"));
  EXPECT_TRUE(natural_less("", "a"));
}

}  // namespace
}  // namespace gdrcheck

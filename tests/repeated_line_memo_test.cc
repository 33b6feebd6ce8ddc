// Tests for the memo of repeated log lines.
#include "evidence/repeated_line_memo.h"

#include <gtest/gtest.h>

#include <string>

namespace gdrcheck {
namespace {

TEST(RepeatedLineMemo, RemembersExactLinesOnly) {
  RepeatedLineMemo memo;
  EXPECT_FALSE(memo.find("a line"));
  memo.remember("a line", 2);
  EXPECT_EQ(memo.find("a line"), 2);
  EXPECT_FALSE(memo.find("a line "));
  EXPECT_FALSE(memo.find("a lin"));
  EXPECT_FALSE(memo.find(""));
}

TEST(RepeatedLineMemo, RepeatedBlocksAndOtherOrders) {
  RepeatedLineMemo memo;
  for (int i = 0; i < 100; ++i) {
    std::string line = "line " + std::to_string(i);
    ASSERT_FALSE(memo.find(line));
    memo.remember(line, static_cast<std::uint8_t>(i % 3));
  }
  // The same order (predicted), then backwards (hash lookups): same answers.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(memo.find("line " + std::to_string(i)), i % 3);
  for (int i = 99; i >= 0; --i) EXPECT_EQ(memo.find("line " + std::to_string(i)), i % 3);
  // A line the prediction expects but that differs is still looked up.
  EXPECT_EQ(memo.find("line 0"), 0);
  EXPECT_FALSE(memo.find("line 1x"));
  EXPECT_EQ(memo.find("line 2"), 2);
}

TEST(RepeatedLineMemo, StopsGrowingWhenFull) {
  RepeatedLineMemo memo;
  for (std::size_t i = 0; i < RepeatedLineMemo::kMaxLines + 10; ++i) {
    std::string line = std::to_string(i);
    if (!memo.find(line)) memo.remember(line, 1);
  }
  EXPECT_EQ(memo.size(), RepeatedLineMemo::kMaxLines);
  EXPECT_EQ(memo.find("0"), 1);
  EXPECT_FALSE(memo.find(std::to_string(RepeatedLineMemo::kMaxLines + 5)));
}

}  // namespace
}  // namespace gdrcheck

// Tests for the memo of repeated log lines.
#include "evidence/repeated_line_memo.h"

#include <gtest/gtest.h>

#include <string>

namespace gdrcheck {
namespace {

// find() then remember() on a miss, as the log reader does.
void offer(RepeatedLineMemo& memo, const std::string& line, std::uint8_t outcome) {
  if (!memo.find(line)) memo.remember(line, outcome);
}

TEST(RepeatedLineMemo, RemembersExactLinesFromTheirSecondTime) {
  RepeatedLineMemo memo;
  offer(memo, "a line", 2);
  EXPECT_FALSE(memo.find("a line"));  // seen once: only its hash is kept
  memo.remember("a line", 2);
  EXPECT_EQ(memo.find("a line"), 2);
  EXPECT_FALSE(memo.find("a line "));
  EXPECT_FALSE(memo.find("a lin"));
  EXPECT_FALSE(memo.find(""));
}

TEST(RepeatedLineMemo, RepeatedBlocksAndOtherOrders) {
  RepeatedLineMemo memo;
  for (int round = 0; round < 2; ++round)
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
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < RepeatedLineMemo::kMaxLines + 10; ++i) offer(memo, std::to_string(i), 1);
  EXPECT_EQ(memo.size(), RepeatedLineMemo::kMaxLines);
  EXPECT_EQ(memo.find("0"), 1);
  EXPECT_FALSE(memo.find(std::to_string(RepeatedLineMemo::kMaxLines + 5)));
}

// A log whose lines never repeat keeps no text, and once the hashes are
// full and nothing is found the memo stands aside; it looks again later.
TEST(RepeatedLineMemo, LinesThatNeverRepeatCostNoTextAndAreLeftAlone) {
  RepeatedLineMemo memo;
  std::size_t n = RepeatedLineMemo::kMaxSeenOnce + 2 * RepeatedLineMemo::kWindow;
  for (std::size_t i = 0; i < n; ++i) offer(memo, "unique " + std::to_string(i), 1);
  // Lines seen once are kept as 32-bit tags: among half a million of them
  // a few dozen share a tag (the birthday bound, n^2 / 2^33), and those are
  // kept one sighting early. Nothing more.
  EXPECT_LT(memo.size(), n / 1000);
  std::size_t kept = memo.size();
  // Standing aside: a line offered twice now is not remembered.
  offer(memo, "repeated", 1);
  offer(memo, "repeated", 1);
  EXPECT_FALSE(memo.find("repeated"));
  EXPECT_EQ(memo.size(), kept);
  // After the pause it remembers again.
  for (std::uint64_t i = 0; i < RepeatedLineMemo::kBypass; ++i) memo.find("x");
  offer(memo, "again", 3);
  offer(memo, "again", 3);
  EXPECT_EQ(memo.find("again"), 3);
}

// A second pause that follows a fruitless look is twice as long.
TEST(RepeatedLineMemo, PausesGrowWhileNothingRepeats) {
  RepeatedLineMemo memo;
  std::size_t n = RepeatedLineMemo::kMaxSeenOnce + 2 * RepeatedLineMemo::kWindow;
  std::size_t next = 0;
  auto unique_lines = [&] {
    for (std::size_t i = 0; i < n; ++i) offer(memo, "unique " + std::to_string(next++), 1);
  };
  unique_lines();  // looks, finds nothing, pauses for kBypass
  for (std::uint64_t i = 0; i < RepeatedLineMemo::kBypass; ++i) memo.find("x");
  unique_lines();  // looks again, finds nothing: pauses for 2 x kBypass
  for (std::uint64_t i = 0; i < RepeatedLineMemo::kBypass; ++i) memo.find("x");
  offer(memo, "still paused", 2);
  offer(memo, "still paused", 2);
  EXPECT_FALSE(memo.find("still paused"));
  for (std::uint64_t i = 0; i < RepeatedLineMemo::kBypass; ++i) memo.find("x");
  offer(memo, "looking again", 3);
  offer(memo, "looking again", 3);
  EXPECT_EQ(memo.find("looking again"), 3);
}

}  // namespace
}  // namespace gdrcheck

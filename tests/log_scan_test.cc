// The scanning primitives every log reader runs on every line: each fast
// path (sixteen places at a time, word loads) must agree with the plain
// definition, at every length and position, including the ends.
#include "evidence/log_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>

namespace gdrcheck {
namespace {

bool plain_icontains(const std::string& s, const std::string& part) {
  auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
  };
  return lower(s).find(lower(part)) != std::string::npos;
}

TEST(LogScan, FindAgreesWithStringFind) {
  std::mt19937 rng(3);
  const std::string alphabet = "abN CL";
  for (int round = 0; round < 3000; ++round) {
    std::string s, part;
    for (std::size_t i = rng() % 60; i > 0; --i) s += alphabet[rng() % alphabet.size()];
    for (std::size_t i = 1 + rng() % 5; i > 0; --i) part += alphabet[rng() % alphabet.size()];
    std::size_t from = s.empty() ? 0 : rng() % (s.size() + 1);
    EXPECT_EQ(scan::find(s, part, from), s.find(part, from)) << s << " / " << part << " from " << from;
  }
}

TEST(LogScan, IcontainsAgreesWithLowercasedFind) {
  std::mt19937 rng(5);
  const std::string alphabet = "lLoOcC @[`{ aA";
  for (int round = 0; round < 5000; ++round) {
    std::string s, part;
    for (std::size_t i = rng() % 70; i > 0; --i) s += alphabet[rng() % alphabet.size()];
    for (std::size_t i = 1 + rng() % 4; i > 0; --i) part += alphabet[rng() % alphabet.size()];
    EXPECT_EQ(scan::icontains(s, part), plain_icontains(s, part)) << s << " / " << part;
  }
  // At the very start and end of long texts (past the 16-byte blocks).
  std::string pad(40, 'x');
  EXPECT_TRUE(scan::icontains("Local Protection" + pad, "local protection"));
  EXPECT_TRUE(scan::icontains(pad + "LOCAL PROTECTION", "local protection"));
  EXPECT_TRUE(scan::icontains(pad + "local protectioN" + pad, "Local protection"));
  EXPECT_FALSE(scan::icontains(pad + "local protectio" + pad, "local protection"));
  // '@' and '`', '[' and '{' differ from letters' cases by the same bit.
  EXPECT_FALSE(scan::icontains(pad + "@ocal protection" + pad, "local protection"));
  EXPECT_TRUE(scan::icontains("x", ""));
  EXPECT_FALSE(scan::icontains("", "x"));
}

TEST(LogScan, SameBytesAtEveryLengthAndPosition) {
  for (std::size_t n = 0; n <= 24; ++n) {
    std::string a(n, 'q');
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i);
    EXPECT_TRUE(scan::same_bytes(a.data(), a.data(), n));
    for (std::size_t at = 0; at < n; ++at) {
      std::string b = a;
      b[at] = static_cast<char>(b[at] ^ 0x01);
      EXPECT_FALSE(scan::same_bytes(a.data(), b.data(), n)) << n << " " << at;
    }
  }
  EXPECT_TRUE(scan::same_text("node0001", "node0001"));
  EXPECT_FALSE(scan::same_text("node0001", "node00011"));
  EXPECT_TRUE(scan::same_text("", ""));
}

TEST(LogScan, ContainsAnyOf) {
  std::string long_text(40, 'x');
  EXPECT_FALSE(scan::contains_any_of(long_text, 'o', 'b', 'k'));
  for (std::size_t at = 0; at < long_text.size(); ++at) {
    std::string t = long_text;
    t[at] = 'k';
    EXPECT_TRUE(scan::contains_any_of(t, 'o', 'b', 'k')) << at;
  }
}

}  // namespace
}  // namespace gdrcheck

#include "text/ascii.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace gdrcheck {
namespace {

// The helpers replaced the C library's calls in the readers; with no locale
// set they must agree with it on every byte.
TEST(Ascii, ClassesAgreeWithTheCLocaleOnEveryByte) {
  for (int b = 0; b < 256; ++b) {
    char c = static_cast<char>(b);
    EXPECT_EQ(ascii::is_space(c), std::isspace(b) != 0) << b;
    EXPECT_EQ(ascii::is_digit(c), std::isdigit(b) != 0) << b;
    EXPECT_EQ(ascii::lower(c), static_cast<char>(std::tolower(b))) << b;
  }
}

TEST(Ascii, NonAsciiBytesAreNeitherSpaceNorFolded) {
  EXPECT_FALSE(ascii::is_space('\xa0'));  // NBSP in Latin-1
  EXPECT_FALSE(ascii::is_space('\x85'));  // NEL
  EXPECT_EQ(ascii::lower("\xc3\x89T\xc3\xa9"), "\xc3\x89t\xc3\xa9");
}

TEST(Ascii, TrimRemovesEveryKindOfSpaceOnBothEndsOnly) {
  EXPECT_EQ(ascii::trim(" \t\r\n\v\fa b\f\v\n\r\t "), "a b");
  EXPECT_EQ(ascii::trim("   "), "");
  EXPECT_EQ(ascii::trim(""), "");
  EXPECT_EQ(ascii::trim(std::string_view("\0x\0", 3)), std::string_view("\0x\0", 3));
}

TEST(Ascii, TrimToASetKeepsWhatIsNotInIt) {
  EXPECT_EQ(ascii::trim("\t a\n \r", " \t\r"), "a\n");
  EXPECT_EQ(ascii::trim(std::string_view("\0 7\n\0", 5), std::string_view(" \n\0", 3)), "7");
  EXPECT_EQ(ascii::trim(" \r\t", " \t\r"), "");
  EXPECT_EQ(ascii::trim("x", ""), "x");
}

TEST(Ascii, LowerAndContains) {
  EXPECT_EQ(ascii::lower("MLX5_0 Port ACTIVE"), "mlx5_0 port active");
  EXPECT_TRUE(ascii::contains("nvidia_peermem 16384 0", "peermem"));
  EXPECT_TRUE(ascii::contains("x", ""));
  EXPECT_FALSE(ascii::contains("peer", "peermem"));
}

}  // namespace
}  // namespace gdrcheck

#include "report/text_wrap.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gdrcheck {
namespace {

std::size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, display_width(line));
  return widest;
}

TEST(DisplayWidth, CountsCodePointsNotBytesAndSkipsColour) {
  EXPECT_EQ(display_width("GPU0"), 4u);
  EXPECT_EQ(display_width("GPU0\u20137"), 6u);  // the en dash is 3 bytes, 1 column
  EXPECT_EQ(display_width("\u6e2c\u8a66"), 2u);
  EXPECT_EQ(display_width("\033[31mCRITICAL\033[0m"), 8u);
  EXPECT_EQ(display_width("a\xff"), 2u);  // a stray byte still takes a column
}

TEST(WrapLine, BreaksAtSpacesWithHangingIndent) {
  EXPECT_EQ(wrap_line("  WARNING  a b c", 14, "           "), "  WARNING  a b\n           c");
  std::string long_line =
      "  CRITICAL  IOMMU translates this device's DMA (group type DMA): GPUDirect traffic is "
      "remapped or blocked by the kernel on every device";
  std::string wrapped = wrap_line(long_line, 40, std::string(12, ' '));
  EXPECT_LE(widest_line(wrapped), 40u) << wrapped;
  EXPECT_EQ(wrapped.substr(0, 12), "  CRITICAL  ");
  // Nothing is lost: the words come back in order.
  std::string joined;
  std::istringstream words(wrapped);
  for (std::string w; words >> w;) joined += (joined.empty() ? "" : " ") + w;
  EXPECT_EQ(joined,
            "CRITICAL IOMMU translates this device's DMA (group type DMA): GPUDirect traffic is remapped or "
            "blocked by the kernel on every device");
}

TEST(WrapLine, KeepsAWordWiderThanTheLineWholeOnItsOwnLine) {
  std::string path = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/iommu_group/type";
  std::string wrapped = wrap_line("evidence: " + path + " = DMA", 30, "  ");
  EXPECT_EQ(wrapped, "evidence:\n  " + path + "\n  = DMA");
}

TEST(WrapLine, KeepsTablePaddingAndShortLines) {
  EXPECT_EQ(wrap_line("GPU0  mlx5_0    PXB", 80, "  "), "GPU0  mlx5_0    PXB");
  EXPECT_EQ(wrap_line("", 80, "  "), "");
  EXPECT_EQ(wrap_line("    ", 80, "  "), "    ");
}

TEST(WrapLine, CountsColumnsOfUtf8AndColourNotBytes) {
  // 10 columns of CJK (30 bytes) fit a 12-column line.
  std::string cjk;
  for (int i = 0; i < 10; ++i) cjk += "\u6e2c";
  EXPECT_EQ(wrap_line("a " + cjk, 12, " "), "a " + cjk);
  EXPECT_EQ(wrap_line("\033[31mCRITICAL\033[0m x", 10, " "), "\033[31mCRITICAL\033[0m x");
  EXPECT_EQ(wrap_line("\033[31mCRITICAL\033[0m xy", 10, " "), "\033[31mCRITICAL\033[0m\n xy");
}

TEST(WrapLines, EachLineHangsUnderItsOwnIndent) {
  EXPECT_EQ(wrap_lines("ab cd\n  ef gh", 5, 1), "ab cd\n  ef\n   gh");
}

TEST(WrapLine, HostileLinesNeverHangOrLoseBytes) {
  std::string many(100000, ' ');
  many += "x";
  EXPECT_EQ(wrap_line(many, 80, "  "), many);
  std::string words;
  for (int i = 0; i < 20000; ++i) words += "w ";
  std::string wrapped = wrap_line(words, 1, "");
  EXPECT_EQ(std::count(wrapped.begin(), wrapped.end(), 'w'), 20000);
  EXPECT_EQ(wrap_line("\xe2\x80", 80, ""), "\xe2\x80");  // a cut UTF-8 sequence is passed on as it is
}

}  // namespace
}  // namespace gdrcheck

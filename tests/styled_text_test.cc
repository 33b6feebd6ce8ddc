#include "report/styled_text.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

OutputStyle style(bool utf8, int width) {
  OutputStyle s;
  s.utf8 = utf8;
  s.width = width;
  return s;
}

const std::string kProse = "  WARNING: mlx5_3 port 1 runs at 200 Gb/s \u2014 half its rated speed\n";

TEST(StyledText, ProseWrapsAtTheWidthWithAHangingIndent) {
  EXPECT_EQ(styled_text(kProse, style(true, 40), TextLayout::Prose),
            "  WARNING: mlx5_3 port 1 runs at 200\n    Gb/s \u2014 half its rated speed\n");
}

TEST(StyledText, TableRowsStayWholeWhateverTheWidth) {
  std::string row = "GPU0   X    PIX  PXB  SYS  SYS  SYS  SYS  SYS  SYS  0-55,112-167  0  N/A\n";
  EXPECT_EQ(styled_text(row, style(true, 40), TextLayout::Table), row);
}

TEST(StyledText, AsciiLocaleGetsAsciiSymbols) {
  std::string shown = styled_text(kProse, style(false, 200), TextLayout::Prose);
  EXPECT_EQ(shown, "  WARNING: mlx5_3 port 1 runs at 200 Gb/s -- half its rated speed\n");
  for (unsigned char c : styled_text("GPU0\u20137 \u2192 mlx5_0\n", style(false, 80), TextLayout::Table))
    EXPECT_LT(c, 0x80);
}

TEST(StyledText, Utf8LocaleKeepsTheTextAsItIs) {
  EXPECT_EQ(styled_text(kProse, style(true, 200), TextLayout::Prose), kProse);
  EXPECT_EQ(styled_text("", style(true, 80), TextLayout::Prose), "");
}

}  // namespace
}  // namespace gdrcheck

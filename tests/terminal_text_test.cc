// The terminal policy: one escaping rule for data, multi-line values, and
// the final guard over a whole rendered text.
#include "report/terminal_text.h"

#include <gtest/gtest.h>

#include "host/text_format.h"
#include "terminal_checks.h"

namespace gdrcheck {
namespace {

using testing::kHostile;
using testing::kHostileShown;
using testing::terminal_offence;

void expect_shown(const std::string& text) {
  for (const auto& shown : kHostileShown) EXPECT_NE(text.find(shown), std::string::npos) << shown << " in " << text;
}

TEST(Printable, KeepsUtf8Text) {
  EXPECT_EQ(printable("Ménage"), "Ménage");
  EXPECT_EQ(printable("节点-01 ノード"), "节点-01 ノード");
  EXPECT_EQ(printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // outside the BMP
  EXPECT_EQ(printable("\xe2\x80\x8f"), "\xe2\x80\x8f");          // RLM marks nothing out of order
}

TEST(Printable, EscapesC1AndBidiAsCodePoints) {
  EXPECT_EQ(printable("a\xc2\x9b"
                      "31mb"),
            "a\\u009b31mb");
  EXPECT_EQ(printable("\xc2\x80\xc2\x9f\xc2\xa0"), "\\u0080\\u009f\xc2\xa0");  // NBSP is text
  EXPECT_EQ(printable("gpu\xe2\x80\xae"
                      "01"),
            "gpu\\u202e01");
  EXPECT_EQ(printable("\xe2\x80\xaa\xe2\x80\xad\xe2\x81\xa6\xe2\x81\xa9"), "\\u202a\\u202d\\u2066\\u2069");
}

TEST(Printable, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("\x9b"
                      "2J"),
            "\\x9b2J");                                              // raw 8-bit CSI
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");                    // never UTF-8
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, 3 bytes
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xc3"), "\\xc3");                             // cut at the end
  EXPECT_EQ(printable("\xe2\x80"), "\\xe2\\x80");                    // cut at the end
  EXPECT_EQ(printable("\xc3(x"), "\\xc3(x");                         // lead without continuation
  EXPECT_EQ(printable(std::string("\xc3\0", 2)), "\\xc3\\x00");      // NUL is never a continuation
}

TEST(Printable, LineBreaksKeptOnlyWhenAsked) {
  EXPECT_EQ(printable("a\nb\tc\r"), "a\\nb\\tc\\r");
  EXPECT_EQ(printable("a\nb\tc\r", LineBreaks::Keep), "a\nb\tc\\r");
}

TEST(SafeLine, EveryHostileByteEscapedAndStillShown) {
  std::string s = safe_line(kHostile);
  EXPECT_EQ(terminal_offence(s, false), "");
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s.find('\t'), std::string::npos);
  expect_shown(s);
  // Escaping escaped text changes nothing: renderers may pass a value twice.
  EXPECT_EQ(safe_line(s), s);
}

TEST(SafeLines, ContinuationLinesAreIndentedAndEscaped) {
  EXPECT_EQ(safe_lines("NVRM version: 550\nGCC version: 12\n", "    "), "NVRM version: 550\n    GCC version: 12");
  EXPECT_EQ(safe_lines("one", "  "), "one");
  EXPECT_EQ(safe_lines("", "  "), "");
  std::string s = safe_lines(kHostile + "\n" + kHostile, "  ");
  EXPECT_EQ(terminal_offence(s, false), "");
  // No data line reaches the left margin: every break is followed by the indent.
  for (std::size_t at = s.find('\n'); at != std::string::npos; at = s.find('\n', at + 1))
    EXPECT_EQ(s.substr(at + 1, 2), "  ") << s;
  EXPECT_NE(s.find("\\xc3(\n  \\tend\n  evil\\x1b]0;pwned"), std::string::npos) << s;
}

TEST(Painted, OnlyWithColour) {
  EXPECT_EQ(painted("OK", sgr::kGreen, false), "OK");
  EXPECT_EQ(painted("OK", sgr::kGreen, true), "\033[32mOK\033[0m");
}

TEST(TerminalGuard, KeepsOwnColoursWhenColourIsOn) {
  std::string text = painted("CRITICAL", sgr::kRed, true) + " mlx5_0\n\tnext line\n";
  EXPECT_EQ(terminal_guard(text, true), text);
  EXPECT_EQ(terminal_offence(terminal_guard(text, true), true), "");
}

TEST(TerminalGuard, EscapesOwnColoursWhenColourIsOff) {
  std::string out = terminal_guard("\033[31mCRITICAL\033[0m\n", false);
  EXPECT_EQ(out, "\\x1b[31mCRITICAL\\x1b[0m\n");
}

TEST(TerminalGuard, EscapesEveryOtherSequence) {
  // A field a renderer forgot to pass through safe_line().
  std::string text = "host: " + kHostile + "\n" + std::string(sgr::kGreen) + "OK" + std::string(sgr::kReset) + "\n";
  for (bool colour : {false, true}) {
    std::string out = terminal_guard(text, colour);
    EXPECT_EQ(terminal_offence(out, colour), "") << out;
    EXPECT_NE(out.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\r\\x08\\u009b\\u202e\\x9b\\xff\\xfe\\xc3(\n\tend"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find(sgr::kGreen) != std::string::npos, colour) << out;
  }
}

TEST(TerminalGuard, SequencesThatOnlyLookLikeOwnColoursAreEscaped) {
  EXPECT_EQ(terminal_guard("\033[31;1m\033[3", true), "\\x1b[31;1m\\x1b[3");
  EXPECT_EQ(terminal_guard("\033", true), "\\x1b");
  EXPECT_EQ(terminal_guard("a\033[0m\033[0mb", true), "a\033[0m\033[0mb");
}

TEST(AsciiText, RendererSymbolsBecomeAscii) {
  EXPECT_EQ(ascii_text("GPU0\u20137 \u00b7 \u2713 a\u2192b \u2265 2.23 \u2026"), "GPU0-7 * ok a->b >= 2.23 ...");
  EXPECT_EQ(ascii_text("GPU\u2194NIC \u2014 x"), "GPU<->NIC -- x");
}

TEST(AsciiText, OtherTextIsEscapedVisiblyAndAsciiKept) {
  EXPECT_EQ(ascii_text("h\u00f6st \u6e2c \U0001F600"), "h\\u00f6st \\u6e2c \\U0001f600");
  EXPECT_EQ(ascii_text("plain \\x1b text\n\t"), "plain \\x1b text\n\t");
  EXPECT_EQ(ascii_text("\033[31mCRITICAL\033[0m"), "\033[31mCRITICAL\033[0m");  // colour is ASCII
}

TEST(AsciiText, ResultIsAlwaysAscii) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  all += "\u2013\xe2\x80";
  // Bytes that are not UTF-8 pass through: printable() escapes them before.
  std::string out = ascii_text(printable(all));
  for (unsigned char c : out) EXPECT_LT(c, 0x80);
}

}  // namespace
}  // namespace gdrcheck

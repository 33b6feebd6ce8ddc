// What a test expects of any text gdrcheck prints to a terminal, checked
// byte by byte without the code under test: no control byte but '\n' and
// '\t', no DEL, no C1 control, no bidi override, nothing that is not UTF-8,
// and no ESC except the renderer's own colour sequences (when colour is on).
#pragma once

#include <string>
#include <string_view>

#include "report/terminal_text.h"

namespace gdrcheck::testing {

// Hostile data: a title change (OSC), clear screen (CSI), carriage return,
// backspace, a UTF-8 C1 CSI, a right-to-left override, raw 8-bit CSI and
// bytes that are not UTF-8, a line break and a tab, around a visible word.
inline const std::string kHostile =
    "evil\x1b]0;pwned\x07"
    "\x1b[2J\r\b\xc2\x9b\xe2\x80\xae\x9b\xff\xfe\xc3(\n\tend";

// The escaped forms a reader must still see.
inline const std::string kHostileShown[] = {"evil\\x1b]0;pwned\\x07",
                                            "\\x1b[2J",
                                            "\\r",
                                            "\\x08",
                                            "\\u009b",
                                            "\\u202e",
                                            "\\x9b",
                                            "\\xff\\xfe",
                                            "\\xc3(",
                                            "\\n\\tend"};

// "" when `text` is safe; else what is wrong and where.
inline std::string terminal_offence(std::string_view text, bool colour) {
  const std::string_view own[] = {"\033[0m", "\033[31m", "\033[32m", "\033[33m", "\033[35m"};
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  auto where = [&](std::size_t i, const char* what) {
    return std::string(what) + " at byte " + std::to_string(i) + " near \"" +
           std::string(text.substr(i > 20 ? i - 20 : 0, 40)) + "\"";
  };
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = at(i);
    if (c == 0x1b) {
      bool ok = false;
      for (auto s : own)
        if (colour && text.substr(i, s.size()) == s) {
          i += s.size();
          ok = true;
          break;
        }
      if (!ok) return where(i, "ESC");
      continue;
    }
    if (c < 0x20 && c != '\n' && c != '\t') return where(i, "control byte");
    if (c == 0x7f) return where(i, "DEL");
    if (c < 0x80) {
      ++i;
      continue;
    }
    // Table 3-7 of the Unicode standard: well-formed UTF-8 byte sequences.
    std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return where(i, "not UTF-8");
    unsigned char lo = 0x80, hi = 0xbf;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (at(i + 1) < lo || at(i + 1) > hi) return where(i, "not UTF-8");
    for (std::size_t k = 2; k < n; ++k)
      if (at(i + k) < 0x80 || at(i + k) > 0xbf) return where(i, "not UTF-8");
    if (c == 0xc2 && at(i + 1) <= 0x9f) return where(i, "C1 control");
    if (c == 0xe2 && at(i + 1) == 0x80 && at(i + 2) >= 0xaa && at(i + 2) <= 0xae) return where(i, "bidi override");
    if (c == 0xe2 && at(i + 1) == 0x81 && at(i + 2) >= 0xa6 && at(i + 2) <= 0xa9) return where(i, "bidi isolate");
    i += n;
  }
  return "";
}

}  // namespace gdrcheck::testing

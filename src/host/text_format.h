// Small text helpers every renderer and judgement uses, so that numbers and
// lists read the same in every command's output.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// `v` with `digits` decimals ("%.*f").
inline std::string fixed(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// 8589934592 → "8 GiB"; a size that is not a whole number of the larger
// unit stays in the smaller one (1536 → "1536 B", 3145728 → "3 MiB").
inline std::string bytes_text(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4 && b % 1024 == 0) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + " " + units[u];
}

// Device-name order with every run of digits compared as a number:
// mlx5_2 < mlx5_10, rdmap79s0 < rdmap113s0. Leading zeros do not count;
// digit runs of any length compare without overflow.
inline bool natural_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei, j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

// Whether printable() keeps line breaks and tabs: one-line fields (a table
// cell, a name, a value quoted in a sentence) escape them so data cannot
// start a line of its own or break the columns; text that is several lines
// on purpose (a whole rendered report) keeps them.
enum class LineBreaks { Escape, Keep };

namespace printable_detail {

// Length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) and its code
// point; 0 when the first byte does not start one.
inline std::size_t utf8_sequence(std::string_view s, char32_t& cp) {
  auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = b(0);
  std::size_t len = lead >= 0xc2 && lead <= 0xdf   ? 2
                    : lead >= 0xe0 && lead <= 0xef ? 3
                    : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                   : 0;
  if (len == 0 || s.size() < len) return 0;
  cp = lead & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
  for (std::size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3f);
  }
  const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

// Code points that are valid text but act on the terminal rather than show:
// the C1 controls (U+009B is CSI on terminals that take 8-bit controls) and
// the bidi embeddings, overrides and isolates, which make a line read in a
// different order than its bytes (a host name that shows as another).
inline bool acts_on_terminal(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace printable_detail

// Text from another machine (a conf value, a device name, a log line) made
// safe to print: control bytes and DEL become \r, \n, \t or \xNN, bytes
// that are not UTF-8 become \xNN, C1 controls and bidi overrides become
// \uNNNN; other UTF-8 text ("Ménage", CJK) is kept. So data can never move
// the cursor, retitle or recolour a terminal, or reorder a line, and the
// reader still sees that something odd was there. The one escaping rule of
// every text output (report/terminal_text.h).
inline std::string printable(std::string_view text, LineBreaks breaks = LineBreaks::Escape) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (std::size_t i = 0; i < text.size();) {
    // Printable ASCII, nearly all of any text, is copied in runs: a byte at
    // a time was a good part of the cost of every text output.
    std::size_t run = i;
    while (run < text.size() && text[run] >= 0x20 && text[run] < 0x7f) ++run;
    if (run > i) {
      out.append(text.substr(i, run - i));
      i = run;
      continue;
    }
    auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x80) {
      char32_t cp = 0;
      std::size_t len = printable_detail::utf8_sequence(text.substr(i), cp);
      if (len == 0) {
        std::snprintf(buf, sizeof buf, "\\x%02x", u);
        out += buf;
        ++i;
      } else if (printable_detail::acts_on_terminal(cp)) {
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        out += buf;
        i += len;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    ++i;
    bool kept_break = breaks == LineBreaks::Keep && (u == '\n' || u == '\t');
    if ((u >= 0x20 && u != 0x7f) || kept_break) {
      out += static_cast<char>(u);
      continue;
    }
    const char* named = u == '\r' ? "\\r" : u == '\n' ? "\\n" : u == '\t' ? "\\t" : nullptr;
    if (named) {
      out += named;
      continue;
    }
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    out += buf;
  }
  return out;
}

}  // namespace gdrcheck

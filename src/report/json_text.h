// The one way a JSON document becomes text for output. Strings in it come
// from other machines (firmware, host names, pasted logs) and may hold
// bytes that are not UTF-8; they are written as U+FFFD instead of making the
// JSON library throw, so `node --json` (which `cluster` runs everywhere)
// never aborts on a hostile byte. C0 controls are escaped by the library;
// the C1 controls (U+0080..U+009F: U+009B is CSI on some terminals) and the
// bidi overrides (U+202A..U+202E, U+2066..U+2069) are escaped here too, so
// `jq -r` of a value cannot drive a terminal or reorder what it shows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gdrcheck {

namespace json_text_detail {

inline void append_u_escape(std::string& out, unsigned code) {
  static const char* hex = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(code >> shift) & 0xf];
}

// Multi-byte UTF-8 only occurs inside JSON strings, so swapping a whole
// character for its \u escape keeps the document valid. The bytes between
// escapes are copied in runs: a byte at a time was a good part of the cost
// of every JSON output.
inline std::string escape_invisible_controls(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;  // text before this is in `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned code = 0;
    std::size_t len = 0;
    if (b(i) == 0xc2 && i + 1 < text.size() && b(i + 1) >= 0x80 && b(i + 1) <= 0x9f) {
      code = b(i + 1);
      len = 2;
    } else if (b(i) == 0xe2 && i + 2 < text.size() &&
               ((b(i + 1) == 0x80 && b(i + 2) >= 0xaa && b(i + 2) <= 0xae) ||
                (b(i + 1) == 0x81 && b(i + 2) >= 0xa6 && b(i + 2) <= 0xa9))) {
      code = 0x2000u | ((b(i + 1) & 0x3fu) << 6) | (b(i + 2) & 0x3fu);
      len = 3;
    } else {
      continue;
    }
    out.append(text, copied, i - copied);
    append_u_escape(out, code);
    i += len - 1;
    copied = i + 1;
  }
  out.append(text, copied);
  return out;
}

}  // namespace json_text_detail

inline std::string json_text(const nlohmann::json& j, int indent = 2) {
  return json_text_detail::escape_invisible_controls(
      j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace gdrcheck

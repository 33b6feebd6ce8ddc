#include "report/terminal_text.h"

#include "host/text_format.h"

namespace gdrcheck {
namespace {

// The renderer's own colour sequence at the start of `text`, or "".
std::string_view own_sgr_at(std::string_view text) {
  for (std::string_view s : sgr::kAll)
    if (text.substr(0, s.size()) == s) return s;
  return {};
}

struct AsciiSymbol {
  char32_t code_point;
  const char* ascii;
};

// The non-ASCII symbols gdrcheck's own text uses.
constexpr AsciiSymbol kAsciiSymbols[] = {
    {0x2013, "-"},  {0x2014, "--"}, {0x00b7, "*"},   {0x2022, "*"},   {0x2713, "ok"}, {0x2717, "x"},
    {0x2192, "->"}, {0x2190, "<-"}, {0x2194, "<->"}, {0x21d2, "=>"},  {0x2265, ">="}, {0x2264, "<="},
    {0x2260, "!="}, {0x00d7, "x"},  {0x2026, "..."}, {0x2018, "'"},   {0x2019, "'"},  {0x201c, "\""},
    {0x201d, "\""}, {0x00a7, "S"},  {0x00b5, "u"},   {0x00b1, "+/-"}, {0x00a0, " "},
};

}  // namespace

std::string ascii_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    std::size_t len =
        static_cast<unsigned char>(text[i]) < 0x80 ? 0 : printable_detail::utf8_sequence(text.substr(i), cp);
    if (len == 0) {
      // ASCII, or a byte printable() would already have escaped.
      out += text[i++];
      continue;
    }
    i += len;
    const char* ascii = nullptr;
    for (const auto& s : kAsciiSymbols)
      if (s.code_point == cp) ascii = s.ascii;
    if (ascii) {
      out += ascii;
      continue;
    }
    std::snprintf(buf, sizeof buf, cp > 0xffff ? "\\U%08x" : "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
  }
  return out;
}

std::string safe_line(std::string_view data) {
  return printable(data);
}

std::string safe_lines(std::string_view data, std::string_view indent) {
  if (!data.empty() && data.back() == '\n') data.remove_suffix(1);
  std::string out;
  for (std::size_t start = 0;;) {
    std::size_t end = data.find('\n', start);
    out += printable(data.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    out += '\n';
    out += indent;
    start = end + 1;
  }
}

std::string painted(std::string_view text, std::string_view sequence, bool colour) {
  if (!colour) return std::string(text);
  return std::string(sequence) + std::string(text) + std::string(sgr::kReset);
}

// The text between colour sequences is escaped as a whole: an ESC never sits
// inside a UTF-8 sequence, so splitting at ESC never splits a character.
std::string terminal_guard(std::string_view rendered, bool colour) {
  std::string out;
  out.reserve(rendered.size());
  std::size_t start = 0;
  for (std::size_t i = 0; i < rendered.size(); ++i) {
    if (rendered[i] != '\033' || !colour) continue;
    std::string_view own = own_sgr_at(rendered.substr(i));
    if (own.empty()) continue;
    out += printable(rendered.substr(start, i - start), LineBreaks::Keep);
    out += own;
    i += own.size() - 1;
    start = i + 1;
  }
  out += printable(rendered.substr(start), LineBreaks::Keep);
  return out;
}

}  // namespace gdrcheck

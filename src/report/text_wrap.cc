#include "report/text_wrap.h"

namespace gdrcheck {
namespace {

// Length of an SGR sequence ("\033[31m") at the start of `s`, or 0.
std::size_t sgr_length(std::string_view s) {
  if (s.size() < 3 || s[0] != '\033' || s[1] != '[') return 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    char c = s[i];
    if (c == 'm') return i + 1;
    if (!(c == ';' || (c >= '0' && c <= '9'))) return 0;
  }
  return 0;
}

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xc0) == 0x80;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (std::size_t n = sgr_length(text.substr(i))) {
      i += n;
      continue;
    }
    // A lead byte followed by its continuation bytes is one code point; a
    // stray continuation byte counts on its own, like a terminal shows it.
    std::size_t n = 1;
    if (static_cast<unsigned char>(text[i]) >= 0xc0)
      while (i + n < text.size() && n < 4 && continuation_byte(text[i + n])) ++n;
    i += n;
    ++columns;
  }
  return columns;
}

// One pass over the words (a run of spaces and the text after it), each
// measured once: every line of every text report goes through here.
std::string wrap_line(std::string_view line, std::size_t width, std::string_view indent) {
  std::size_t lead = line.find_first_not_of(' ');
  if (lead == std::string_view::npos) return std::string(line);
  std::string out(line.substr(0, lead));
  out.reserve(line.size() + indent.size());
  const std::size_t indent_width = display_width(indent);
  std::size_t column = lead;
  bool line_has_word = false;
  for (std::size_t i = lead; i < line.size();) {
    std::size_t start = i;
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t word = i;
    while (i < line.size() && line[i] != ' ') ++i;
    std::string_view spaces = line.substr(start, word - start), text = line.substr(word, i - word);
    std::size_t text_width = display_width(text);
    if (line_has_word && column + spaces.size() + text_width > width) {
      out += '\n';
      out += indent;
      column = indent_width;
      line_has_word = false;
    }
    if (line_has_word) {
      out += spaces;
      column += spaces.size();
    }
    out += text;
    column += text_width;
    line_has_word = true;
  }
  return out;
}

std::string wrap_lines(std::string_view text, std::size_t width, std::size_t extra) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::size_t lead = line.find_first_not_of(' ');
    std::string indent((lead == std::string_view::npos ? 0 : lead) + extra, ' ');
    out += wrap_line(line, width, indent);
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace gdrcheck

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

}  // namespace

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

#include "report/styled_text.h"

#include "report/terminal_text.h"
#include "report/text_wrap.h"

namespace gdrcheck {

std::string styled_text(std::string_view text, const OutputStyle& style, TextLayout layout) {
  std::string shown = style.utf8 ? std::string(text) : ascii_text(text);
  if (layout == TextLayout::Prose) return wrap_lines(shown, static_cast<std::size_t>(style.width));
  return shown;
}

}  // namespace gdrcheck

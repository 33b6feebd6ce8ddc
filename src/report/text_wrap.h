// Breaking text output into lines that fit the terminal. Operators read
// node reports in 80-column terminals, pagers and mail; a finding whose
// summary runs to 200 columns wraps mid-word at the terminal's edge and
// lands under the status column. Here lines break at spaces with a
// hanging indent, and nothing is ever cut: a word wider than the line (a
// sysfs path) keeps its whole self on a line of its own, so it can still be
// copied and pasted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gdrcheck {

// Columns `text` takes on a terminal: one per UTF-8 code point (a byte that
// is not part of a well-formed sequence counts as one), none for the
// renderer's colour sequences (ESC '[' ... 'm').
std::size_t display_width(std::string_view text);

// One line (no '\n') broken at spaces so that no line is wider than `width`
// columns, unless a single word is. The line's own leading spaces stay;
// every continuation line starts with `indent`; the spaces where a line
// breaks are dropped, spaces elsewhere (table padding) are kept.
// wrap_line("  WARNING  a b c", 14, "           ") == "  WARNING  a b\n           c"
std::string wrap_line(std::string_view line, std::size_t width, std::string_view indent);

// Every line of `text` wrapped by wrap_line(); a line's continuation indent
// is its own leading spaces plus `extra` more.
std::string wrap_lines(std::string_view text, std::size_t width, std::size_t extra = 2);

}  // namespace gdrcheck

// The last step before a renderer's text reaches stdout, for the commands
// whose renderers do not lay lines out by width themselves (topo, analyze,
// bench, cluster): the same locale and width conventions as `node`
// (docs/output.md), applied to the finished text.
#pragma once

#include <string>
#include <string_view>

#include "report/output_style.h"

namespace gdrcheck {

// How the finished text may be reshaped: prose may be wrapped at the
// style's width; a table (topo's matrix, cluster's node table) must keep
// each row on one line, or its columns no longer line up.
enum class TextLayout { Prose, Table };

// `text` as `style` shows it: ASCII symbols when the locale is not UTF-8,
// and for prose every line wrapped at the width with a hanging indent.
std::string styled_text(std::string_view text, const OutputStyle& style, TextLayout layout);

}  // namespace gdrcheck

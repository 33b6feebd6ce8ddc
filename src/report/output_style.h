// How text output looks on the operator's side: colour, UTF-8 symbols and
// line width. Decided once per command from --color, the environment and
// whether stdout is a terminal, then handed to the renderers, so that every
// command follows the same conventions (docs/output.md):
//  - colour: --color=always|never win; auto colours only a terminal, and
//    not when NO_COLOR is set to anything (no-color.org) or TERM is "dumb";
//  - UTF-8 only when the locale says so (LC_ALL, else LC_CTYPE, else LANG
//    names UTF-8); otherwise the renderer's own symbols are ASCII, since a
//    C-locale terminal or a log collector shows "–" as mojibake;
//  - width: $COLUMNS when it is a sane number, else the terminal's width
//    when stdout is one, else 80.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

enum class ColorChoice { Auto, Always, Never };

// "auto", "always", "never" (what --color takes); nullopt otherwise.
std::optional<ColorChoice> parse_color_choice(std::string_view text);

inline constexpr int kDefaultWidth = 80;
// $COLUMNS outside this range is ignored (a typo, or a value for another
// program): narrower lines would leave no room after the hanging indent.
inline constexpr int kMinWidth = 40, kMaxWidth = 1000;

struct OutputStyle {
  bool color = false;
  bool utf8 = true;
  int width = kDefaultWidth;
};

// An environment variable's value, or nullopt when it is not set.
using EnvGetter = std::function<std::optional<std::string>(const char* name)>;

// The style for stdout. `terminal_width` is the terminal's column count
// when stdout is a terminal and it is known (0 otherwise). Pure: the
// environment and the terminal come in as arguments.
OutputStyle detect_output_style(ColorChoice choice, const EnvGetter& env, bool stdout_is_tty, int terminal_width = 0);

// detect_output_style() for this process's stdout (getenv, isatty(1),
// TIOCGWINSZ).
OutputStyle stdout_output_style(ColorChoice choice);

}  // namespace gdrcheck

#include "report/output_style.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "text/ascii.h"

namespace gdrcheck {
namespace {

bool set_and_nonempty(const std::optional<std::string>& v) {
  return v && !v->empty();
}

// POSIX order: the first of LC_ALL, LC_CTYPE, LANG that is set and not
// empty names the character set; none means the C locale, which is ASCII.
bool locale_is_utf8(const EnvGetter& env) {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    auto v = env(name);
    if (!set_and_nonempty(v)) continue;
    std::string l = ascii::lower(*v);
    return l.find("utf-8") != std::string::npos || l.find("utf8") != std::string::npos;
  }
  return false;
}

std::optional<int> sane_width(const std::optional<std::string>& v) {
  if (!set_and_nonempty(v) || v->size() > 5) return std::nullopt;
  int n = 0;
  for (char c : *v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < kMinWidth || n > kMaxWidth) return std::nullopt;
  return n;
}

}  // namespace

std::optional<ColorChoice> parse_color_choice(std::string_view text) {
  if (text == "auto") return ColorChoice::Auto;
  if (text == "always") return ColorChoice::Always;
  if (text == "never") return ColorChoice::Never;
  return std::nullopt;
}

OutputStyle detect_output_style(ColorChoice choice, const EnvGetter& env, bool stdout_is_tty, int terminal_width) {
  OutputStyle s;
  auto term = env("TERM");
  bool auto_colour = stdout_is_tty && !set_and_nonempty(env("NO_COLOR")) && !(term && *term == "dumb");
  s.color = choice == ColorChoice::Always || (choice == ColorChoice::Auto && auto_colour);
  s.utf8 = locale_is_utf8(env);
  if (auto w = sane_width(env("COLUMNS")))
    s.width = *w;
  else if (stdout_is_tty && terminal_width >= kMinWidth && terminal_width <= kMaxWidth)
    s.width = terminal_width;
  return s;
}

OutputStyle stdout_output_style(ColorChoice choice) {
  EnvGetter env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  bool tty = ::isatty(1) == 1;
  int columns = 0;
  struct winsize ws {};
  if (tty && ::ioctl(1, TIOCGWINSZ, &ws) == 0) columns = ws.ws_col;
  return detect_output_style(choice, env, tty, columns);
}

}  // namespace gdrcheck

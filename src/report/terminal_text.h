// What data may put on a terminal. Reports, logs, host names and sysfs
// strings come from other machines and other users; printed raw, an ESC,
// OSC, CSI, CR or backspace in them would retitle or clear the terminal,
// overwrite a verdict, hide a line or forge one, and a bidi override would
// make a host name read as another. JSON output escapes its own way
// (report/json_text.h); text output follows this policy:
//
//  1. One escaping rule, printable() (host/text_format.h): C0 controls, DEL,
//     C1 controls (raw or UTF-8), bytes that are not UTF-8 and bidi
//     overrides are shown escaped (\x1b, \r, \u009b, \u202e), so the reader
//     sees that something odd was there; other UTF-8 text stays as it is.
//  2. Every data value a renderer writes goes through safe_line() where it enters
//     the output: one line, '\n' and '\t' escaped too, so data can neither
//     start a line of its own nor break the columns. Widths are measured on
//     the escaped text.
//  3. Every render_*_text() returns through terminal_guard(), which escapes
//     anything in the whole text that is not a line break, a tab, printable
//     text, or (only with colour on) one of the renderer's own colour
//     sequences below, matched exactly. A field added later without safe_line()
//     can then at worst add a line or recolour, never move the cursor,
//     retitle, clear or reorder.
//  4. Error messages quote file names and file contents: they are written
//     through safe_line() too before reaching stderr.
//
// Line breaks inside data are kept only where a field is several lines by
// design (a finding's evidence and fix): safe_lines() indents every
// continuation line. Everywhere else (a name, a summary, a reason, a log
// line, an error message) a '\n' is escaped, since it could forge a line.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace gdrcheck {

// The colour sequences (SGR) renderers write on a TTY; the only escape
// sequences terminal_guard() lets through.
namespace sgr {
inline constexpr std::string_view kReset = "\033[0m";
inline constexpr std::string_view kRed = "\033[31m";
inline constexpr std::string_view kGreen = "\033[32m";
inline constexpr std::string_view kYellow = "\033[33m";
inline constexpr std::string_view kMagenta = "\033[35m";
inline constexpr std::array<std::string_view, 5> kAll = {kReset, kRed, kGreen, kYellow, kMagenta};
}  // namespace sgr

// A data value (a table cell, a name, a reason, an error message) as one
// line of terminal text: "mlx5_0" stays, "a\x1b[2Jb" becomes "a\\x1b[2Jb",
// "x\ny" becomes "x\\ny".
std::string safe_line(std::string_view data);

// A value that may be several lines on purpose (evidence quoting a whole
// file such as /proc/driver/nvidia/version, a fix with several commands):
// each line escaped like safe_line(), and every line after the first
// starts with `indent`, so data can never start a line at the left margin
// where the renderer's own lines (statuses, headings) are. One trailing
// line break is dropped.
std::string safe_lines(std::string_view data, std::string_view indent);

// `text` painted with one of the sgr:: sequences when `colour`, else as is.
// `text` must already be terminal-safe (a status name, a safe_line() value).
std::string painted(std::string_view text, std::string_view sequence, bool colour);

// The last step of every text renderer: `rendered` with every control byte
// except '\n' and '\t', every C1 control, bidi override and non-UTF-8 byte
// escaped, and every ESC escaped unless `colour` is on and it starts one of
// sgr::kAll exactly.
std::string terminal_guard(std::string_view rendered, bool colour);

// `text` for a terminal whose locale is not UTF-8 (docs/output.md): the
// symbols renderers and checks write become ASCII ("–" → "-", "→" → "->",
// "≥" → ">=", "…" → "..."), any other non-ASCII character is shown as
// \uNNNN so the reader still sees that something was there. Everything
// else, escapes included, is kept.
std::string ascii_text(std::string_view text);

}  // namespace gdrcheck

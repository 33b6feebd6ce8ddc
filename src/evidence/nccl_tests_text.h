// Line-level text handling of the nccl-tests reader: words, control bytes,
// and what launchers, log collectors and pastes put around the tool's own
// text — mpirun --tag-output, srun --label, pdsh, Ray/SkyPilot worker
// prefixes, and two outputs pasted side by side.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/log_scan.h"

namespace gdrcheck::nccltests {

constexpr std::size_t kMaxLine = 64 * 1024;

// Character classes of the per-byte loops as tables: one load per byte
// instead of a chain of comparisons.
template <class Pred>
constexpr std::array<bool, 256> char_table(Pred pred) {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[static_cast<std::size_t>(c)] = pred(static_cast<unsigned char>(c));
  return table;
}

inline constexpr auto kSpace = char_table(
    [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; });

inline bool is_space(char c) {
  return kSpace[static_cast<unsigned char>(c)];
}
using scan::contains;
using scan::is_alpha;
using scan::is_digit;
inline bool starts_with(std::string_view s, std::string_view p) {
  return s.starts_with(p);
}

std::string_view trim(std::string_view s);
// The first word of s: every line is tested against a few keywords, and
// splitting all of it for that would double the cost of reading a table.
std::string_view first_word(std::string_view s);
std::vector<std::string_view> split_words(std::string_view s);

// Cut to kMaxLine; control bytes become spaces so a stray ESC or NUL cannot
// glue tokens. Copies into *scratch only when there is one.
std::string_view clean(std::string_view line, std::string* scratch);

// The line without the prefixes launchers glue to its front (any number
// of them), trimmed.
std::string_view strip_launcher(std::string_view s);

// " NCCL INFO", " NCCL WARN" or " NCCL TRACE" anywhere, or a line that
// starts with "NCCL INFO" / "NCCL WARN".
bool is_nccl_log_line(std::string_view s);

// "NCCL version 2.12.7+cuda11.4" alone or inside an INFO line.
std::optional<std::string> nccl_version_in(std::string_view s);

// "2.30.7" from the "nccl-library=23007" of a version line (NCCL_VERSION_CODE:
// major*10000+minor*100+patch since 2.9, major*1000+minor*100+patch before).
std::optional<std::string> nccl_library_version(std::string_view version_line);

// Two outputs pasted side by side for comparison, one '|' between them
// ("...  0  |      1048576  262144  float ..."): the two halves, when both
// are nccl-tests text (a '#' line or a row). A Markdown table has more than
// one '|' and a shell pipe has no table on its left, so neither splits.
struct SideBySide {
  std::string_view left, right;
};
std::optional<SideBySide> split_side_by_side(std::string_view line);

}  // namespace gdrcheck::nccltests

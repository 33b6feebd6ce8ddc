// Line-level text handling of the nccl-tests reader (see nccl_tests_text.h).
#include "evidence/nccl_tests_text.h"

#include <algorithm>
#include <cstdint>

#include "host/text_numbers.h"

namespace gdrcheck::nccltests {
namespace {

constexpr auto kControl = char_table([](unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; });

bool is_control(char c) {
  return kControl[static_cast<unsigned char>(c)];
}

// "[1,0]<stdout>:" from mpirun --tag-output; returns its length or 0.
std::size_t ompi_tag_length(std::string_view s) {
  std::size_t i = 0;
  if (i >= s.size() || s[i] != '[') return 0;
  ++i;
  while (i < s.size() && (is_digit(s[i]) || s[i] == ',')) ++i;
  if (i >= s.size() || s[i] != ']' || i == 1) return 0;
  ++i;
  if (i < s.size() && s[i] == '<') {
    std::size_t close = s.find('>', i);
    if (close == std::string_view::npos || close - i > 8) return 0;
    i = close + 1;
  }
  if (i >= s.size() || s[i] != ':') return 0;
  return i + 1;
}

// "[0]" / "[0,1]" / "[rank3]" before a row, with or without a space (a
// launcher's rank tag with no colon, as torchrun-style wrappers and pastes
// of one rank's output leave it); returns its length or 0.
std::size_t rank_tag_length(std::string_view s) {
  if (s.empty() || s[0] != '[') return 0;
  std::size_t i = 1;
  if (s.substr(1, 4) == "rank") i = 5;
  std::size_t digits = i;
  while (i < s.size() && (is_digit(s[i]) || s[i] == ',') && i < 16) ++i;
  if (i == digits || i >= s.size() || s[i] != ']') return 0;
  ++i;
  if (i < s.size() && s[i] == ':') ++i;
  return i;
}

// "12: " from srun --label; digits, a colon and a space.
std::size_t srun_label_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0 || i > 6 || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return 0;
  return i + 2;
}

// "(head, rank=0, pid=3808) ", "(worker1, rank=1, pid=2769, ip=10.0.0.2) ",
// "(pid=1234) ": Ray's per-worker prefix, which SkyPilot and Ray jobs put
// in front of every line of a worker's output; returns its length or 0.
std::size_t ray_prefix_length(std::string_view s) {
  if (s.empty() || s[0] != '(') return 0;
  std::size_t close = s.find(')');
  if (close == std::string_view::npos || close > 160 || close + 1 >= s.size() || !is_space(s[close + 1])) return 0;
  std::string_view inside = s.substr(1, close - 1);
  return contains(inside, "pid=") && !contains(inside, "(") ? close + 1 : 0;
}

// A half of a side-by-side line that is nccl-tests text: a '#' line or
// something shaped like a row (a number first, many columns).
bool is_table_half(std::string_view half) {
  if (half.empty()) return false;
  if (half.front() == '#') return true;
  auto w = split_words(half);
  return w.size() >= 8 && whole_number<uint64_t>(w[0]).has_value();
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The first word of s: every line is tested against a few keywords, and
// splitting all of it for that would double the cost of reading a table.
std::string_view first_word(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  std::size_t j = i;
  while (j < s.size() && !is_space(s[j])) ++j;
  return s.substr(i, j - i);
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(16);  // most table rows fit: one allocation instead of five
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Control bytes become spaces so a stray ESC or NUL cannot glue tokens.
// Copies only when there is one: most lines of a big log have none.
std::string_view clean(std::string_view line, std::string* scratch) {
  if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
  if (std::none_of(line.begin(), line.end(), is_control)) return line;
  scratch->assign(line);
  for (char& c : *scratch)
    if (is_control(c)) c = ' ';
  return *scratch;
}

// Launcher prefixes glued to the front of the line (mpirun --tag-output,
// srun --label, Ray, pdsh "host: " before a '#' line), any number of them:
// SkyPilot puts Ray's prefix before mpirun's.
std::string_view strip_launcher(std::string_view s) {
  for (int guard = 0; guard < 4; ++guard) {
    std::string_view t = trim(s);
    std::size_t n = ompi_tag_length(t);
    if (n == 0) n = srun_label_length(t);
    if (n == 0) n = rank_tag_length(t);
    if (n == 0) n = ray_prefix_length(t);
    if (n == 0) {
      std::size_t colon = t.find(": ");
      if (colon != std::string_view::npos && colon > 0 && colon < 64 && split_words(t.substr(0, colon)).size() == 1 &&
          starts_with(trim(t.substr(colon + 1)), "#"))
        n = colon + 1;
    }
    if (n == 0) return t;
    s = t.substr(n);
  }
  return trim(s);
}

// " NCCL INFO", " NCCL WARN" or " NCCL TRACE" anywhere, or a line that
// starts with "NCCL INFO" / "NCCL WARN"; one scan for " NCCL ".
bool is_nccl_log_line(std::string_view s) {
  if (starts_with(s, "NCCL INFO") || starts_with(s, "NCCL WARN")) return true;
  for (std::size_t at = s.find(" NCCL "); at != std::string_view::npos; at = s.find(" NCCL ", at + 1)) {
    std::string_view level = s.substr(at + 6);
    if (starts_with(level, "INFO") || starts_with(level, "WARN") || starts_with(level, "TRACE")) return true;
  }
  return false;
}

// "NCCL version 2.12.7+cuda11.4" alone or inside an INFO line.
std::optional<std::string> nccl_version_in(std::string_view s) {
  std::size_t at = s.find("NCCL version ");
  if (at == std::string_view::npos) return std::nullopt;
  auto words = split_words(s.substr(at + 13));
  if (words.empty() || !is_digit(words[0].front())) return std::nullopt;
  return std::string(words[0]);
}

std::optional<std::string> nccl_library_version(std::string_view version_line) {
  std::size_t at = version_line.find("nccl-library=");
  if (at == std::string_view::npos) return std::nullopt;
  auto words = split_words(version_line.substr(at + 13));
  auto code = words.empty() ? std::nullopt : whole_number<long>(words[0]);
  if (!code || *code < 2000 || *code > 999999) return std::nullopt;
  long major = *code >= 20900 ? *code / 10000 : *code / 1000;
  long minor = *code >= 20900 ? *code / 100 % 100 : *code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(*code % 100);
}

std::optional<SideBySide> split_side_by_side(std::string_view line) {
  std::size_t bar = line.find('|');
  if (bar == std::string_view::npos || line.find('|', bar + 1) != std::string_view::npos) return std::nullopt;
  SideBySide s{strip_launcher(line.substr(0, bar)), strip_launcher(line.substr(bar + 1))};
  if (!is_table_half(s.left) || !is_table_half(s.right)) return std::nullopt;
  return s;
}

}  // namespace gdrcheck::nccltests

// ASCII text helpers shared by the readers: the class tests, case folding,
// trimming and substring tests that each reader used to write for itself.
//
// They are ASCII on purpose: gdrcheck never sets a locale, so the C
// library's isspace/tolower already meant exactly these sets, and a byte
// >= 0x80 (UTF-8 or garbage from another machine) is never a space, a
// digit or a letter here whatever the locale.
#pragma once

#include <string>
#include <string_view>

namespace gdrcheck::ascii {

// ' ', '\t', '\n', '\v', '\f', '\r': isspace in the C locale.
inline bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}
// ' ', '\t': isblank in the C locale, the padding of a table's cells.
inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
// At least one byte, and only digits.
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}
inline char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}
inline bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// s without leading and trailing is_space bytes.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}
// s without leading and trailing bytes of `set`: for the formats where only
// some blanks are padding (a sysfs value keeps a '\v', a paste line its '\n').
inline std::string_view trim(std::string_view s, std::string_view set) {
  std::size_t first = s.find_first_not_of(set);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(set) - first + 1);
}

}  // namespace gdrcheck::ascii

// Small scanning primitives over std::string_view for the log readers.
//
// The NCCL log reader runs them on every line of multi-GB logs, so they
// never allocate, and substring search jumps with memchr (which the C
// library vectorises) instead of the byte-at-a-time loop of
// std::string_view::find.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gdrcheck::scan {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool is_alnum(char c) {
  return is_digit(c) || is_alpha(c);
}
inline bool is_space(char c) {
  return c == ' ' || c == '\t';
}
inline char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Equality of two short texts (host names, pids, literals of a line)
// with a few word loads: a call to memcmp costs more than such a compare,
// and GCC calls it for lengths that are not a power of two.
namespace detail {
template <class T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace detail

inline bool same_bytes(const char* a, const char* b, std::size_t n) {
  using detail::load;
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8)
      if (load<std::uint64_t>(a + i) != load<std::uint64_t>(b + i)) return false;
    return load<std::uint64_t>(a + n - 8) == load<std::uint64_t>(b + n - 8);
  }
  if (n >= 4)
    return load<std::uint32_t>(a) == load<std::uint32_t>(b) &&
           load<std::uint32_t>(a + n - 4) == load<std::uint32_t>(b + n - 4);
  if (n >= 2)
    return load<std::uint16_t>(a) == load<std::uint16_t>(b) &&
           load<std::uint16_t>(a + n - 2) == load<std::uint16_t>(b + n - 2);
  return n == 0 || *a == *b;
}

inline bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

inline void skip_spaces(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_space(s[n])) ++n;
  s.remove_prefix(n);
}

inline bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// 1..9 digits, so the value always fits an int.
inline std::optional<int> take_int(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && n < 10 && is_digit(s[n])) ++n;
  if (n == 0 || n > 9) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v * 10 + (s[i] - '0');
  s.remove_prefix(n);
  return v;
}

inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// Position of `part` in `s` at or after `from`, or npos. Candidates are
// found 16 bytes at a time where both the first and the last character of
// `part` stand at the right distance (SSE2, part of every x86-64), so
// most lines cost a few vector compares; other targets use memchr.
inline std::size_t find(std::string_view s, std::string_view part, std::size_t from = 0) {
  if (part.empty()) return from <= s.size() ? from : std::string_view::npos;
  if (from > s.size() || s.size() - from < part.size()) return std::string_view::npos;
  const char* base = s.data();
  const std::size_t last = s.size() - part.size();  // last possible start
  std::size_t i = from;
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(part.front());
  const __m128i final = _mm_set1_epi8(part.back());
  for (; i + 16 <= last + 1; i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i + part.size() - 1));
    auto mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, final))));
    while (mask != 0) {
      std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::memcmp(base + at, part.data(), part.size()) == 0) return at;
      mask &= mask - 1;
    }
  }
#endif
  while (i <= last) {
    const void* hit = std::memchr(base + i, part.front(), last - i + 1);
    if (!hit) return std::string_view::npos;
    std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
    if (std::memcmp(base + at, part.data(), part.size()) == 0) return at;
    i = at + 1;
  }
  return std::string_view::npos;
}

// Whether any of the three characters occurs in `s`: one pass that lets
// the caller skip several searches on the lines that cannot match them.
inline bool contains_any_of(std::string_view s, char a, char b, char c) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
  for (; i + 16 <= s.size(); i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)), _mm_cmpeq_epi8(v, vc));
    if (_mm_movemask_epi8(hit) != 0) return true;
  }
#endif
  for (; i < s.size(); ++i)
    if (s[i] == a || s[i] == b || s[i] == c) return true;
  return false;
}

inline bool contains(std::string_view s, std::string_view part) {
  return find(s, part) != std::string_view::npos;
}

// Whether `part` stands at `at` in `s`, letters compared without case.
inline bool iequal_at(std::string_view s, std::size_t at, std::string_view part) {
  for (std::size_t k = 0; k < part.size(); ++k)
    if (lower(s[at + k]) != lower(part[k])) return false;
  return true;
}

// Case-insensitive `contains`. When the first and last characters of
// `part` are letters, sixteen places are tried at once (a letter's two
// cases differ only in bit 0x20), as `find` does.
inline bool icontains(std::string_view s, std::string_view part) {
  if (part.empty()) return true;
  if (s.size() < part.size()) return false;
  const std::size_t last = s.size() - part.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  if (is_alpha(part.front()) && is_alpha(part.back())) {
    const __m128i bit = _mm_set1_epi8(0x20);
    const __m128i first = _mm_set1_epi8(lower(part.front()));
    const __m128i final = _mm_set1_epi8(lower(part.back()));
    for (; i + 16 <= last + 1; i += 16) {
      __m128i a = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i)), bit);
      __m128i b = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i + part.size() - 1)), bit);
      auto mask =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, final))));
      for (; mask != 0; mask &= mask - 1)
        if (iequal_at(s, i + static_cast<std::size_t>(__builtin_ctz(mask)), part)) return true;
    }
  }
#endif
  for (; i <= last; ++i)
    if (iequal_at(s, i, part)) return true;
  return false;
}

// `word` standing alone (not inside a longer alphanumeric run).
inline bool contains_word(std::string_view s, std::string_view word) {
  for (auto p = find(s, word); p != std::string_view::npos; p = find(s, word, p + 1)) {
    bool left = p == 0 || !is_alnum(s[p - 1]);
    bool right = p + word.size() >= s.size() || !is_alnum(s[p + word.size()]);
    if (left && right) return true;
  }
  return false;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace gdrcheck::scan

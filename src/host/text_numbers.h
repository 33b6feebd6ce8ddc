// Numbers in tool and sysfs text, parsed without exceptions or locale:
// `whole_number` accepts only text that is entirely the number,
// `leading_number` the number at the start ("25.0 Gbps (32)" → 25.0).
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>

namespace gdrcheck {

template <class T>
std::optional<T> whole_number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(v)) return std::nullopt;
  return v;
}

template <class T>
std::optional<T> leading_number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(v)) return std::nullopt;
  return v;
}

inline std::optional<double> leading_double(std::string_view s) {
  return leading_number<double>(s);
}

}  // namespace gdrcheck

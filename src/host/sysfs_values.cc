#include "host/sysfs_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

// What is trimmed from a sysfs value: blanks, line ends and a NUL, not a
// '\v' or '\f'. Sized by hand: the literal's '\0' would end it.
constexpr std::string_view kSysfsPadding(" \t\n\r\0", 5);

using CpuRange = std::pair<long, long>;  // inclusive

// Renders CPU ranges as "a-b,c", merging overlapping and adjacent ranges.
std::string render_ranges(std::vector<CpuRange> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<CpuRange> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  std::string out;
  for (const auto& [lo, hi] : merged) {
    if (!out.empty()) out += ',';
    out += std::to_string(lo);
    if (hi != lo) out += "-" + std::to_string(hi);
  }
  return out;
}

constexpr long kMaxCpu = 1 << 16;  // bound ranges so hostile input cannot exhaust memory

}  // namespace

std::optional<uint32_t> parse_sysfs_hex(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 8) return std::nullopt;
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<long> parse_sysfs_int(std::string_view text) {
  return whole_number<long>(ascii::trim(text, kSysfsPadding));
}

std::optional<double> parse_link_speed(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  if (s.find("GT/s") == std::string_view::npos) return std::nullopt;
  auto v = leading_double(s);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::optional<int> parse_link_width(std::string_view text) {
  auto v = whole_number<long>(ascii::trim(text, kSysfsPadding));
  if (!v || *v <= 0 || *v > 32) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> pcie_generation(double gts) {
  const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i)
    if (std::fabs(gts - rates[i]) < 0.01) return i + 1;
  return std::nullopt;
}

std::optional<std::string> parse_cpulist(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  if (s.empty()) return std::nullopt;
  std::vector<CpuRange> ranges;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = s.find(',', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view part = s.substr(i, j - i);
    std::size_t dash = part.find('-');
    auto lo = whole_number<long>(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : whole_number<long>(part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > kMaxCpu) return std::nullopt;
    ranges.emplace_back(*lo, *hi);
    i = j + 1;
  }
  return render_ranges(std::move(ranges));
}

std::optional<std::string> cpumask_to_cpulist(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  if (s.empty()) return std::nullopt;
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = s.find(',', i);
    if (j == std::string_view::npos) j = s.size();
    words.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  if (words.size() > kMaxCpu / 32) return std::nullopt;
  std::vector<CpuRange> ranges;
  long base = 0;
  for (auto it = words.rbegin(); it != words.rend(); ++it, base += 32) {
    if (it->empty()) continue;  // hwloc writes ",," for zero words
    auto w = parse_sysfs_hex(*it);
    if (!w) return std::nullopt;
    for (int b = 0; b < 32; ++b)
      if (*w & (1u << b)) ranges.emplace_back(base + b, base + b);
  }
  return render_ranges(std::move(ranges));
}

std::optional<double> parse_ib_rate_gbps(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  if (s.find("Gb/sec") == std::string_view::npos) return std::nullopt;
  auto v = leading_double(s);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::optional<NumberedState> parse_numbered_state(std::string_view text) {
  std::string_view s = ascii::trim(text, kSysfsPadding);
  auto colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto n = whole_number<long>(ascii::trim(s.substr(0, colon), kSysfsPadding));
  std::string_view name = ascii::trim(s.substr(colon + 1), kSysfsPadding);
  if (!n || name.empty()) return std::nullopt;
  return NumberedState{static_cast<int>(*n), std::string(name)};
}

}  // namespace gdrcheck

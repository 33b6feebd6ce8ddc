#include "bench/repeat_stats.h"

#include <algorithm>

namespace gdrcheck {

std::optional<RepeatStats> repeat_stats(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  RepeatStats s;
  s.count = static_cast<int>(values.size());
  std::size_t n = values.size();
  s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.min = values.front();
  s.max = values.back();
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  return s;
}

}  // namespace gdrcheck

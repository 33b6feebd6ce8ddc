// Median and spread of repeated measurements (`--repeat N`): the median is
// what gets judged, the spread says whether the figure can be trusted.
// Pure.
#pragma once

#include <optional>
#include <vector>

namespace gdrcheck {

struct RepeatStats {
  int count = 0;
  double median = 0, min = 0, max = 0;
  // (max - min) / median; 0 for one value or a zero median.
  double spread = 0;
};

// nullopt for no values.
std::optional<RepeatStats> repeat_stats(std::vector<double> values);

// A spread above this makes the run noisy (a WARNING: the median may be off).
inline constexpr double kNoisySpread = 0.10;

}  // namespace gdrcheck

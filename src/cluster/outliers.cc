#include "cluster/outliers.h"

#include <algorithm>
#include <unordered_map>

namespace gdrcheck {
namespace {

using Counted = std::vector<std::pair<std::string, std::size_t>>;

// Values of aspect `i` with their counts, most common first (ties by text,
// so the order never depends on hashing).
Counted count_values(const std::vector<std::pair<std::string, const Fingerprint*>>& nodes, std::size_t i) {
  std::unordered_map<std::string, std::size_t> counts;
  for (const auto& n : nodes) ++counts[(*n.second)[i].second];
  Counted out(counts.begin(), counts.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace

std::string Outlier::describe() const {
  return host + ": " + aspect + " " + value + " vs " + majority + " on " + std::to_string(majority_nodes) + " of " +
         std::to_string(compared_nodes) + " nodes";
}

OutlierAnalysis find_outliers(const std::vector<std::pair<std::string, const Fingerprint*>>& nodes) {
  OutlierAnalysis out;
  if (nodes.size() < 3) return out;
  const std::size_t aspects = fingerprint_aspects().size();
  std::vector<std::pair<std::size_t, Counted>> majorities;  // aspect index -> counts, when one value leads
  for (std::size_t i = 0; i < aspects; ++i) {
    Counted c = count_values(nodes, i);
    if (c.size() < 2) continue;  // every node agrees
    if (c.front().second * 2 > nodes.size())
      majorities.emplace_back(i, std::move(c));
    else
      out.splits.push_back({fingerprint_aspects()[i], std::move(c), nodes.size()});
  }
  for (const auto& n : nodes)
    for (const auto& [i, counts] : majorities) {
      const std::string& value = (*n.second)[i].second;
      if (value != counts.front().first)
        out.outliers.push_back(
            {n.first, fingerprint_aspects()[i], value, counts.front().first, counts.front().second, nodes.size()});
    }
  return out;
}

}  // namespace gdrcheck

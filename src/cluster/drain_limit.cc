#include "cluster/drain_limit.h"

#include <algorithm>
#include <cmath>

namespace gdrcheck {
namespace {

std::string nodes_text(std::size_t n) {
  return std::to_string(n) + " node" + (n == 1 ? "" : "s");
}

// Whole digits only: "1e3", " 3", "+3", "0x10" are not a node count.
std::optional<double> short_whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  double v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::optional<DrainLimit> parse_drain_limit(const std::string& text) {
  bool percent = !text.empty() && text.back() == '%';
  auto v = short_whole_number(percent ? text.substr(0, text.size() - 1) : text);
  if (!v || *v < 1 || (percent && *v > 100)) return std::nullopt;
  return DrainLimit{*v, percent, text};
}

DrainLimitDecision decide_drain_limit(std::size_t would_drain, std::size_t nodes, const DrainLimit& limit) {
  DrainLimitDecision d;
  // A percentage rounds down (5 % of 64 is 3), but never to zero: one
  // broken node in a small cluster is drained.
  double allowed = limit.percent ? std::floor(limit.value * static_cast<double>(nodes) / 100.0) : limit.value;
  d.limit = static_cast<std::size_t>(std::max(1.0, allowed));
  d.allowed = would_drain <= d.limit;
  if (d.allowed) return d;
  std::string of = limit.percent ? " (" + std::to_string(d.limit) + " of " + std::to_string(nodes) + ")" : "";
  d.why = nodes_text(would_drain) + " would be drained, more than --max-drain " + limit.text + of +
          ": nothing drained; a cluster-wide cause (a manifest, a driver roll-out) is likelier than " +
          std::to_string(would_drain) + " broken nodes";
  return d;
}

}  // namespace gdrcheck

#include "cluster/cluster_verdict.h"

#include <cmath>
#include <cstdlib>

namespace gdrcheck {

std::optional<FailedNodeThreshold> parse_threshold(const std::string& text) {
  if (text.empty()) return std::nullopt;
  FailedNodeThreshold t;
  std::string number = text;
  if (number.back() == '%') {
    t.percent = true;
    number.pop_back();
  }
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  t.value = std::strtod(number.c_str(), &end);
  if (*end != '\0' || !std::isfinite(t.value) || t.value < 0 || (t.percent && t.value > 100)) return std::nullopt;
  if (!t.percent && t.value != std::floor(t.value)) return std::nullopt;  // a node count is whole
  return t;
}

std::size_t failed_nodes(const ClusterModel& m) {
  std::size_t n = 0;
  for (const auto& node : m.nodes) n += node.status == Status::Critical || node.status == Status::Unknown;
  return n;
}

Status cluster_verdict(const ClusterModel& m, const std::optional<FailedNodeThreshold>& threshold) {
  if (m.reported == 0) return Status::Unknown;
  if (!threshold) return m.status;
  double allowed =
      threshold->percent ? threshold->value / 100.0 * static_cast<double>(m.nodes.size()) : threshold->value;
  std::size_t failed = failed_nodes(m);
  if (static_cast<double>(failed) > allowed) return Status::Critical;
  // Within the tolerance: anything not OK still shows as a warning.
  return m.status == Status::Ok ? Status::Ok : Status::Warning;
}

}  // namespace gdrcheck

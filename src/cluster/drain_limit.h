// How many nodes one run may drain (`--max-drain N|N%`, default 5 % of the
// nodes, at least one). Many CRITICAL nodes at once are far more often one
// cluster-wide cause — a wrong manifest value, a driver roll-out, a
// changed NCCL setting — than that many broken nodes, and draining them
// all would take the cluster down for a fault that is not in the nodes.
// Past the limit nothing is drained: a partial drain of an arbitrary
// subset would help no one. Pure: no I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gdrcheck {

struct DrainLimit {
  double value = 5;         // nodes, or percent of the nodes
  bool percent = true;      // "5%"
  std::string text = "5%";  // as given, for messages
};

// "3" (at least 1) or "5%" (more than 0, at most 100); nullopt otherwise.
std::optional<DrainLimit> parse_drain_limit(const std::string& text);

struct DrainLimitDecision {
  bool allowed = true;
  std::size_t limit = 1;  // the nodes the limit allows in this run
  std::string why;        // when not allowed: the message for text and JSON
};

// `would_drain` nodes would be drained in a run over `nodes` nodes.
DrainLimitDecision decide_drain_limit(std::size_t would_drain, std::size_t nodes, const DrainLimit& limit);

}  // namespace gdrcheck

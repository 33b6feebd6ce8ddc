// Outliers: for each fingerprint aspect, the value most nodes share, and
// every node that differs from it, named with the difference ("node17:
// firmware 28.39.1002 vs 28.41.1000 on 63 of 64 nodes"). An aspect where
// no value is held by more than half of the nodes has no majority: it is
// reported as split, with every value and its count, and names no node.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cluster/fingerprint.h"

namespace gdrcheck {

struct Outlier {
  std::string host;
  std::string aspect;    // "firmware"
  std::string value;     // this node's
  std::string majority;  // the majority's
  std::size_t majority_nodes = 0, compared_nodes = 0;

  // "node17: firmware 28.39.1002 vs 28.41.1000 on 63 of 64 nodes"
  std::string describe() const;
};

struct SplitAspect {
  std::string aspect;
  std::vector<std::pair<std::string, std::size_t>> values;  // most common first
  std::size_t compared_nodes = 0;
};

struct OutlierAnalysis {
  std::vector<Outlier> outliers;  // in node order, then aspect order
  std::vector<SplitAspect> splits;
};

// `nodes` pairs each compared host with its fingerprint (nodes without a
// report are not compared). Fewer than 3 nodes have no meaningful
// majority: nothing is reported then.
OutlierAnalysis find_outliers(const std::vector<std::pair<std::string, const Fingerprint*>>& nodes);

}  // namespace gdrcheck

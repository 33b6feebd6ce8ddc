// A node's fingerprint: the facts that should be the same on every node of
// a homogeneous cluster (GPU and NIC models and counts, port rates and
// states, pair classes, driver, firmware, kernel, peer-memory flavour, NCCL
// settings, ACS and IOMMU state), each as one comparable text. Nodes that
// differ from the majority in one of them are the outliers.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cluster/node_report_reader.h"

namespace gdrcheck {

// (aspect, value) in a fixed order; every aspect is always present, "unknown"
// when the report does not tell.
using Fingerprint = std::vector<std::pair<std::string, std::string>>;

// A value longer than this is cut to it and ends "... (N bytes, hash H)".
inline constexpr std::size_t kMaxFingerprintValue = 512;

Fingerprint fingerprint(const NodeReportFacts& report);

// The aspect names, in fingerprint order.
const std::vector<std::string>& fingerprint_aspects();

}  // namespace gdrcheck

// Running the node checks on a root, and looking things up in the report:
// shared by the tests that judge built and recorded roots.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "checks/node_report.h"
#include "host/host_state.h"
#include "host/root.h"
#include "topology/hwloc_source.h"

namespace gdrcheck::testing {

struct Checked {
  HostState host;
  NodeReport report;
};

inline Checked check(const std::string& root, HostReadOptions ro = {}, NodeOptions no = {}) {
  Topology t = read_sysfs_topology(Root(root));
  HostState h = read_host_state(Root(root), pci_functions(t), ro);
  NodeReport r = build_node_report(std::move(t), h, no);
  return {std::move(h), std::move(r)};
}

inline const Finding* find(const NodeReport& r, const std::string& check, const std::string& subject) {
  for (const auto& f : r.findings)
    if (f.check == check && f.subject == subject) return &f;
  return nullptr;
}

// The finding about `subject` among one check's findings, or nullptr.
inline const Finding* find_subject(const std::vector<Finding>& findings, const std::string& subject) {
  for (const auto& f : findings)
    if (f.subject == subject) return &f;
  return nullptr;
}

inline const PairVerdict& pair(const NodeReport& r, const std::string& gpu) {
  for (const auto& p : r.pairs)
    if (p.gpu == gpu) return p;
  throw std::runtime_error("no pair for " + gpu);
}

inline const GdrPrediction& prediction(const NodeReport& r, const std::string& gpu) {
  for (const auto& p : r.predictions)
    if (p.gpu == gpu) return p;
  throw std::runtime_error("no prediction for " + gpu);
}

inline bool has_rule(const GdrPrediction& p, const std::string& part) {
  for (const auto& r : p.rules)
    if (r.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace gdrcheck::testing

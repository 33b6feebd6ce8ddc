// Small hand-made gdrcheck.node/1 reports for the cluster tests that need
// a report to say something no real node says: another host, thousands of
// check ids, a name that is a host list.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/node_result.h"

namespace gdrcheck::testing {

// A report of `host` with overall `status` and these (check, status) findings.
inline std::string minimal_report(const std::string& host, const std::string& status,
                                  const std::vector<std::pair<std::string, std::string>>& findings = {}) {
  nlohmann::json j = {{"schema", "gdrcheck.node/1"},
                      {"host", host},
                      {"status", status},
                      {"gpus", nlohmann::json::array()},
                      {"nics", nlohmann::json::array()},
                      {"pairs", nlohmann::json::array()},
                      {"findings", nlohmann::json::array()}};
  for (const auto& [check, s] : findings)
    j["findings"].push_back({{"check", check}, {"subject", "host"}, {"summary", check + " is " + s}, {"status", s}});
  return j.dump();
}

inline NodeOutcome minimal_outcome(const std::string& addressed, const std::string& raw) {
  NodeOutcome o;
  o.host = addressed;
  o.how = NodeOutcome::How::Report;
  o.raw = raw;
  o.exit_code = 0;
  return o;
}

}  // namespace gdrcheck::testing

#include "report/bandwidth_json.h"

namespace gdrcheck {

using json = nlohmann::json;

json expectation_json(const BandwidthExpectation& e) {
  return {{"known", e.known},
          {"network_bound", e.network_bound},
          {"collective", collective_name(e.collective)},
          {"algorithm", algorithm_name(e.algorithm)},
          {"nics_used", e.nics_used},
          {"per_nic_gbytes", e.per_nic_gbytes},
          {"expected_busbw_gbytes", e.expected_busbw_gbytes},
          {"line_rate_gbytes", e.line_rate_gbytes},
          {"pass_ratio", e.pass_ratio},
          {"pass_busbw_gbytes", e.pass_busbw_gbytes},
          {"basis", e.basis},
          {"assumptions", e.assumptions},
          {"sources", e.sources},
          {"unknown_reason", e.unknown_reason.empty() ? json(nullptr) : json(e.unknown_reason)}};
}

json judgement_json(const BandwidthJudgement& j) {
  return {{"status", status_name(j.status)},
          {"ratio", j.ratio > 0 ? json(j.ratio) : json(nullptr)},
          {"summary", j.summary},
          {"evidence", j.evidence},
          {"fix", j.fix.empty() ? json(nullptr) : json(j.fix)}};
}

}  // namespace gdrcheck

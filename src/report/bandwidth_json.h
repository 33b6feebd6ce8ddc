// JSON of the expected-bandwidth model's figures and judgements, shared by
// `bench --json` and `analyze --json` (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "bench/expected_bandwidth.h"

namespace gdrcheck {

nlohmann::json expectation_json(const BandwidthExpectation& e);
nlohmann::json judgement_json(const BandwidthJudgement& j);

}  // namespace gdrcheck

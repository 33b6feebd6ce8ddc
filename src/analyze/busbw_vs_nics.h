// Relates an nccl-tests run's large-message busbw to what the NICs can
// carry, using the NCCL INFO lines printed in the same output: the NICs'
// speeds (NET/IB speed= lines, NCCL 2.27+, or the topology dump), the hosts
// and ranks, the NET devices the connections use, and NCCL_ALGO when the
// log echoes it. The figures come from the expected-bandwidth model
// (src/bench/expected_bandwidth.h) that `gdrcheck bench` uses. Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "bench/expected_bandwidth.h"
#include "evidence/nccl_log.h"
#include "evidence/nccl_tests.h"

namespace gdrcheck {

struct BusbwVsNics {
  BandwidthScenario scenario;
  BandwidthExpectation expectation;
  BandwidthJudgement judgement;           // UNKNOWN (with the reason) whenever a fact is missing
  std::optional<double> measured_busbw;   // GB/s, the run's largest out-of-place busbw
  std::optional<uint64_t> measured_size;  // bytes
};

// `log` is the NCCL log found in the same input (nullptr when none).
BusbwVsNics compare_busbw_with_nics(const NcclTestsRun& run, const NcclLogReport* log,
                                    const BandwidthOverrides& overrides = {});

}  // namespace gdrcheck

// The judgement of a `gdrcheck bench nccl` run: GPUDirect RDMA proven from
// the log (per node), the large-message busbw against the expected-bandwidth
// model (median over repeats), the A/B gain with GDR forced off, noise, and
// whether the test could run at all. Pure: the runs are already done.
//
// A test that could not run is UNKNOWN with the reason — never a bandwidth
// failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/expected_bandwidth.h"
#include "bench/launcher.h"
#include "bench/nccl_bench.h"
#include "bench/repeat_stats.h"
#include "checks/finding.h"

namespace gdrcheck {

struct NcclBenchReport {
  std::string test = "all_reduce_perf";
  std::string binary;  // resolved path ("" when not found)
  BenchLauncher launcher = BenchLauncher::Local;
  std::vector<std::string> hosts;
  int nodes = 1, ranks_per_node = 1;
  std::vector<std::string> env_notes;          // what the run changed from the user's NCCL settings
  std::vector<NcclRunResult> gdr_on, gdr_off;  // gdr_off: only with --ab
  bool ab = false;
  std::optional<RepeatStats> busbw_on, busbw_off;  // large-message busbw over the runs that ran
  std::string nic_source;                          // "node (this host)", "--nic-rate 400 --nics 8", "" = none
  std::vector<std::string> nic_notes;
  // The model's input (nics_driven_per_node is filled from the log) and the
  // site's overrides; the expectation is computed by judge_nccl_bench.
  BandwidthScenario scenario;
  BandwidthOverrides overrides;
  BandwidthExpectation expectation;
  std::optional<BandwidthJudgement> bandwidth;
  std::optional<double> gain;  // busbw_on / busbw_off - 1
  std::vector<Finding> findings;
  Status status = Status::Unknown;
  std::string units;  // the one line that says bits vs bytes, bus vs algorithm, ring vs tree
};

// Fills busbw_on/off, bandwidth, gain, findings, status and units from the
// runs and the expectation.
void judge_nccl_bench(NcclBenchReport& report);

// A gain below this (5 %) with GDR proven on is a finding: GDR brings no
// measurable bandwidth here, and the report says the likely reasons.
inline constexpr double kMinGdrGain = 0.05;

}  // namespace gdrcheck

// Human text for `gdrcheck bench`: the run, the GDRDMA proof per node, the
// busbw table, the judgement against the expected figure with its units,
// the A/B gain, and the findings that are not OK in full.
#pragma once

#include <string>

#include "bench/nccl_verdict.h"
#include "bench/rdma_bench.h"

namespace gdrcheck {

std::string render_nccl_bench_text(const NcclBenchReport& report, bool verbose);
std::string render_rdma_bench_text(const RdmaBenchReport& report, bool verbose);

}  // namespace gdrcheck

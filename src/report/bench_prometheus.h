// `gdrcheck bench nccl|rdma --format prometheus`: measured bandwidth and the
// bench verdict as gauges (docs/prometheus.md). The nccl and rdma outputs
// have families of their own (gdrcheck_bench_nccl_*, gdrcheck_bench_rdma_*,
// gdrcheck_bench_busbw_*), so both files and the node's share a directory.
#pragma once

#include <string>

#include "bench/nccl_verdict.h"
#include "bench/rdma_bench.h"
#include "report/prometheus_text.h"

namespace gdrcheck {

std::string nccl_bench_prometheus(const NcclBenchReport& r, const PrometheusStamp& stamp);
std::string rdma_bench_prometheus(const RdmaBenchReport& r, const PrometheusStamp& stamp);

}  // namespace gdrcheck

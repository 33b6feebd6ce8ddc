// JSON for `gdrcheck bench` (schema "gdrcheck.bench/1", docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "bench/nccl_verdict.h"
#include "bench/rdma_bench.h"

namespace gdrcheck {

nlohmann::json nccl_bench_json(const NcclBenchReport& report);
nlohmann::json rdma_bench_json(const RdmaBenchReport& report);

}  // namespace gdrcheck

// JSON for `gdrcheck bench` (schema "gdrcheck.bench/1", docs/json.md).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "bench/nccl_verdict.h"
#include "bench/rdma_bench.h"

namespace gdrcheck {

// `now` is when the document was made (tests fix it). `host` is the node
// measured: rdma's `node`; for nccl the one host of a one-node run, null
// for a multi-node run (`hosts` lists them).
nlohmann::json nccl_bench_json(const NcclBenchReport& report,
                               std::chrono::system_clock::time_point now = std::chrono::system_clock::now());
nlohmann::json rdma_bench_json(const RdmaBenchReport& report,
                               std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace gdrcheck

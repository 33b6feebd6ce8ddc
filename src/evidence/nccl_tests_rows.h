// The lines of nccl-tests output that carry facts, one at a time: the
// parameter line, a rank line, the out-of-bounds footer, a result row, an
// error line, and a command line that runs a test binary.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "evidence/nccl_tests.h"

namespace gdrcheck::nccltests {

// "nThread 1 nGpus 1 minBytes 8 ... step: 2(factor) warmup iters: 1 ..."
// as key/value pairs, keys as printed.
std::vector<std::pair<std::string, std::string>> parse_params(std::string_view body);

// "Rank  0 Group  0 Pid  41234 on node01 device  0 [0000:19:00] NVIDIA H100"
// (the text after '#').
std::optional<NcclTestsRank> parse_rank(std::string_view body);

// "Out of bounds values : 0 OK" → {0, false}; "… : 24 FAILED" → {24, true}.
std::optional<std::pair<long, bool>> parse_out_of_bounds(std::string_view body);

// A result row. `width`: columns per result group (4, or 8 with
// per-iteration columns); `width_known`: a header said so; `typed`: a type
// column follows size and count.
std::optional<NcclTestsRow> parse_row(std::string_view text, std::size_t width, bool width_known, bool typed);

// "Test NCCL failure", "Test CUDA failure", ... anywhere in the line.
bool is_error_line(std::string_view s);

// The test a shell or launcher line runs ("./build/all_gather_perf -b 8",
// "srun ... all_reduce_perf_mpi -b 8"), without folder and _mpi suffix;
// "" when it runs none.
std::string command_test_name(std::string_view line);

}  // namespace gdrcheck::nccltests

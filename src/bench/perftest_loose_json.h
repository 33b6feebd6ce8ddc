// perftest's `--out_json` as perftest wrote it from 4.5-0.? (2021) until
// 23.10: one `key: value,` a line, keys and most words unquoted, a comma
// after the last member (linux-rdma/perftest issue #216; made standard JSON
// in 24.01, commit f9e82f7, src/perftest_parameters.c:print_report_bw and
// src/perftest_parameters.h:REPORT_FMT_JSON@23.10.0-0.29):
//
//   {
//   test_info: {
//   test: RDMA_Write_Latency_Test,
//   Device: "rxe0",
//   TX_depth : 1,
//   },
//   results: {
//   MsgSize: 128,
//   percentile_99.9: 4.03,
//   },
//   }
//
// Read line by line into the JSON it stands for: a number stays a number,
// a quoted or bare word becomes a string. Anything else — a line that is
// not a member, a brace, or nesting deeper than perftest's — is not this
// format (nullopt), so a damaged file is refused, not guessed at.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace gdrcheck {

std::optional<nlohmann::json> read_perftest_loose_json(std::string_view text);

}  // namespace gdrcheck

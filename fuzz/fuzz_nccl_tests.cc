// libFuzzer entry point for the nccl-tests output reader. It feeds the
// input both whole and line by line through the streaming parser; any
// crash, sanitizer report or broken invariant (a non-finite number, a row
// cap overrun, the two paths disagreeing) is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/nccl_tests.h"

namespace {

void check(const gdrcheck::NcclTestsReport& report) {
  std::size_t rows = 0;
  for (const auto& run : report.runs) {
    rows += run.rows.size();
    for (const auto& row : run.rows)
      for (const auto& half : {row.out_of_place, row.in_place})
        if (half && (!std::isfinite(half->busbw) || !std::isfinite(half->algbw) || !std::isfinite(half->time_us)))
          __builtin_trap();
    if (run.avg_busbw && !std::isfinite(*run.avg_busbw)) __builtin_trap();
    if (run.rows_with_wrong > 0 && !run.failed) __builtin_trap();
  }
  if (rows > gdrcheck::NcclTestsParser::kMaxRows) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::looks_like_nccl_tests(text);
  auto whole = gdrcheck::parse_nccl_tests(text);
  check(whole);
  // Same lines fed with their '\r\n' ends: the result must not change.
  gdrcheck::NcclTestsParser p;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    p.feed(text.substr(start, end - start));
    start = end;
  }
  auto streamed = p.finish();
  if (streamed.runs.size() != whole.runs.size()) __builtin_trap();
  return 0;
}

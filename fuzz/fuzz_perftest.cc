// libFuzzer entry point for perftest output (ib_write_bw and siblings): the
// text report and the `--out_json` file, read with every unit, and the
// same bytes as a user's paste (`analyze --kind perftest`: runs split by
// command lines and table headers, Markdown dropped, ibstat rates beside
// them) read and judged. The text readers never throw; the JSON readers
// throw std::invalid_argument for what is not a perftest result. Anything
// else is a bug, and so is a non-finite bandwidth: a judge compares it
// with a line rate.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "analyze/perftest_artifact.h"
#include "bench/perftest_output.h"

namespace {

void check(const gdrcheck::PerftestReport& r) {
  for (const auto& row : r.rows) {
    if (!std::isfinite(row.bw_peak) || !std::isfinite(row.bw_average)) __builtin_trap();
    if (row.msg_rate_mpps && !std::isfinite(*row.msg_rate_mpps)) __builtin_trap();
  }
  if (auto g = r.average_gbits(); g && !std::isfinite(*g)) __builtin_trap();
  if (r.unit == gdrcheck::PerftestUnit::Unknown && r.average_gbits()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check(gdrcheck::parse_perftest_text(text));
  for (auto unit : {gdrcheck::PerftestUnit::Gbits, gdrcheck::PerftestUnit::MBytes, gdrcheck::PerftestUnit::Unknown}) {
    try {
      auto r = gdrcheck::parse_perftest_json(text, unit);
      check(r);
      if (r.unit != unit) __builtin_trap();
    } catch (const std::invalid_argument&) {
      break;  // the same text is refused whatever the unit
    }
  }
  try {
    gdrcheck::Artifact a;
    a.kind = gdrcheck::ArtifactKind::Perftest;
    a.perftest = gdrcheck::read_perftest_paste(text);
    for (const auto& run : a.perftest->runs) check(run.report);
    gdrcheck::judge_perftest(a, gdrcheck::BandwidthOverrides{});
    for (const auto& run : a.perftest->runs)
      if (run.average_gbits && !std::isfinite(*run.average_gbits)) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

// libFuzzer entry point for the gdsio output and cufile.log readers, which
// see the same pasted text in `gdrcheck analyze`: any input must give runs
// and findings within their caps, with every fact's lines and quotes in step.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/cufile_log.h"
#include "evidence/gdsio_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::looks_like_gdsio_output(text);
  gdrcheck::looks_like_cufile_log(text);
  gdrcheck::GdsioReport g = gdrcheck::parse_gdsio_output(text);
  if (g.runs.size() > 4096 || g.errors.size() > 256 || g.notes.size() > 64) __builtin_trap();
  for (const auto& r : g.runs) {
    if (r.line == 0 || r.line > g.lines) __builtin_trap();
    if (r.throughput_gib_s && !(*r.throughput_gib_s >= 0)) __builtin_trap();
  }
  gdrcheck::CufileLogReport c = gdrcheck::parse_cufile_log(text);
  if (c.log_lines > c.lines || c.findings.size() > 20 || c.processes > 4096) __builtin_trap();
  for (const auto& f : c.findings) {
    if (f.lines.size() != f.quotes.size() || f.lines.empty() || f.lines.size() > f.count || f.lines.size() > 5)
      __builtin_trap();
    for (const auto& q : f.quotes)
      if (q.size() > 300) __builtin_trap();
  }
  return 0;
}

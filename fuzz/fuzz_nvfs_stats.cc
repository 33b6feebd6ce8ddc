// libFuzzer entry point for the nvidia-fs statistics reader and the
// gds.watch judgement: any input, split into a "before" and an "after"
// reading, must give bounded results and findings whose summaries hold no
// control byte (the command and the data are escaped).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checks/gds_watch.h"
#include "evidence/nvfs_stats.h"

namespace {

bool has_control(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::NvfsStats s = gdrcheck::parse_nvfs_stats(text);
  if (s.gpus.size() > 1024 || s.groups.size() > 64 || s.scalars.size() > 64) __builtin_trap();
  for (const auto& g : s.groups)
    if (g.values.size() > 64) __builtin_trap();
  for (const auto& g : s.gpus)
    if (g.values.size() > 64) __builtin_trap();

  std::size_t half = text.size() / 2;
  gdrcheck::GdsWatchInput in;
  in.command = {"tool", std::string(text.substr(0, 16))};
  in.run.end = gdrcheck::ProcessResult::End::Exited;
  in.run.exit_code = size % 3;
  in.before.stats = gdrcheck::parse_nvfs_stats(text.substr(0, half));
  in.after.stats = gdrcheck::parse_nvfs_stats(text.substr(half));
  in.nvidia_fs_loaded = true;
  gdrcheck::GdsWatch w = gdrcheck::judge_gds_watch(in);
  if (w.findings.empty()) __builtin_trap();
  for (const auto& f : w.findings)
    if (f.check != "gds.watch" || has_control(f.summary)) __builtin_trap();
  // The same reading twice never shows a change.
  in.after = in.before;
  w = gdrcheck::judge_gds_watch(in);
  if (w.counts && (!w.counts->errors_rose.empty() || !w.counts->went_down.empty())) __builtin_trap();
  return 0;
}

// libFuzzer entry point for the NCCL / RCCL debug-log reader. Any input
// must end in a report whose counts agree with each other; a crash, an
// exception or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/nccl_log.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gdrcheck;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)looks_like_nccl_log(text);
  NcclLogReport r = parse_nccl_log(text);
  check(r.net_connections == r.connections.size());
  check(r.gdr_connections <= r.net_connections);
  check(r.connections.size() <= kNcclMaxConnections);
  if (r.net_connections > 0) {
    GdrVerdict want = r.gdr_connections == r.net_connections ? GdrVerdict::Yes
                      : r.gdr_connections == 0               ? GdrVerdict::No
                                                             : GdrVerdict::Partial;
    check(r.verdict == want);
  }
  for (const auto& c : r.connections) check(c.line >= 1 && c.line <= r.lines);
  for (const auto& reason : r.reasons) {
    check(!reason.lines.empty() && reason.lines.size() <= kNcclEvidenceLines);
    check(reason.lines.size() <= reason.count);
    for (std::size_t line : reason.lines) check(line >= 1 && line <= r.lines);
  }
  // Fed again with a version to assume, the same text must parse too.
  (void)parse_nccl_log(text, NcclVersion{2, 12, 12});
  return 0;
}

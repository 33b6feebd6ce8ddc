// libFuzzer entry point for the gdscheck -p reader: any input must give a
// report whose transport lists add up and whose caution note comes first.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/gdscheck.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::looks_like_gdscheck(text);
  gdrcheck::GdscheckReport r = gdrcheck::parse_gdscheck(text);
  if (r.supported.size() + r.compat_only.size() + r.unsupported.size() != r.transports.size()) __builtin_trap();
  if (r.notes.empty() || r.notes[0].find("does not prove") == std::string::npos) __builtin_trap();
  if (r.gpus.size() > 256 || r.transports.size() > 256) __builtin_trap();
  return 0;
}

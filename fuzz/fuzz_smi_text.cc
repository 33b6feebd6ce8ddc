// libFuzzer entry point for the pasted `nvidia-smi topo -m` reader.
// Any input must end in a Topology or an InputError: anything else (a
// crash, another exception, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "topology/input_error.h"
#include "topology/smi_text_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool looks = gdrcheck::looks_like_smi_text(text);
  try {
    gdrcheck::Topology t = gdrcheck::read_smi_text(text, "fuzz-input");
    // Every printed cell must name endpoints the reader created.
    for (const auto& [key, code] : t.printed_matrix)
      if (!t.find(key.first) || !t.find(key.second)) __builtin_trap();
  } catch (const gdrcheck::InputError&) {
  }
  (void)looks;
  return 0;
}

// Feeds arbitrary bytes to the NCCL topology XML reader. InputError is the
// expected answer to bad input; anything else (crash, other exception,
// sanitizer report) is a bug. Whatever parses is also pushed through the
// NCCL view and classified, since hostile trees reach that code too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "topology/input_error.h"
#include "topology/nccl_view.h"
#include "topology/nccl_xml_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::looks_like_nccl_xml(text);
  try {
    gdrcheck::Topology t = gdrcheck::read_nccl_xml(text, "fuzz.xml");
    gdrcheck::Topology v = gdrcheck::nccl_view(t);
    // Bounded: at most 64 × 64 pairs.
    std::size_t n = v.endpoints.size() < 64 ? v.endpoints.size() : 64;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        gdrcheck::nccl_class(v, v.endpoints[i], v.endpoints[j]);
        gdrcheck::smi_class(t, t.endpoints[i], t.endpoints[j]);
      }
  } catch (const gdrcheck::InputError&) {
  }
  return 0;
}

// libFuzzer entry point for the ibstat / ibv_devinfo reader: any input must
// give a report within its caps, with finite positive rates only.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/ibv_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::looks_like_ibv_text(text);
  gdrcheck::IbvReport r = gdrcheck::parse_ibv_text(text);
  if (r.devices.size() > 1024) __builtin_trap();
  for (const auto& d : r.devices) {
    if (d.ports.size() > 64) __builtin_trap();
    for (const auto& p : d.ports)
      if (p.rate_gbps && (!std::isfinite(*p.rate_gbps) || *p.rate_gbps <= 0)) __builtin_trap();
  }
  return 0;
}

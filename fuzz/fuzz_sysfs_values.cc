// Feeds arbitrary bytes to every sysfs value parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "host/sysfs_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gdrcheck::parse_sysfs_hex(text);
  gdrcheck::parse_sysfs_int(text);
  if (auto s = gdrcheck::parse_link_speed(text)) gdrcheck::pcie_generation(*s);
  gdrcheck::parse_link_width(text);
  gdrcheck::parse_cpulist(text);
  gdrcheck::cpumask_to_cpulist(text);
  gdrcheck::parse_ib_rate_gbps(text);
  gdrcheck::parse_numbered_state(text);
  return 0;
}

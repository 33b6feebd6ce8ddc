// A PCI function address, "dddd:bb:dd.f".
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;    // 5 bits
  uint8_t function = 0;  // 3 bits

  // Accepts "dddd:bb:dd.f" and "bb:dd.f" (domain 0), any case; also the
  // 8-digit domains of Hyper-V ("00000001:00:00.0") and nvidia-smi's
  // "00000000:17:00.0". Returns nullopt for anything else.
  static std::optional<PciAddress> parse(std::string_view text);

  // "0000:17:00.0", lower case, domain at least 4 digits.
  std::string str() const;

  auto operator<=>(const PciAddress&) const = default;
};

}  // namespace gdrcheck

#include "topology/pci_address.h"

#include <cstdio>

namespace gdrcheck {
namespace {

std::optional<uint32_t> parse_hex(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  uint32_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

}  // namespace

std::optional<PciAddress> PciAddress::parse(std::string_view text) {
  auto dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto fn = parse_hex(text.substr(dot + 1), 1);
  std::string_view head = text.substr(0, dot);
  auto c2 = head.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  auto dev = parse_hex(head.substr(c2 + 1), 2);
  std::string_view rest = head.substr(0, c2);
  std::optional<uint32_t> domain = 0, bus;
  auto c1 = rest.rfind(':');
  if (c1 == std::string_view::npos) {
    bus = parse_hex(rest, 2);
  } else {
    bus = parse_hex(rest.substr(c1 + 1), 2);
    domain = parse_hex(rest.substr(0, c1), 8);
  }
  if (!fn || !dev || !bus || !domain || *fn > 7 || *dev > 31) return std::nullopt;
  PciAddress a;
  a.domain = *domain;
  a.bus = static_cast<uint8_t>(*bus);
  a.device = static_cast<uint8_t>(*dev);
  a.function = static_cast<uint8_t>(*fn);
  return a;
}

std::string PciAddress::str() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return buf;
}

}  // namespace gdrcheck

// Device model names from the PCI ID database (pci.ids through libpci):
// 10de:2330 → "GH100 [H100 SXM5 80GB]", 15b3:1021 → "MT2910 Family [ConnectX-7]".
#pragma once

#include <cstdint>
#include <string>

namespace gdrcheck {

// Empty when the database is missing or does not know the device.
std::string pci_device_name(uint16_t vendor, uint16_t device);
std::string pci_vendor_name(uint16_t vendor);

}  // namespace gdrcheck

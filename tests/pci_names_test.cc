#include "host/pci_names.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(PciNames, NamesKnownDevicesFromPciIds) {
  EXPECT_NE(pci_device_name(0x10de, 0x2330).find("H100"), std::string::npos);
  EXPECT_NE(pci_device_name(0x15b3, 0x1021).find("ConnectX-7"), std::string::npos);
  EXPECT_NE(pci_vendor_name(0x15b3).find("Mellanox"), std::string::npos);
}

TEST(PciNames, UnknownDeviceHasNoName) {
  EXPECT_EQ(pci_device_name(0xfffe, 0xfffe), "");
}

}  // namespace
}  // namespace gdrcheck

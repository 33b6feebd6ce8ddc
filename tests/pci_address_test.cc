#include "topology/pci_address.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(PciAddress, ParsesAndFormats) {
  auto a = PciAddress::parse("0000:17:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 0x17);
  EXPECT_EQ(a->str(), "0000:17:00.0");
  EXPECT_EQ(PciAddress::parse("1A:00.1")->str(), "0000:1a:00.1");
  EXPECT_EQ(PciAddress::parse("00000000:17:00.0")->str(), "0000:17:00.0");  // nvidia-smi form
  EXPECT_EQ(PciAddress::parse("0101:00:00.0")->domain, 0x0101u);            // Hyper-V domains
}

TEST(PciAddress, RejectsGarbage) {
  for (const char* bad : {"", "17:00", "0000:17:00.8", "0000:17:20.0", "0000:1g:00.0", "pci0000:17", "0:0:0:0.0"})
    EXPECT_FALSE(PciAddress::parse(bad)) << bad;
}

TEST(PciAddress, Orders) {
  EXPECT_LT(*PciAddress::parse("0000:17:00.0"), *PciAddress::parse("0000:18:00.0"));
  EXPECT_LT(*PciAddress::parse("0000:ff:00.0"), *PciAddress::parse("0001:00:00.0"));
}

}  // namespace
}  // namespace gdrcheck

#include "pcie/config_space.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace gdrcheck {
namespace {

using Problems = std::vector<std::string>;

// ---- images for the round trips (realistic IDs; see platform-spec §1.3) ----

ConfigImage::Pcie pcie_link(PciePortType type, int cap_speed, int cap_width, int sta_speed, int sta_width) {
  ConfigImage::Pcie p;
  p.port_type = type;
  p.link_cap = {cap_speed, cap_width};
  p.link_status = {sta_speed, sta_width};
  return p;
}

ConfigImage bridge(uint16_t vendor, uint16_t device, uint8_t pri, uint8_t sec, uint8_t sub, ConfigImage::Pcie p) {
  ConfigImage img;
  img.vendor = vendor;
  img.device = device;
  img.class_code = 0x060400;
  img.bridge = true;
  img.primary_bus = pri;
  img.secondary_bus = sec;
  img.subordinate_bus = sub;
  img.pcie = p;
  return img;
}

ConfigImage root_port() {  // Intel Sapphire Rapids root port, Gen5 x16, ACS as the kernel sets it with an IOMMU
  ConfigImage img = bridge(0x8086, 0x352a, 0x15, 0x16, 0x1a, pcie_link(PciePortType::RootPort, 5, 16, 5, 16));
  img.acs = ConfigImage::Acs{0x005f, 0x001d};
  return img;
}

ConfigImage switch_upstream() {  // Broadcom PEX890xx upstream port: no ACS of its own
  return bridge(0x1000, 0xc030, 0x16, 0x17, 0x1a, pcie_link(PciePortType::UpstreamPort, 5, 16, 5, 16));
}

ConfigImage switch_downstream() {  // same switch, downstream port with redirect on
  ConfigImage img = bridge(0x1000, 0xc030, 0x17, 0x18, 0x18, pcie_link(PciePortType::DownstreamPort, 5, 16, 5, 16));
  img.acs = ConfigImage::Acs{0x001d, 0x001d};
  return img;
}

ConfigImage gpu_idle() {  // H100 SXM: Gen5 x16 capable, parked at Gen1 while idle
  ConfigImage img;
  img.vendor = 0x10de;
  img.device = 0x2330;
  img.subsystem_vendor = 0x10de;
  img.subsystem_device = 0x16c1;
  img.class_code = 0x030200;
  img.pcie = pcie_link(PciePortType::Endpoint, 5, 16, 1, 16);
  img.pcie->max_payload = 256;
  img.pcie->max_read_request = 512;
  img.pcie->relaxed_ordering = false;
  return img;
}

ConfigImage nic_x8() {  // ConnectX-7 in a slot that only trained x8
  ConfigImage img;
  img.vendor = 0x15b3;
  img.device = 0x1021;
  img.class_code = 0x020700;
  img.pcie = pcie_link(PciePortType::Endpoint, 5, 16, 5, 8);
  img.pcie->max_payload = 512;
  img.pcie->max_read_request = 4096;
  img.pcie->relaxed_ordering = true;
  img.acs = ConfigImage::Acs{0x005f, 0x0000};
  return img;
}

void expect_round_trip(const ConfigImage& img) {
  std::string bytes = encode_config(img);
  ASSERT_EQ(bytes.size(), img.size);
  ConfigSpace cs = decode_config(bytes);
  EXPECT_EQ(cs.access, ConfigAccess::Full);
  EXPECT_EQ(cs.vendor, img.vendor);
  EXPECT_EQ(cs.device, img.device);
  EXPECT_EQ(cs.class_code, img.class_code);
  EXPECT_EQ(cs.header_type, img.bridge ? 1 : 0);
  EXPECT_EQ(cs.secondary_bus, img.bridge ? img.secondary_bus : 0);
  EXPECT_EQ(cs.subordinate_bus, img.bridge ? img.subordinate_bus : 0);
  ASSERT_TRUE(cs.pcie);
  EXPECT_EQ(cs.pcie->offset, 0x60);
  EXPECT_EQ(cs.pcie->version, 2);
  EXPECT_EQ(cs.pcie->port_type, img.pcie->port_type);
  EXPECT_EQ(cs.pcie->link_cap.speed_code, img.pcie->link_cap.speed_code);
  EXPECT_EQ(cs.pcie->link_cap.width, img.pcie->link_cap.width);
  EXPECT_EQ(cs.pcie->link_status.speed_code, img.pcie->link_status.speed_code);
  EXPECT_EQ(cs.pcie->link_status.width, img.pcie->link_status.width);
  EXPECT_EQ(cs.pcie->max_payload, img.pcie->max_payload);
  EXPECT_EQ(cs.pcie->max_payload_supported, img.pcie->max_payload);
  EXPECT_EQ(cs.pcie->max_read_request, img.pcie->max_read_request);
  EXPECT_EQ(cs.pcie->relaxed_ordering, img.pcie->relaxed_ordering);
  ASSERT_EQ(cs.acs.has_value(), img.acs.has_value());
  if (img.acs) {
    EXPECT_EQ(cs.acs->offset, 0x148);
    EXPECT_EQ(cs.acs->capability, img.acs->capability);
    EXPECT_EQ(cs.acs->control, img.acs->control);
  }
  EXPECT_EQ(cs.problems, Problems{});
}

TEST(ConfigSpaceRoundTrip, RootPort) {
  expect_round_trip(root_port());
  ConfigSpace cs = decode_config(encode_config(root_port()));
  EXPECT_EQ(cs.pcie->port_type, PciePortType::RootPort);
  EXPECT_EQ(cs.secondary_bus, 0x16);
  EXPECT_EQ(cs.subordinate_bus, 0x1a);
  EXPECT_EQ(cs.pcie->link_cap.gts(), 32.0);
}

TEST(ConfigSpaceRoundTrip, BroadcomSwitchPorts) {
  expect_round_trip(switch_upstream());
  expect_round_trip(switch_downstream());
  ConfigSpace up = decode_config(encode_config(switch_upstream()));
  EXPECT_EQ(up.pcie->port_type, PciePortType::UpstreamPort);
  EXPECT_FALSE(up.acs);
  EXPECT_TRUE(up.acs_known());
  ConfigSpace down = decode_config(encode_config(switch_downstream()));
  EXPECT_EQ(down.pcie->port_type, PciePortType::DownstreamPort);
  ASSERT_TRUE(down.acs);
  EXPECT_EQ(down.acs->control, 0x001d);
  EXPECT_NE(down.acs->control & kAcsRedirectMask, 0);
  EXPECT_EQ(acs_flags_string(down.acs->control),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
}

TEST(ConfigSpaceRoundTrip, IdleGpuAtGen1) {
  expect_round_trip(gpu_idle());
  ConfigSpace cs = decode_config(encode_config(gpu_idle()));
  EXPECT_EQ(cs.pcie->link_cap.gts(), 32.0);
  EXPECT_EQ(cs.pcie->link_status.gts(), 2.5);
  EXPECT_EQ(cs.pcie->link_status.width, 16);
  EXPECT_FALSE(cs.pcie->relaxed_ordering);
}

TEST(ConfigSpaceRoundTrip, NicAtX8OfX16) {
  expect_round_trip(nic_x8());
  ConfigSpace cs = decode_config(encode_config(nic_x8()));
  EXPECT_EQ(cs.pcie->link_cap.width, 16);
  EXPECT_EQ(cs.pcie->link_status.width, 8);
  EXPECT_EQ(cs.pcie->max_read_request, 4096);
  EXPECT_EQ(cs.pcie->max_payload, 512);
}

TEST(ConfigSpaceRoundTrip, OtherPortTypeAndNoPcie) {
  ConfigImage odd = gpu_idle();
  odd.pcie->port_type = PciePortType::Other;
  expect_round_trip(odd);
  // A conventional PCI function: no capability list at all, ACS still found.
  ConfigImage legacy = nic_x8();
  legacy.pcie.reset();
  ConfigSpace cs = decode_config(encode_config(legacy));
  EXPECT_EQ(cs.vendor, 0x15b3);
  EXPECT_FALSE(cs.pcie);
  ASSERT_TRUE(cs.acs);
  EXPECT_EQ(cs.acs->capability, 0x005f);
  EXPECT_EQ(cs.problems, Problems{});
}

// ---- encoder layout: pinned so recorded fixtures stay byte-stable ----

TEST(ConfigSpaceEncode, LayoutOfAnEndpoint) {
  std::string b = encode_config(nic_x8());
  auto u8 = [&](std::size_t o) { return static_cast<uint8_t>(b[o]); };
  auto u16 = [&](std::size_t o) { return u8(o) | u8(o + 1) << 8; };
  EXPECT_EQ(u16(0x04), 0x0006);
  EXPECT_EQ(u16(0x06), 0x0010);
  EXPECT_EQ(u8(0x0E), 0x00);
  EXPECT_EQ(u8(0x34), 0x40);
  EXPECT_EQ(u8(0x40), 0x01);  // PM -> MSI-X -> PCIe
  EXPECT_EQ(u8(0x41), 0x50);
  EXPECT_EQ(u8(0x50), 0x11);
  EXPECT_EQ(u8(0x51), 0x60);
  EXPECT_EQ(u8(0x60), 0x10);
  EXPECT_EQ(u8(0x61), 0x00);
  EXPECT_EQ(u16(0x62), 0x0002);      // version 2, endpoint
  EXPECT_EQ(u8(0x60 + 0x2C), 0x3E);  // LnkCap2: 2.5..32 GT/s
  EXPECT_EQ(u16(0x100), 0x0001);     // AER, next 0x148
  EXPECT_EQ(u16(0x102), 0x1482);
  EXPECT_EQ(u16(0x148), 0x000D);
}

TEST(ConfigSpaceEncode, BridgeSkipsMsix) {
  std::string b = encode_config(switch_downstream());
  EXPECT_EQ(static_cast<uint8_t>(b[0x0E]), 0x01);
  EXPECT_EQ(static_cast<uint8_t>(b[0x41]), 0x60);
  EXPECT_EQ(static_cast<uint8_t>(b[0x50]), 0x00);
  EXPECT_EQ(static_cast<uint8_t>(b[0x18]), 0x17);
  EXPECT_EQ(static_cast<uint8_t>(b[0x62]), 0x62);  // version 2 | downstream port << 4
}

// ---- capture sizes ----

TEST(ConfigSpaceSizes, UnprivilegedSixtyFourBytes) {
  ConfigImage img = gpu_idle();
  img.size = 64;
  std::string bytes = encode_config(img);
  ASSERT_EQ(bytes.size(), 64u);
  ConfigSpace cs = decode_config(bytes);
  EXPECT_EQ(cs.access, ConfigAccess::HeaderOnly);
  EXPECT_EQ(cs.size, 64u);
  EXPECT_EQ(cs.vendor, 0x10de);
  EXPECT_EQ(cs.device, 0x2330);
  EXPECT_EQ(cs.class_code, 0x030200u);
  EXPECT_FALSE(cs.capabilities_known());
  EXPECT_FALSE(cs.pcie);
  EXPECT_FALSE(cs.acs);
  EXPECT_EQ(cs.problems, Problems{});
}

TEST(ConfigSpaceSizes, TwoFiftySixBytesKnowsPcieNotAcs) {
  ConfigImage img = root_port();
  img.size = 256;
  std::string bytes = encode_config(img);
  ASSERT_EQ(bytes.size(), 256u);
  ConfigSpace cs = decode_config(bytes);
  EXPECT_EQ(cs.access, ConfigAccess::NoExtended);
  EXPECT_TRUE(cs.capabilities_known());
  EXPECT_FALSE(cs.acs_known());
  ASSERT_TRUE(cs.pcie);
  EXPECT_EQ(cs.pcie->port_type, PciePortType::RootPort);
  EXPECT_EQ(cs.pcie->link_status.width, 16);
  EXPECT_FALSE(cs.acs);
  EXPECT_EQ(cs.problems, Problems{});
}

TEST(ConfigSpaceSizes, EncoderHonoursOddSizes) {
  for (std::size_t n : {0u, 63u, 65u, 300u, 5000u}) {
    ConfigImage img = switch_downstream();
    img.size = n;
    EXPECT_EQ(encode_config(img).size(), n);
  }
  ConfigImage img = switch_downstream();
  img.size = 5000;
  ConfigSpace big = decode_config(encode_config(img));
  EXPECT_EQ(big.access, ConfigAccess::Full);
  ASSERT_TRUE(big.acs);
  EXPECT_EQ(big.acs->control, 0x001d);
  img.size = 300;
  ConfigSpace mid = decode_config(encode_config(img));
  EXPECT_EQ(mid.access, ConfigAccess::NoExtended);
  EXPECT_TRUE(mid.pcie);
  EXPECT_FALSE(mid.acs);
}

// ---- hand-written byte images: nothing here comes from encode_config ----

// A blank config of `n` bytes with a PCIe-looking header and the
// capability-list status bit set; tests poke the list in by hand.
std::string blank(std::size_t n, uint8_t cap_ptr) {
  std::string b(n, '\0');
  auto put = [&](std::size_t o, uint8_t v) {
    if (o < n) b[o] = static_cast<char>(v);
  };
  put(0x00, 0xb3), put(0x01, 0x15);  // vendor 0x15b3
  put(0x02, 0x1d), put(0x03, 0x10);  // device 0x101d
  put(0x06, 0x10);                   // status: capability list
  put(0x0B, 0x02);                   // class 0x020000
  put(0x34, cap_ptr);
  return b;
}

void poke(std::string& b, std::size_t off, std::initializer_list<uint8_t> bytes) {
  for (uint8_t v : bytes) b.at(off++) = static_cast<char>(v);
}

TEST(ConfigSpaceMalformed, LoopedCapabilityChain) {
  std::string b = blank(256, 0x40);
  poke(b, 0x40, {0x01, 0x50});              // PM -> 0x50
  poke(b, 0x50, {0x10, 0x40, 0x62, 0x00});  // PCIe v2 downstream port -> back to 0x40
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"capability chain looped at 0x40"});
  ASSERT_TRUE(cs.pcie);  // found before the loop, so it stays
  EXPECT_EQ(cs.pcie->offset, 0x50);
  EXPECT_EQ(cs.pcie->port_type, PciePortType::DownstreamPort);
}

TEST(ConfigSpaceMalformed, SelfLoop) {
  std::string b = blank(256, 0x40);
  poke(b, 0x40, {0x01, 0x43});  // next masked & ~3 -> 0x40 itself
  EXPECT_EQ(decode_config(b).problems, Problems{"capability chain looped at 0x40"});
}

TEST(ConfigSpaceMalformed, BrokenChain) {
  std::string b = blank(256, 0x40);
  poke(b, 0x40, {0x01, 0x48});
  poke(b, 0x48, {0xff, 0x60});
  poke(b, 0x60, {0x10, 0x00, 0x02, 0x00});
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"capability chain broken at 0x48 (ID 0xff)"});
  EXPECT_FALSE(cs.pcie);
}

TEST(ConfigSpaceMalformed, NextPointerOutOfRange) {
  std::string b = blank(256, 0x40);
  poke(b, 0x40, {0x01, 0x38});  // points back into the header
  EXPECT_EQ(decode_config(b).problems, Problems{"capability pointer out of range: 0x38"});
  std::string start = blank(256, 0x10);  // bad start pointer
  EXPECT_EQ(decode_config(start).problems, Problems{"capability pointer out of range: 0x10"});
}

TEST(ConfigSpaceMalformed, NoCapListBitMeansNoWalk) {
  std::string b = blank(256, 0x40);
  poke(b, 0x06, {0x00});
  poke(b, 0x40, {0xff, 0x00});  // would be "broken" if walked
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{});
  EXPECT_FALSE(cs.pcie);
}

TEST(ConfigSpaceMalformed, PcieCapTruncatedAtEndOf256) {
  std::string b = blank(256, 0xf0);
  poke(b, 0xf0, {0x10, 0x00, 0x02, 0x00});  // PCIe v2 endpoint, last in list
  poke(b, 0xf4, {0x02, 0x00, 0x00, 0x00});  // DevCap: MPS 512 supported
  poke(b, 0xf8, {0x30, 0x50});              // DevCtl: RO, MPS 256, MRRS 4096
  poke(b, 0xfc, {0x84, 0x00, 0x00, 0x00});  // LnkCap: Gen4 x8; LnkSta would be at 0x102
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"PCI Express capability at 0xf0 truncated at +0x12"});
  ASSERT_TRUE(cs.pcie);
  EXPECT_EQ(cs.pcie->port_type, PciePortType::Endpoint);
  EXPECT_EQ(cs.pcie->max_payload_supported, 512);
  EXPECT_EQ(cs.pcie->max_payload, 256);
  EXPECT_EQ(cs.pcie->max_read_request, 4096);
  EXPECT_TRUE(cs.pcie->relaxed_ordering);
  EXPECT_EQ(cs.pcie->link_cap.speed_code, 4);
  EXPECT_EQ(cs.pcie->link_cap.width, 8);
  EXPECT_EQ(cs.pcie->link_status.speed_code, 0);
  EXPECT_EQ(cs.pcie->link_status.width, 0);
}

TEST(ConfigSpaceMalformed, PcieCapInLastSlot) {
  std::string b = blank(256, 0xfc);
  poke(b, 0xfc, {0x10, 0x00, 0x42, 0x00});  // flags fit; DevCap would start at 0x100
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"PCI Express capability at 0xfc truncated at +0x04"});
  ASSERT_TRUE(cs.pcie);
  EXPECT_EQ(cs.pcie->port_type, PciePortType::RootPort);
  EXPECT_EQ(cs.pcie->max_payload, 0);
  // Extended space is not standard-capability space: same verdict at 4 KiB.
  std::string full = b + std::string(4096 - 256, '\x01');
  poke(full, 0x100, {0, 0, 0, 0});
  EXPECT_EQ(decode_config(full).problems, cs.problems);
}

std::string blank_full() {
  std::string b = blank(4096, 0x00);
  poke(b, 0x06, {0x00});
  return b;
}

TEST(ConfigSpaceMalformed, ExtendedCapabilityLoop) {
  std::string b = blank_full();
  poke(b, 0x100, {0x01, 0x00, 0x02, 0x14});  // AER v2 -> 0x140
  poke(b, 0x140, {0x0d, 0x00, 0x01, 0x10});  // ACS v1 -> 0x100 again
  poke(b, 0x144, {0x5f, 0x00, 0x1d, 0x00});
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"extended capability chain looped at 0x100"});
  ASSERT_TRUE(cs.acs);
  EXPECT_EQ(cs.acs->offset, 0x140);
  EXPECT_EQ(cs.acs->capability, 0x005f);
  EXPECT_EQ(cs.acs->control, 0x001d);
}

TEST(ConfigSpaceMalformed, ExtendedPointerOutOfRange) {
  std::string b = blank_full();
  poke(b, 0x100, {0x01, 0x00, 0x02, 0x0f});  // next = 0x0f0, inside standard space
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"extended capability pointer out of range: 0x0f0"});
  EXPECT_FALSE(cs.acs);
}

TEST(ConfigSpaceMalformed, ExtendedChainTooLong) {
  std::string b = blank_full();
  for (std::size_t off = 0x100; off < 0x100 + 70 * 4; off += 4) {
    std::size_t next = off + 4;  // AER-ID entries, each pointing at the next dword
    poke(b, off, {0x01, 0x00, static_cast<uint8_t>((next << 4) & 0xf0), static_cast<uint8_t>(next >> 4)});
  }
  EXPECT_EQ(decode_config(b).problems, Problems{"extended capability chain longer than 64 entries"});
}

TEST(ConfigSpaceMalformed, AcsTruncatedAtEnd) {
  std::string b = blank_full();
  poke(b, 0x100, {0x01, 0x00, 0xc2, 0xff});  // AER -> 0xffc
  poke(b, 0xffc, {0x0d, 0x00, 0x01, 0x00});  // ACS header in the last dword
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.problems, Problems{"ACS capability at 0xffc truncated"});
  EXPECT_FALSE(cs.acs);
}

TEST(ConfigSpaceMalformed, AllOnesDeviceAbsent) {
  ConfigSpace cs = decode_config(std::string(4096, '\xff'));
  EXPECT_EQ(cs.access, ConfigAccess::Full);
  EXPECT_EQ(cs.vendor, 0xffff);
  EXPECT_EQ(cs.device, 0xffff);
  EXPECT_EQ(cs.class_code, 0xffffffu);
  EXPECT_EQ(cs.header_type, 0x7f);
  EXPECT_EQ(cs.secondary_bus, 0);
  EXPECT_FALSE(cs.pcie);
  EXPECT_FALSE(cs.acs);
  EXPECT_EQ(cs.problems, (Problems{"vendor ID 0xffff: function absent or not responding",
                                   "capability chain broken at 0xfc (ID 0xff)"}));
}

TEST(ConfigSpaceMalformed, AllZero) {
  ConfigSpace cs = decode_config(std::string(4096, '\0'));
  EXPECT_EQ(cs.access, ConfigAccess::Full);
  EXPECT_EQ(cs.vendor, 0);
  EXPECT_EQ(cs.class_code, 0u);
  EXPECT_FALSE(cs.pcie);
  EXPECT_FALSE(cs.acs);
  EXPECT_EQ(cs.problems, Problems{});
}

TEST(ConfigSpaceMalformed, Empty) {
  ConfigSpace cs = decode_config("");
  EXPECT_EQ(cs.access, ConfigAccess::Missing);
  EXPECT_EQ(cs.size, 0u);
  EXPECT_EQ(cs.problems, Problems{});
}

TEST(ConfigSpaceMalformed, OddSizes) {
  ConfigSpace short_header = decode_config(blank(63, 0x40));
  EXPECT_EQ(short_header.access, ConfigAccess::HeaderOnly);
  EXPECT_EQ(short_header.size, 63u);
  EXPECT_EQ(short_header.vendor, 0);  // an incomplete header is not decoded
  EXPECT_EQ(short_header.problems, Problems{"config header truncated: 63 bytes (need 64)"});

  std::string b65 = blank(65, 0x40);
  ConfigSpace h65 = decode_config(b65);
  EXPECT_EQ(h65.access, ConfigAccess::HeaderOnly);
  EXPECT_EQ(h65.vendor, 0x15b3);
  EXPECT_EQ(h65.device, 0x101d);
  EXPECT_EQ(h65.class_code, 0x020000u);
  EXPECT_FALSE(h65.pcie);
  EXPECT_EQ(h65.problems, Problems{});

  std::string b300 = blank(300, 0x40);
  poke(b300, 0x40, {0x10, 0x00, 0x02, 0x00});
  poke(b300, 0x4c, {0x05, 0x01, 0x00, 0x00});   // LnkCap Gen5 x16
  poke(b300, 0x52, {0x03, 0x01});               // LnkSta Gen3 x16
  poke(b300, 0x100, {0x0d, 0x00, 0x01, 0x00});  // ACS that a 300-byte capture cannot claim to know
  ConfigSpace h300 = decode_config(b300);
  EXPECT_EQ(h300.access, ConfigAccess::NoExtended);
  ASSERT_TRUE(h300.pcie);
  EXPECT_EQ(h300.pcie->link_cap.gts(), 32.0);
  EXPECT_EQ(h300.pcie->link_status.gts(), 8.0);
  EXPECT_FALSE(h300.acs);
  EXPECT_EQ(h300.problems, Problems{});
}

TEST(ConfigSpaceMalformed, BridgeBusNumbersAndReservedPortType) {
  std::string b = blank(256, 0x40);
  poke(b, 0x0E, {0x81});  // multifunction bridge
  poke(b, 0x18, {0x03, 0x04, 0x09});
  poke(b, 0x40, {0x10, 0x00, 0x32, 0x00});  // port type 3 is reserved
  ConfigSpace cs = decode_config(b);
  EXPECT_EQ(cs.header_type, 1);
  EXPECT_EQ(cs.secondary_bus, 0x04);
  EXPECT_EQ(cs.subordinate_bus, 0x09);
  ASSERT_TRUE(cs.pcie);
  EXPECT_EQ(cs.pcie->port_type, PciePortType::Other);
}

// ---- names and small helpers ----

TEST(ConfigSpaceNames, AcsFlags) {
  EXPECT_EQ(acs_flags_string(0x0000),
            "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-");
  EXPECT_EQ(acs_flags_string(0x001d),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  EXPECT_EQ(acs_flags_string(0x005f),
            "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+");
  EXPECT_EQ(acs_flags_string(0xff80), acs_flags_string(0x0000));  // bits above 6 are not shown
}

TEST(ConfigSpaceNames, PortTypesAndAccess) {
  EXPECT_STREQ(pcie_port_type_name(PciePortType::Endpoint), "endpoint");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::LegacyEndpoint), "legacy endpoint");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::RootPort), "root port");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::UpstreamPort), "upstream port");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::DownstreamPort), "downstream port");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::PcieToPciBridge), "PCIe-to-PCI bridge");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::PciToPcieBridge), "PCI-to-PCIe bridge");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::RootComplexIntegrated), "root complex integrated endpoint");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::RootComplexEventCollector), "root complex event collector");
  EXPECT_STREQ(pcie_port_type_name(PciePortType::Other), "other");
  EXPECT_STREQ(config_access_name(ConfigAccess::Missing), "missing");
  EXPECT_STREQ(config_access_name(ConfigAccess::HeaderOnly), "header-only");
  EXPECT_STREQ(config_access_name(ConfigAccess::NoExtended), "no-extended");
  EXPECT_STREQ(config_access_name(ConfigAccess::Full), "full");
}

TEST(ConfigSpaceNames, LinkSpeeds) {
  const double expected[] = {0, 2.5, 5, 8, 16, 32, 64, 0};
  for (int code = 0; code <= 7; ++code) EXPECT_EQ((PcieLinkRegister{code, 16}.gts()), expected[code]) << code;
  EXPECT_EQ((PcieLinkRegister{-1, 0}.gts()), 0);
  EXPECT_EQ((PcieLinkRegister{15, 0}.gts()), 0);
}

}  // namespace
}  // namespace gdrcheck

// Decoding and encoding of PCI config space images; layout per
// platform-spec.md §1. The decoder treats its input as hostile (a capture
// may be truncated, from a dead device, or corrupted), so every read goes
// through a bounds-checked view and every list walk is bounded.
#include "pcie/config_space.h"

#include <algorithm>
#include <bitset>
#include <cstdio>

namespace gdrcheck {
namespace {

// Standard header and list geometry (§1.1, §1.2, §1.4).
constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kStandardSize = 256;
constexpr std::size_t kExtendedSize = 4096;
constexpr uint16_t kStatusCapList = 0x0010;
constexpr uint8_t kCapIdPm = 0x01, kCapIdExp = 0x10, kCapIdMsix = 0x11;
constexpr uint16_t kExtIdAer = 0x0001, kExtIdAcs = 0x000D;
constexpr int kMaxStandardCaps = 48;  // (0xFC - 0x40) / 4 + 1 possible slots
constexpr int kMaxExtendedCaps = 64;

// Little-endian reads that return 0 instead of running off the end; callers
// check has() first when "absent" must differ from "zero".
class Bytes {
 public:
  explicit Bytes(std::string_view b) : b_(b) {}
  bool has(std::size_t off, std::size_t n) const { return off <= b_.size() && n <= b_.size() - off; }
  uint8_t u8(std::size_t off) const { return has(off, 1) ? static_cast<uint8_t>(b_[off]) : 0; }
  uint16_t u16(std::size_t off) const { return static_cast<uint16_t>(u8(off) | u8(off + 1) << 8); }
  uint32_t u32(std::size_t off) const { return u16(off) | static_cast<uint32_t>(u16(off + 2)) << 16; }

 private:
  std::string_view b_;
};

std::string format_hex(const char* fmt, unsigned value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

ConfigAccess access_for(std::size_t n) {
  if (n == 0) return ConfigAccess::Missing;
  if (n < kStandardSize) return ConfigAccess::HeaderOnly;
  if (n < kExtendedSize) return ConfigAccess::NoExtended;
  return ConfigAccess::Full;
}

PciePortType port_type_from(unsigned v) {
  switch (v) {
    case 0x0:
    case 0x1:
    case 0x4:
    case 0x5:
    case 0x6:
    case 0x7:
    case 0x8:
    case 0x9:
    case 0xa:
      return static_cast<PciePortType>(v);
    default:
      return PciePortType::Other;  // reserved encodings
  }
}

PcieLinkRegister link_from(uint32_t reg) {
  return {static_cast<int>(reg & 0xF), static_cast<int>((reg >> 4) & 0x3F)};
}

int size_from_code(unsigned code) {
  return 128 << (code & 0x7);
}

void decode_header(const Bytes& b, ConfigSpace& cs) {
  cs.vendor = b.u16(0x00);
  cs.device = b.u16(0x02);
  cs.class_code = static_cast<uint32_t>(b.u8(0x0B)) << 16 | b.u8(0x0A) << 8 | b.u8(0x09);
  cs.header_type = b.u8(0x0E) & 0x7F;  // bit 7 is "multifunction", not a type
  if (cs.header_type == 1) {
    cs.secondary_bus = b.u8(0x19);
    cs.subordinate_bus = b.u8(0x1A);
  }
  // A read from a function that is gone (surprise removal, link down)
  // returns all ones; say so, since every later value is then meaningless.
  if (cs.vendor == 0xFFFF) cs.problems.push_back("vendor ID 0xffff: function absent or not responding");
}

// Reads the PCI Express capability field by field, stopping at the first
// field that lies outside `std_area`; what was read before stays.
PcieCapability decode_pcie(const Bytes& std_area, std::size_t base, ConfigSpace& cs) {
  PcieCapability p;
  p.offset = static_cast<int>(base);
  auto fits = [&](std::size_t off, std::size_t len) {
    if (std_area.has(base + off, len)) return true;
    char buf[80];
    std::snprintf(buf, sizeof buf, "PCI Express capability at 0x%02zx truncated at +0x%02zx", base, off);
    cs.problems.push_back(buf);
    return false;
  };
  if (!fits(0x02, 2)) return p;
  uint16_t flags = std_area.u16(base + 0x02);
  p.version = flags & 0xF;
  p.port_type = port_type_from((flags >> 4) & 0xF);
  if (!fits(0x04, 4)) return p;
  p.max_payload_supported = size_from_code(std_area.u32(base + 0x04));
  if (!fits(0x08, 2)) return p;
  uint16_t devctl = std_area.u16(base + 0x08);
  p.relaxed_ordering = devctl & 0x0010;
  p.max_payload = size_from_code(devctl >> 5);
  p.max_read_request = size_from_code(devctl >> 12);
  if (!fits(0x0C, 4)) return p;
  p.link_cap = link_from(std_area.u32(base + 0x0C));
  if (!fits(0x12, 2)) return p;
  p.link_status = link_from(std_area.u16(base + 0x12));
  return p;
}

// The standard list lives in the first 256 bytes; a capability that runs
// past 0xFF is malformed even when the capture holds extended space, so
// the walk only ever sees that area (and 256- and 4096-byte captures of
// the same device decode alike).
void walk_standard(const Bytes& std_area, ConfigSpace& cs) {
  std::bitset<kStandardSize> seen;
  std::size_t off = std_area.u8(0x34) & ~3u;
  for (int n = 0; off != 0; ++n) {
    if (off < kHeaderSize || off > 0xFC) {
      cs.problems.push_back(format_hex("capability pointer out of range: 0x%02x", static_cast<unsigned>(off)));
      return;
    }
    if (seen[off]) {
      cs.problems.push_back(format_hex("capability chain looped at 0x%02x", static_cast<unsigned>(off)));
      return;
    }
    // Unreachable while the two checks above hold (48 slots), but the walk
    // must stay bounded even if they are ever relaxed.
    if (n == kMaxStandardCaps) {
      cs.problems.push_back("capability chain longer than 48 entries");
      return;
    }
    seen[off] = true;
    uint8_t id = std_area.u8(off);
    if (id == 0xFF) {
      cs.problems.push_back(format_hex("capability chain broken at 0x%02x (ID 0xff)", static_cast<unsigned>(off)));
      return;
    }
    if (id == kCapIdExp && !cs.pcie) cs.pcie = decode_pcie(std_area, off, cs);
    off = std_area.u8(off + 1) & ~3u;
  }
}

void decode_acs(const Bytes& ext, std::size_t off, ConfigSpace& cs) {
  if (!ext.has(off + 4, 4)) {
    cs.problems.push_back(format_hex("ACS capability at 0x%03x truncated", static_cast<unsigned>(off)));
    return;
  }
  cs.acs = AcsCapability{static_cast<int>(off), ext.u16(off + 4), ext.u16(off + 6)};
}

// Extended list: bounded to the 4 KiB of extended space for the same
// reason the standard walk is bounded to 256 bytes.
void walk_extended(const Bytes& ext, ConfigSpace& cs) {
  std::bitset<kExtendedSize / 4> seen;
  std::size_t off = kStandardSize;
  for (int n = 0;; ++n) {
    if (off < kStandardSize || off > 0xFFC) {
      cs.problems.push_back(format_hex("extended capability pointer out of range: 0x%03x", static_cast<unsigned>(off)));
      return;
    }
    if (seen[off / 4]) {
      cs.problems.push_back(format_hex("extended capability chain looped at 0x%03x", static_cast<unsigned>(off)));
      return;
    }
    if (n == kMaxExtendedCaps) {
      cs.problems.push_back("extended capability chain longer than 64 entries");
      return;
    }
    seen[off / 4] = true;
    uint32_t header = ext.u32(off);
    if (header == 0 || header == 0xFFFFFFFF) return;  // empty list / no device behind it
    if ((header & 0xFFFF) == kExtIdAcs && !cs.acs) decode_acs(ext, off, cs);
    off = (header >> 20) & 0xFFC;
    if (off == 0) return;
  }
}

// ---- encoding ----

class ConfigSpaceWriter {
 public:
  explicit ConfigSpaceWriter(std::string& b) : b_(b) {}
  void u8(std::size_t off, unsigned v) {
    if (off < b_.size()) b_[off] = static_cast<char>(v & 0xFF);
  }
  void u16(std::size_t off, unsigned v) { u8(off, v), u8(off + 1, v >> 8); }
  void u32(std::size_t off, uint32_t v) { u16(off, v & 0xFFFF), u16(off + 2, v >> 16); }

 private:
  std::string& b_;
};

// Where the encoder places things; fixed so fixtures look alike.
constexpr std::size_t kPmAt = 0x40, kMsixAt = 0x50, kExpAt = 0x60;
constexpr std::size_t kAerAt = 0x100, kAcsAt = 0x148;  // AER v2 is 0x48 bytes long

// Inverse of size_from_code for 128..4096; other sizes round down.
unsigned code_from_size(int bytes) {
  unsigned v = 0;
  while (v < 5 && (128 << (v + 1)) <= bytes) ++v;
  return v;
}

unsigned port_type_code(PciePortType t) {
  // Other has no encoding of its own; 0xF is reserved and decodes back to Other.
  return t == PciePortType::Other ? 0xF : static_cast<unsigned>(t) & 0xF;
}

uint32_t link_reg(const PcieLinkRegister& l) {
  return static_cast<uint32_t>(l.speed_code & 0xF) | static_cast<uint32_t>(l.width & 0x3F) << 4;
}

void encode_header(const ConfigImage& img, ConfigSpaceWriter& w) {
  w.u16(0x00, img.vendor);
  w.u16(0x02, img.device);
  w.u16(0x04, 0x0006);  // memory space + bus master, as a bound driver leaves it
  w.u16(0x06, img.pcie ? kStatusCapList : 0);
  w.u8(0x09, img.class_code);
  w.u8(0x0A, img.class_code >> 8);
  w.u8(0x0B, img.class_code >> 16);
  w.u8(0x0E, img.bridge ? 0x01 : 0x00);
  if (img.bridge) {
    w.u8(0x18, img.primary_bus);
    w.u8(0x19, img.secondary_bus);
    w.u8(0x1A, img.subordinate_bus);
  } else {
    w.u16(0x2C, img.subsystem_vendor);
    w.u16(0x2E, img.subsystem_device);
  }
  if (img.pcie) w.u8(0x34, kPmAt);
}

void encode_pcie(const ConfigImage::Pcie& p, ConfigSpaceWriter& w) {
  const std::size_t b = kExpAt;
  w.u8(b, kCapIdExp);  // last in the list: next stays 0
  w.u16(b + 0x02, 0x2 | port_type_code(p.port_type) << 4);
  unsigned mps = code_from_size(p.max_payload), mrrs = code_from_size(p.max_read_request);
  w.u32(b + 0x04, 0x8000 | mps);  // role-based error reporting, as every current device sets
  // Extended Tag and No Snoop on: the values Linux leaves on data-center devices.
  w.u16(b + 0x08, (p.relaxed_ordering ? 0x0010 : 0) | mps << 5 | 0x0100 | 0x0800 | mrrs << 12);
  w.u32(b + 0x0C, link_reg(p.link_cap));
  w.u16(b + 0x12, link_reg(p.link_status));
  // LnkCap2 supported-speeds vector: bit n set for every code 1..max.
  unsigned max_code = static_cast<unsigned>(std::clamp(p.link_cap.speed_code, 0, 7));
  w.u32(b + 0x2C, ((1u << (max_code + 1)) - 1) & 0xFE);
}

void encode_capabilities(const ConfigImage& img, ConfigSpaceWriter& w) {
  const bool endpoint = !img.bridge;
  w.u8(kPmAt, kCapIdPm);
  w.u8(kPmAt + 1, endpoint ? kMsixAt : kExpAt);
  w.u16(kPmAt + 2, 0x0003);  // PM spec 1.2
  if (endpoint) {
    w.u8(kMsixAt, kCapIdMsix);
    w.u8(kMsixAt + 1, kExpAt);
    w.u16(kMsixAt + 2, 0x003F);      // 64 vectors, disabled
    w.u32(kMsixAt + 4, 0x00010000);  // table in BAR0 at 64 KiB
    w.u32(kMsixAt + 8, 0x00011000);  // PBA right after
  }
  encode_pcie(*img.pcie, w);
}

void encode_extended(const ConfigImage& img, ConfigSpaceWriter& w) {
  uint32_t aer_next = img.acs ? static_cast<uint32_t>(kAcsAt) << 20 : 0;
  w.u32(kAerAt, kExtIdAer | 0x2u << 16 | aer_next);
  if (!img.acs) return;
  w.u32(kAcsAt, kExtIdAcs | 0x1u << 16);
  w.u16(kAcsAt + 4, img.acs->capability);
  w.u16(kAcsAt + 6, img.acs->control);
}

}  // namespace

const char* config_access_name(ConfigAccess a) {
  switch (a) {
    case ConfigAccess::Missing:
      return "missing";
    case ConfigAccess::HeaderOnly:
      return "header-only";
    case ConfigAccess::NoExtended:
      return "no-extended";
    case ConfigAccess::Full:
      return "full";
  }
  return "missing";
}

const char* pcie_port_type_name(PciePortType t) {
  switch (t) {
    case PciePortType::Endpoint:
      return "endpoint";
    case PciePortType::LegacyEndpoint:
      return "legacy endpoint";
    case PciePortType::RootPort:
      return "root port";
    case PciePortType::UpstreamPort:
      return "upstream port";
    case PciePortType::DownstreamPort:
      return "downstream port";
    case PciePortType::PcieToPciBridge:
      return "PCIe-to-PCI bridge";
    case PciePortType::PciToPcieBridge:
      return "PCI-to-PCIe bridge";
    case PciePortType::RootComplexIntegrated:
      return "root complex integrated endpoint";
    case PciePortType::RootComplexEventCollector:
      return "root complex event collector";
    case PciePortType::Other:
      return "other";
  }
  return "other";
}

double PcieLinkRegister::gts() const {
  static constexpr double kGts[] = {0, 2.5, 5, 8, 16, 32, 64};
  return speed_code >= 1 && speed_code <= 6 ? kGts[speed_code] : 0;
}

ConfigSpace decode_config(std::string_view bytes) {
  ConfigSpace cs;
  cs.size = bytes.size();
  cs.access = access_for(bytes.size());
  if (bytes.empty()) return cs;  // access says it all
  if (bytes.size() < kHeaderSize) {
    cs.problems.push_back(
        format_hex("config header truncated: %u bytes (need 64)", static_cast<unsigned>(bytes.size())));
    return cs;
  }
  Bytes all(bytes);
  decode_header(all, cs);
  if (cs.capabilities_known() && (all.u16(0x06) & kStatusCapList))
    walk_standard(Bytes(bytes.substr(0, kStandardSize)), cs);
  if (cs.acs_known()) walk_extended(Bytes(bytes.substr(0, kExtendedSize)), cs);
  return cs;
}

std::string acs_flags_string(uint16_t bits) {
  static constexpr const char* kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                           "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string out;
  for (unsigned i = 0; i < 7; ++i) {
    if (i) out += ' ';
    out += kNames[i];
    out += (bits >> i) & 1 ? '+' : '-';
  }
  return out;
}

std::string encode_config(const ConfigImage& image) {
  // Lay out a full 4 KiB (or larger) image, then cut it to the requested
  // size: a short capture is a prefix of the full one, just as the kernel
  // returns it.
  std::string buf(std::max(image.size, kExtendedSize), '\0');
  ConfigSpaceWriter w(buf);
  encode_header(image, w);
  if (image.pcie) encode_capabilities(image, w);
  // Extended space exists only in 4 KiB captures; written even without a
  // PCIe capability so that an ACS-only image still round-trips.
  if (image.size >= kExtendedSize) encode_extended(image, w);
  buf.resize(image.size);
  return buf;
}

}  // namespace gdrcheck

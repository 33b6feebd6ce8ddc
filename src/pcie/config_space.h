// PCI configuration space: decoding the bytes of a function's sysfs
// `config` file (header, PCI Express capability, ACS extended capability),
// and the reverse — encoding a config image — for the fixture builder.
// Offsets and masks: reference platform-spec.md §1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// How much of config space the capture holds. A reader without
// CAP_SYS_ADMIN gets only the first 64 bytes.
enum class ConfigAccess {
  Missing,     // no bytes at all
  HeaderOnly,  // < 256 bytes (64 = unprivileged read): capabilities unknown
  NoExtended,  // 256 bytes: standard capabilities known, extended (ACS) unknown
  Full,        // >= 4096 bytes: everything known
};
const char* config_access_name(ConfigAccess a);  // "missing", "header-only", "no-extended", "full"

// PCIe port/device type (PCI Express capability flags bits 7:4).
enum class PciePortType {
  Endpoint = 0x0,
  LegacyEndpoint = 0x1,
  RootPort = 0x4,
  UpstreamPort = 0x5,
  DownstreamPort = 0x6,
  PcieToPciBridge = 0x7,
  PciToPcieBridge = 0x8,
  RootComplexIntegrated = 0x9,
  RootComplexEventCollector = 0xa,
  Other = 0xff,
};
const char* pcie_port_type_name(PciePortType t);  // "endpoint", "root port", "upstream port", ...

struct PcieLinkRegister {
  int speed_code = 0;  // 1=2.5 2=5 3=8 4=16 5=32 6=64 GT/s; 0 = unknown
  int width = 0;       // lanes
  double gts() const;  // 0 when unknown
};

struct PcieCapability {
  int offset = 0;
  int version = 0;
  PciePortType port_type = PciePortType::Other;
  PcieLinkRegister link_cap;      // LnkCap: max speed and width
  PcieLinkRegister link_status;   // LnkSta: negotiated
  int max_payload_supported = 0;  // bytes (DevCap)
  int max_payload = 0;            // bytes (DevCtl)
  int max_read_request = 0;       // bytes (DevCtl)
  bool relaxed_ordering = false;  // DevCtl bit 4
};

struct AcsCapability {
  int offset = 0;
  uint16_t capability = 0;  // which controls are implemented
  uint16_t control = 0;     // which are enabled
};

// ACS bits (capability and control share positions 0–6).
inline constexpr uint16_t kAcsSourceValidation = 0x0001;
inline constexpr uint16_t kAcsTranslationBlocking = 0x0002;
inline constexpr uint16_t kAcsRequestRedirect = 0x0004;
inline constexpr uint16_t kAcsCompletionRedirect = 0x0008;
inline constexpr uint16_t kAcsUpstreamForwarding = 0x0010;
inline constexpr uint16_t kAcsEgressControl = 0x0020;
inline constexpr uint16_t kAcsDirectTranslated = 0x0040;
// The kernel's P2PDMA "redirecting" test: RR | CR | EC.
inline constexpr uint16_t kAcsRedirectMask = kAcsRequestRedirect | kAcsCompletionRedirect | kAcsEgressControl;

struct ConfigSpace {
  ConfigAccess access = ConfigAccess::Missing;
  std::size_t size = 0;
  uint16_t vendor = 0, device = 0;
  uint32_t class_code = 0;                         // 24-bit
  uint8_t header_type = 0;                         // low 7 bits: 0 endpoint, 1 PCI-PCI bridge
  uint8_t secondary_bus = 0, subordinate_bus = 0;  // bridges only
  std::optional<PcieCapability> pcie;              // nullopt: not PCIe, or not captured (see access)
  std::optional<AcsCapability> acs;                // nullopt: no ACS capability, or not captured (see acs_known)
  // Chains that were broken or looped, out-of-range pointers: the decoder
  // stops there and says so; values found before stay valid.
  std::vector<std::string> problems;

  bool capabilities_known() const { return access == ConfigAccess::NoExtended || access == ConfigAccess::Full; }
  bool acs_known() const { return access == ConfigAccess::Full; }
};

// Never throws, never reads out of bounds, whatever the bytes.
// Standard capabilities are read only within the first 256 bytes and
// extended ones within the first 4096, so a longer capture decodes like a
// 4 KiB one. Only the first PCI Express and the first ACS capability count.
// Problem texts (exact, for tests and reports), e.g.
// "capability chain looped at 0x40", "capability chain broken at 0x48 (ID 0xff)",
// "capability pointer out of range: 0x38",
// "PCI Express capability at 0xf0 truncated at +0x12",
// "extended capability chain looped at 0x100", "ACS capability at 0xffc truncated",
// "vendor ID 0xffff: function absent or not responding",
// "config header truncated: 63 bytes (need 64)".
ConfigSpace decode_config(std::string_view bytes);

// lspci's rendering of ACS bits: "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
std::string acs_flags_string(uint16_t bits);

// ---- encoding (fixture builder) ----

struct ConfigImage {
  uint16_t vendor = 0, device = 0;
  uint16_t subsystem_vendor = 0, subsystem_device = 0;
  uint32_t class_code = 0;
  bool bridge = false;  // header type 1
  uint8_t primary_bus = 0, secondary_bus = 0, subordinate_bus = 0;
  // PCI Express capability; absent = conventional PCI function.
  struct Pcie {
    PciePortType port_type = PciePortType::Endpoint;
    PcieLinkRegister link_cap, link_status;
    int max_payload = 256, max_read_request = 512;
    bool relaxed_ordering = true;
  };
  std::optional<Pcie> pcie;
  // ACS extended capability; absent = not implemented.
  struct Acs {
    uint16_t capability = 0x005f;
    uint16_t control = 0;
  };
  std::optional<Acs> acs;
  std::size_t size = 4096;  // 64 to imitate an unprivileged capture, 256, or 4096
};

// The bytes of a config file for the image (size bytes, little-endian),
// with a well-formed capability list (PM, MSI-X stubs and PCIe) and an
// extended list (AER, ACS) so that decode_config(encode_config(x)) == x.
std::string encode_config(const ConfigImage& image);

}  // namespace gdrcheck

// Two properties of the PCI config space codec:
//  1. decode_config survives any bytes and its result is consistent with the
//     capture size (no PCIe cap without captured capabilities, no ACS
//     without extended space);
//  2. decode_config(encode_config(img)) returns img's fields for images
//     built from the input, at every capture size.
// Any violation abort()s so libFuzzer keeps the reproducer.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pcie/config_space.h"

namespace {

using namespace gdrcheck;

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_config_space: %s\n", what);
  std::abort();
}

void check_decode_invariants(std::string_view bytes) {
  ConfigSpace cs = decode_config(bytes);
  require(cs.size == bytes.size(), "size differs from input length");
  require(cs.pcie.has_value() <= cs.capabilities_known(), "PCIe cap without captured capabilities");
  require(cs.acs.has_value() <= cs.acs_known(), "ACS without extended space");
  // vendor remark + (truncated PCIe cap, chain error) + (truncated ACS, chain error)
  require(cs.problems.size() <= 5, "more problems than the walks can produce");
  if (cs.pcie) require(cs.pcie->offset >= 0x40 && cs.pcie->offset <= 0xFC, "PCIe cap offset out of range");
  if (cs.acs) require(cs.acs->offset >= 0x100 && cs.acs->offset <= 0xFF8, "ACS offset out of range");
}

// Only values the registers can hold, so a mismatch is a codec bug.
ConfigImage make_image(FuzzedDataProvider& in) {
  static constexpr PciePortType kTypes[] = {PciePortType::Endpoint,
                                            PciePortType::LegacyEndpoint,
                                            PciePortType::RootPort,
                                            PciePortType::UpstreamPort,
                                            PciePortType::DownstreamPort,
                                            PciePortType::PcieToPciBridge,
                                            PciePortType::PciToPcieBridge,
                                            PciePortType::RootComplexIntegrated,
                                            PciePortType::RootComplexEventCollector,
                                            PciePortType::Other};
  static constexpr std::size_t kSizes[] = {0, 1, 63, 64, 65, 128, 255, 256, 300, 4095, 4096, 4100, 8192};
  ConfigImage img;
  img.vendor = in.ConsumeIntegral<uint16_t>();
  img.device = in.ConsumeIntegral<uint16_t>();
  img.subsystem_vendor = in.ConsumeIntegral<uint16_t>();
  img.subsystem_device = in.ConsumeIntegral<uint16_t>();
  img.class_code = in.ConsumeIntegral<uint32_t>() & 0xFFFFFF;
  img.bridge = in.ConsumeBool();
  img.primary_bus = in.ConsumeIntegral<uint8_t>();
  img.secondary_bus = in.ConsumeIntegral<uint8_t>();
  img.subordinate_bus = in.ConsumeIntegral<uint8_t>();
  if (in.ConsumeBool()) {
    ConfigImage::Pcie p;
    p.port_type = in.PickValueInArray(kTypes);
    p.link_cap = {in.ConsumeIntegralInRange(0, 15), in.ConsumeIntegralInRange(0, 63)};
    p.link_status = {in.ConsumeIntegralInRange(0, 15), in.ConsumeIntegralInRange(0, 63)};
    p.max_payload = 128 << in.ConsumeIntegralInRange(0, 5);
    p.max_read_request = 128 << in.ConsumeIntegralInRange(0, 5);
    p.relaxed_ordering = in.ConsumeBool();
    img.pcie = p;
  }
  if (in.ConsumeBool()) img.acs = ConfigImage::Acs{in.ConsumeIntegral<uint16_t>(), in.ConsumeIntegral<uint16_t>()};
  img.size = in.PickValueInArray(kSizes);
  return img;
}

void check_header(const ConfigImage& img, const ConfigSpace& cs) {
  require(cs.vendor == img.vendor && cs.device == img.device, "vendor/device");
  require(cs.class_code == img.class_code, "class code");
  require(cs.header_type == (img.bridge ? 1 : 0), "header type");
  if (img.bridge)
    require(cs.secondary_bus == img.secondary_bus && cs.subordinate_bus == img.subordinate_bus, "bus numbers");
}

void check_pcie(const ConfigImage::Pcie& want, const PcieCapability& got) {
  require(got.port_type == want.port_type, "port type");
  require(got.link_cap.speed_code == want.link_cap.speed_code && got.link_cap.width == want.link_cap.width, "link cap");
  require(got.link_status.speed_code == want.link_status.speed_code && got.link_status.width == want.link_status.width,
          "link status");
  require(got.max_payload == want.max_payload && got.max_read_request == want.max_read_request, "MPS/MRRS");
  require(got.relaxed_ordering == want.relaxed_ordering, "relaxed ordering");
}

void check_round_trip(const ConfigImage& img) {
  std::string bytes = encode_config(img);
  require(bytes.size() == img.size, "encoded size");
  ConfigSpace cs = decode_config(bytes);
  if (img.size < 64) return;  // truncated header: nothing to compare
  check_header(img, cs);
  // An encoded image is well-formed; only an all-ones vendor draws a remark.
  require(cs.problems.size() == (img.vendor == 0xFFFF ? 1u : 0u), "problems on a well-formed image");
  require(cs.pcie.has_value() == (img.pcie && img.size >= 256), "PCIe presence");
  if (cs.pcie) check_pcie(*img.pcie, *cs.pcie);
  require(cs.acs.has_value() == (img.acs && img.size >= 4096), "ACS presence");
  if (cs.acs) require(cs.acs->capability == img.acs->capability && cs.acs->control == img.acs->control, "ACS");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_decode_invariants(std::string_view(reinterpret_cast<const char*>(data), size));
  FuzzedDataProvider in(data, size);
  check_round_trip(make_image(in));
  return 0;
}

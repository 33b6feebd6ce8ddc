// libFuzzer entry point for the `nvidia-smi nvlink --status` / `-R` parser,
// and for the NVLink facts built from what it returns. Any input must end
// in a value: a crash, an exception, a sanitizer report, a control byte in
// kept text or a bound overrun is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "evidence/nvidia_smi_nvlink.h"
#include "topology/nvlink_facts.h"

namespace {

void require_printable(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) __builtin_trap();
}

// Two A100 SXM4 GPUs: the status is matched to them by index.
gdrcheck::Topology two_gpus() {
  gdrcheck::Topology t;
  for (int i = 0; i < 2; ++i) {
    gdrcheck::PciNode n;
    n.address = gdrcheck::PciAddress::parse(i == 0 ? "0000:18:00.0" : "0000:2a:00.0");
    n.ids_known = true;
    n.vendor = 0x10de;
    n.device = 0x20b0;
    gdrcheck::Endpoint e;
    e.id = "GPU" + std::to_string(i);
    e.role = gdrcheck::DeviceRole::Gpu;
    e.address = n.address;
    e.node = t.add_node(n);
    t.endpoints.push_back(e);
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool looks = gdrcheck::looks_like_nvidia_smi_nvlink(text);
  gdrcheck::NvLinkStatus s = gdrcheck::parse_nvidia_smi_nvlink(text);
  if (looks && s.kind != gdrcheck::NvLinkStatus::Kind::Found) __builtin_trap();
  if (s.gpus.size() > 1024 || s.notes.size() > 16) __builtin_trap();
  if ((s.kind == gdrcheck::NvLinkStatus::Kind::Found) != !s.gpus.empty()) __builtin_trap();
  require_printable(s.problem);
  for (const auto& n : s.notes) require_printable(n);
  for (const auto& g : s.gpus) {
    if (g.index < 0 || g.links.size() > 64) __builtin_trap();
    require_printable(g.name);
    require_printable(g.uuid);
    require_printable(g.message);
    require_printable(g.describe());
    for (const auto& l : g.links) {
      if (l.number < 0 || l.number > 63) __builtin_trap();
      require_printable(l.value);
      require_printable(l.remote_bus_id);
    }
  }
  static const gdrcheck::Topology host = two_gpus();
  gdrcheck::NvLinkFacts f = gdrcheck::nvlink_facts(host, {nullptr, &s});
  if (f.gpus.size() != 2) __builtin_trap();
  for (const auto& g : f.gpus) {
    require_printable(g.evidence);
    for (const auto& n : g.notes) require_printable(n);
  }
  return 0;
}

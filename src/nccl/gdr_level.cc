#include "nccl/gdr_level.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace gdrcheck {
namespace {

bool level_exists(NcclPath p, const NcclVersion& v) {
  switch (p) {
    case NcclPath::LOC:
    case NcclPath::NVL:
    case NcclPath::PIX:
    case NcclPath::PXB:
    case NcclPath::PHB:
    case NcclPath::SYS:
      return true;
    case NcclPath::NVB:
      return v >= NcclVersion{2, 8, 0};
    case NcclPath::PXN:
      return v >= NcclVersion{2, 12, 0};
    case NcclPath::C2C:
      return v >= NcclVersion{2, 26, 0};
    case NcclPath::P2C:
      return v >= NcclVersion{2, 27, 0};
    default:
      return false;  // NET, DIS are past SYS: NCCL never accepts them
  }
}

// ≤ 2.5: an integer on the old scale PIX0 PXB1 PHB2 NODE3 SYS4 with
// "distance >= level disables". As an inclusive level: 0 allows nothing
// (LOC), 1 PIX, 2 PXB, 3 and 4 PHB (our PHB covers the old PHB and NODE;
// level 3 allowed only the old PHB, so it is slightly generous), 5+ SYS.
std::optional<NcclPath> old_scale_level(const std::string& value) {
  if (value.empty()) return std::nullopt;
  errno = 0;
  long long n = std::strtoll(value.c_str(), nullptr, 0);
  if (errno) return std::nullopt;
  if (n <= 0) return NcclPath::LOC;
  static const NcclPath kByLevel[] = {NcclPath::LOC, NcclPath::PIX, NcclPath::PXB, NcclPath::PHB, NcclPath::PHB};
  return n >= 5 ? NcclPath::SYS : kByLevel[n];
}

}  // namespace

std::optional<NcclPath> parse_gdr_level(const std::string& value, const NcclVersion& version) {
  if (version < NcclVersion{2, 6, 0}) return old_scale_level(value);
  for (int i = 0; i <= static_cast<int>(NcclPath::SYS); ++i) {
    auto p = static_cast<NcclPath>(i);
    if (level_exists(p, version) && value == nccl_path_name(p)) return p;
  }
  // Legacy numbers: NCCL only looks at them when the text starts with a
  // digit, and reads the leading number (base 0), capped at 4.
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0]))) return std::nullopt;
  long n = std::strtol(value.c_str(), nullptr, 0);
  static const NcclPath kOld[] = {NcclPath::LOC, NcclPath::PIX, NcclPath::PXB, NcclPath::PHB, NcclPath::SYS};
  return kOld[std::clamp(n, 0L, 4L)];
}

GdrLevel effective_gdr_level(const NcclSettings& settings, const NcclVersion& version) {
  GdrLevel l;
  if (const NcclSetting* s = settings.find("NCCL_NET_GDR_LEVEL")) {
    if (auto p = parse_gdr_level(s->value, version)) {
      l.path = *p;
      l.set = s;
      l.text = std::string("level ") + nccl_path_name(*p) + ", set by " + s->cite();
      return l;
    }
    l.rules.push_back(s->cite() + " is not a level NCCL " + version.str() + " knows: the default is kept");
  }
  // 2.29+: default P2C while NCCL_NET_GDR_C2C (default 1) is on. P2C only
  // arises for NICs behind a C2C-attached CPU, so on PCIe it acts as PXB.
  if (version >= NcclVersion{2, 29, 0} && nccl_int_param(settings, "NCCL_NET_GDR_C2C", 1) != 0) {
    l.path = NcclPath::P2C;
    l.text = "level P2C (default; acts as PXB for PCIe-attached GPUs)";
  } else {
    l.text = version >= NcclVersion{2, 6, 0} ? "level PXB (default)" : "level PXB (default; NCCL <= 2.5: below PHB)";
  }
  return l;
}

}  // namespace gdrcheck

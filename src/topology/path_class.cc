#include "topology/path_class.h"

#include <algorithm>
#include <cctype>

namespace gdrcheck {
namespace {

bool is_nvlink_peer(const Endpoint& a, const Endpoint& b, int* count) {
  if (!b.address) return false;
  std::string target = b.address->str();
  for (const auto& l : a.nvlinks) {
    auto addr = PciAddress::parse(l.target);
    if (addr && *addr == *b.address) {
      *count = l.count;
      return true;
    }
  }
  return false;
}

// NVLinks through NVSwitches: both GPUs have links to an NVSwitch class
// device (0x0680xx). nvidia-smi then prints NV<links of this GPU>.
int nvswitch_links(const Endpoint& e) {
  int n = 0;
  for (const auto& l : e.nvlinks)
    if ((l.target_class >> 8) == 0x0680) n += l.count;
  return n;
}

// Bridges strictly below `lca` on the way to the device.
int bridges_below(const std::vector<int>& chain, std::size_t lca_pos) {
  return static_cast<int>(chain.size() - lca_pos - 1);
}

}  // namespace

std::string SmiClass::code() const {
  switch (path) {
    case SmiPath::Self:
      return "X";
    case SmiPath::NVLink:
      return "NV" + std::to_string(nvlinks);
    case SmiPath::PIX:
      return "PIX";
    case SmiPath::PXB:
      return "PXB";
    case SmiPath::PHB:
      return "PHB";
    case SmiPath::NODE:
      return "NODE";
    case SmiPath::SYS:
      return "SYS";
    case SmiPath::Unknown:
      return "?";
  }
  return "?";
}

SmiClass smi_class(const Topology& t, const Endpoint& a, const Endpoint& b) {
  if (&a == &b || a.id == b.id) return {SmiPath::Self, 0, "same device"};
  if (a.role == DeviceRole::Gpu && b.role == DeviceRole::Gpu) {
    int count = 0;
    if (is_nvlink_peer(a, b, &count) && count > 0) return {SmiPath::NVLink, count, "direct NVLink between the GPUs"};
    int sa = nvswitch_links(a), sb = nvswitch_links(b);
    if (sa > 0 && sb > 0) return {SmiPath::NVLink, std::min(sa, sb), "NVLinks to NVSwitches"};
  }
  // A tree that lost a bridge would still give a class, and a wrong one.
  if (std::string why = unproven_path_between(a, b); !why.empty()) return {SmiPath::Unknown, 0, why};
  if (t.tree == TreeStyle::None || a.node < 0 || b.node < 0) return {SmiPath::Unknown, 0, "no PCI tree for this pair"};

  std::vector<int> ca = t.bridge_chain(a.node), cb = t.bridge_chain(b.node);
  // A device that is itself a bridge (NVSwitch behind its own port) does not
  // count as part of its own path.
  std::size_t common = 0;
  while (common < ca.size() && common < cb.size() && ca[common] == cb[common]) ++common;
  if (common > 0) {
    std::size_t lca = common - 1;
    int limit = t.tree == TreeStyle::Ports ? 1 : 0;
    int da = bridges_below(ca, lca), db = bridges_below(cb, lca);
    std::string lca_name = t.nodes[ca[lca]].address ? t.nodes[ca[lca]].address->str() : t.nodes[ca[lca]].label;
    if (da <= limit && db <= limit) return {SmiPath::PIX, 0, "both below one PCIe switch (" + lca_name + ")"};
    return {SmiPath::PXB, 0, "share PCIe switch " + lca_name + " through further bridges"};
  }
  int ra = t.root_of(a.node), rb = t.root_of(b.node);
  if (ra == rb) {
    const auto& r = t.nodes[ra];
    return {SmiPath::PHB, 0, "meet only at " + (r.label.empty() ? std::string("the host bridge") : r.label)};
  }
  Locality la = t.locality_of(a.node), lb = t.locality_of(b.node);
  if (!la.known() || !lb.known()) {
    // One NUMA node in the whole machine: different host bridges are NODE.
    if (t.numa_count == 1) return {SmiPath::NODE, 0, "different host bridges, single NUMA node"};
    return {SmiPath::Unknown, 0, "different host bridges and NUMA locality unknown (numa_node -1, no cpulist)"};
  }
  if (la.numa == lb.numa) {
    if (t.tree == TreeStyle::Switches)
      return {SmiPath::PHB, 0, "same CPU node " + std::to_string(la.numa) + " (NCCL files cannot tell PHB from NODE)"};
    return {SmiPath::NODE, 0, "different host bridges on NUMA node " + std::to_string(la.numa)};
  }
  std::string why = "NUMA node " + std::to_string(la.numa) + " vs " + std::to_string(lb.numa);
  if (la.package >= 0 && la.package == lb.package) why += " (same socket, sub-NUMA clustering)";
  return {SmiPath::SYS, 0, why};
}

SmiClass parse_smi_code(const std::string& raw) {
  std::string code;
  for (char c : raw) code += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (code == "X") return {SmiPath::Self, 0, "printed"};
  if (code == "PIX") return {SmiPath::PIX, 0, "printed"};
  if (code == "PXB") return {SmiPath::PXB, 0, "printed"};
  if (code == "PHB") return {SmiPath::PHB, 0, "printed"};
  if (code == "NODE") return {SmiPath::NODE, 0, "printed"};
  if (code == "SYS" || code == "SOC") return {SmiPath::SYS, 0, "printed"};
  if (code.size() > 2 && code.rfind("NV", 0) == 0 &&
      std::all_of(code.begin() + 2, code.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return {SmiPath::NVLink, std::stoi(code.substr(2, 6)), "printed"};
  return {SmiPath::Unknown, 0, "printed as '" + raw + "'"};
}

const char* nccl_path_name(NcclPath p) {
  switch (p) {
    case NcclPath::LOC:
      return "LOC";
    case NcclPath::NVL:
      return "NVL";
    case NcclPath::NVB:
      return "NVB";
    case NcclPath::C2C:
      return "C2C";
    case NcclPath::PIX:
      return "PIX";
    case NcclPath::PXB:
      return "PXB";
    case NcclPath::P2C:
      return "P2C";
    case NcclPath::PXN:
      return "PXN";
    case NcclPath::PHB:
      return "PHB";
    case NcclPath::SYS:
      return "SYS";
    case NcclPath::NET:
      return "NET";
    case NcclPath::DIS:
      return "DIS";
    case NcclPath::Unknown:
      return "?";
  }
  return "?";
}

NcclClass nccl_from_smi(const SmiClass& smi) {
  switch (smi.path) {
    case SmiPath::Self:
      return {NcclPath::LOC, "same device"};
    case SmiPath::NVLink:
      return {NcclPath::NVL, "NVLink"};
    case SmiPath::PIX:
      return {NcclPath::PIX, "nvidia-smi PIX"};
    case SmiPath::PXB:
      return {NcclPath::PXB, "nvidia-smi PXB (NCCL may say PIX on Broadcom switches)"};
    case SmiPath::PHB:
      return {NcclPath::PHB, "nvidia-smi PHB"};
    case SmiPath::NODE:
      return {NcclPath::PHB, "nvidia-smi NODE: NCCL has one CPU node per NUMA id"};
    case SmiPath::SYS:
      return {NcclPath::SYS, "nvidia-smi SYS"};
    case SmiPath::Unknown:
      return {NcclPath::Unknown, smi.why};
  }
  return {NcclPath::Unknown, ""};
}

}  // namespace gdrcheck

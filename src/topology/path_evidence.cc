#include "topology/path_evidence.h"

#include <optional>
#include <string_view>
#include <vector>

#include "host/text_format.h"
#include "text/path_components.h"

namespace gdrcheck {
namespace {

// hwloc reads a bridge's secondary and subordinate bus numbers from the
// standard header; a shorter file leaves them unknown and hwloc drops it.
constexpr std::size_t kConfigHeader = 64;

std::string device_link(const PciAddress& a) {
  return "/sys/bus/pci/devices/" + a.str();
}

// The PCI functions above the device on its sysfs path, root port first.
// Only a function followed by another function counts: that is a bridge.
// A function followed by anything else (a VMD controller's "pci10000:e0")
// starts a new PCI domain, like a host bridge, and hwloc has no bridge there.
std::vector<PciAddress> sysfs_bridges(const std::vector<std::string_view>& parts) {
  std::vector<PciAddress> out;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    auto here = PciAddress::parse(parts[i]);
    if (!here) continue;
    if (PciAddress::parse(parts[i + 1]))
      out.push_back(*here);
    else
      out.clear();  // a new domain starts below a non-bridge function
  }
  return out;
}

std::vector<std::optional<PciAddress>> hwloc_bridges(const Topology& t, int node) {
  std::vector<std::optional<PciAddress>> out;
  for (int b : t.bridge_chain(node)) out.push_back(t.nodes[b].address);
  return out;
}

std::string text_of(const std::optional<PciAddress>& a) {
  return a ? a->str() : std::string("a bridge without an address");
}

// Why `config` of a function cannot back its place in the tree; empty when
// it can.
std::string config_problem(const Root& root, const PciAddress& a, bool bridge) {
  FileRead f = root.read(device_link(a) + "/config", 4096);
  std::string who = bridge ? "the bridge above it" : "the device itself";
  if (!f.ok()) return printable(f.reason()) + " (" + who + ")";
  if (bridge && f.content.size() < kConfigHeader)
    return printable(f.path) + ": " + std::to_string(f.content.size()) + " bytes, shorter than the " +
           std::to_string(kConfigHeader) + "-byte header with the bridge's bus numbers (" + who + ")";
  return "";
}

// The first difference between the sysfs path and hwloc's chain.
std::string chain_problem(const std::vector<PciAddress>& sysfs, const std::vector<std::optional<PciAddress>>& hwloc,
                          const std::string& path) {
  for (std::size_t i = 0; i < sysfs.size(); ++i) {
    if (i < hwloc.size() && hwloc[i] == sysfs[i]) continue;
    return "bridge " + sysfs[i].str() + " on its sysfs path " + path + " is missing from hwloc's tree" +
           (i < hwloc.size() ? " (hwloc has " + text_of(hwloc[i]) + " there)" : "");
  }
  if (hwloc.size() > sysfs.size())
    return "hwloc places it below " + text_of(hwloc[sysfs.size()]) + ", which its sysfs path " + path +
           " does not show";
  return "";
}

std::string unproven_why(const Topology& t, const Root& root, const Endpoint& e) {
  std::string link = device_link(*e.address);
  std::optional<std::string> resolved = root.resolve(link);
  if (!resolved) return link + ": symbolic link loop";
  std::vector<std::string_view> parts = path_components(*resolved);
  auto last = parts.empty() ? std::nullopt : PciAddress::parse(parts.back());
  if (!root.is_dir(*resolved) || !last || *last != *e.address)
    return link + ": does not lead to the device's directory (resolves to " + printable(*resolved) + ")";
  std::vector<PciAddress> sysfs = sysfs_bridges(parts);
  for (const PciAddress& b : sysfs)
    if (std::string p = config_problem(root, b, true); !p.empty()) return p;
  if (std::string p = config_problem(root, *e.address, false); !p.empty()) return p;
  return chain_problem(sysfs, hwloc_bridges(t, e.node), printable(*resolved));
}

}  // namespace

void mark_unproven_paths(Topology& t, const Root& root) {
  if (t.kind != SourceKind::Sysfs || t.tree != TreeStyle::Ports) return;
  for (Endpoint& e : t.endpoints) {
    if (!e.address || e.node < 0 || e.node >= static_cast<int>(t.nodes.size())) continue;
    std::string why = unproven_why(t, root, e);
    if (!why.empty()) e.path_unproven = "PCIe path of " + e.id + " (" + e.address->str() + ") not proven: " + why;
  }
}

std::string unproven_path_fix() {
  return "read the node as root with every file named readable (or capture the root again with them); "
         "`lspci -tv` on the node shows the real PCIe tree";
}

}  // namespace gdrcheck

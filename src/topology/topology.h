// The one topology model, whatever the source: live or recorded sysfs,
// hwloc XML, NCCL topology XML, or a pasted `nvidia-smi topo -m` matrix.
// Readers fill it; path classes, checks and renderers only read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topology/pci_address.h"

namespace gdrcheck {

enum class SourceKind { Sysfs, HwlocXml, NcclXml, SmiText };
const char* source_kind_name(SourceKind k);  // "sysfs", "hwloc-xml", "nccl-xml", "smi-text"

// How the PCI tree is drawn.
//  Ports:    every PCI bridge is its own node (sysfs, hwloc): a switch is an
//            upstream port with downstream ports below it.
//  Switches: one node per switch, NCCL's grouping (NCCL XML, or the NCCL
//            view derived from a Ports tree). Roots are CPU (NUMA) nodes.
//  None:     no tree at all (pasted nvidia-smi matrix).
enum class TreeStyle { None, Ports, Switches };

// Where a device (or host bridge) sits relative to the CPUs.
struct Locality {
  int numa = -1;     // NUMA node os index; -1 = unknown
  int package = -1;  // socket; -1 = unknown
  std::string cpus;  // cpulist "0-47,96-143"; empty = unknown
  bool known() const { return numa >= 0; }
};

struct PciLink {
  std::optional<double> current_gts, max_gts;  // per-lane GT/s
  std::optional<int> current_width, max_width;
  std::optional<double> gbytes_per_s;  // hwloc's pci_link_speed when only that is known
};

struct PciNode {
  enum class Kind { Cpu, HostBridge, Bridge, Device };
  Kind kind = Kind::Device;
  int parent = -1;  // index into Topology::nodes; -1 for roots
  std::vector<int> children;
  std::optional<PciAddress> address;
  std::string label;  // "pci0000:17" for host bridges, "CPU0" for CPU nodes
  bool ids_known = false;
  uint16_t vendor = 0, device = 0, subsystem_vendor = 0, subsystem_device = 0;
  uint32_t pci_class = 0;  // 24-bit class code, e.g. 0x030200
  PciLink link;
  Locality locality;  // meaningful on roots (CPU / host bridge); devices inherit
};

enum class DeviceRole { Gpu, NvSwitch, Nic, Nvme, Extra };
const char* device_role_name(DeviceRole r);  // "gpu", "nvswitch", "nic", "nvme", "extra"

struct NvLinkPeer {
  std::string target;  // bus id of the other end (GPU or NVSwitch), as recorded
  int count = 0;       // bonded links
  uint32_t target_class = 0;
};

// A device that appears as a row/column of the matrix.
struct Endpoint {
  std::string id;  // GPU0, NIC0, NVS0, NVME0, DEV0 — stable order by bus id
  DeviceRole role = DeviceRole::Extra;
  std::string name;   // NIC: RDMA device name (mlx5_0) or bus id when it has none
  std::string model;  // pci.ids name ("GH100 [H100 SXM5 80GB]") when known
  std::optional<PciAddress> address;
  int node = -1;  // index into Topology::nodes; -1 when the source has no tree
  Locality locality;
  bool rdma_device = true;  // NIC only: false for a Mellanox function without one
  // Why this device's PCIe path cannot be proven (a bridge on its sysfs path
  // that the tree lacks, a config that cannot be read); empty = proven.
  // Every path class involving it is then Unknown with this reason.
  std::string path_unproven;
  std::vector<NvLinkPeer> nvlinks;
  // Source-specific facts kept for later checks (NCCL XML gdr="1",
  // speed, port; sysfs driver name; ...).
  std::map<std::string, std::string> attributes;

  // An attribute that is a whole decimal number (|n| <= 1e6); nullopt when
  // absent or anything else (a hostile XML may say gdr="yes" or "1e99").
  std::optional<int> int_attribute(const std::string& name) const;
};

struct Topology {
  SourceKind kind = SourceKind::Sysfs;
  std::string source;  // file or root it was read from
  TreeStyle tree = TreeStyle::None;
  std::vector<PciNode> nodes;
  std::vector<Endpoint> endpoints;
  int numa_count = 0;  // NUMA nodes the source knows of (0 = unknown)

  // Pasted nvidia-smi text only: the codes exactly as printed, by row then
  // column id, plus the affinity columns as printed.
  std::map<std::pair<std::string, std::string>, std::string> printed_matrix;

  // Things the reader noticed that a user should know ("no
  // /sys/class/infiniband: RDMA device names unknown").
  std::vector<std::string> notes;

  // Index of the root (CPU or host bridge) above a node, or -1.
  int root_of(int node) const;
  // Bridges from the root down to (not including) the node.
  std::vector<int> bridge_chain(int node) const;
  const Endpoint* find(const std::string& id) const;
  std::vector<const Endpoint*> with_role(DeviceRole r) const;
  // Locality of a node: its own if set, else its root's.
  Locality locality_of(int node) const;
  // Adds a node, linking it to its parent; returns its index.
  int add_node(PciNode n);
};

// Why the PCIe path between two endpoints cannot be proven: the reasons of
// either end ("; "-joined when both); empty when both paths are proven.
std::string unproven_path_between(const Endpoint& a, const Endpoint& b);

// The PCI functions of the tree (every node with an address), for the
// readers of per-function files.
std::vector<PciAddress> pci_functions(const Topology& t);

}  // namespace gdrcheck

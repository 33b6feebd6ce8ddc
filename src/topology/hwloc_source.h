// Builds a Ports-style Topology with hwloc: from sysfs under a Root (live
// "/" or a recorded tree, through HWLOC_FSROOT) or from an `lstopo --of xml`
// file. One adapter serves both, so live and recorded hosts are read alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/root.h"
#include "topology/pci_address.h"
#include "topology/topology.h"

namespace gdrcheck {

// Extra PCI functions the user wants placed in the matrix besides GPUs and
// NICs (--device BDF, --class 0x0b40).
struct DeviceSelection {
  std::vector<PciAddress> addresses;
  std::vector<uint32_t> class_prefixes;  // 0x0b40 matches 0x0b40xx; 0x0b4000 matches exactly
};

Topology read_sysfs_topology(const Root& root, const DeviceSelection& extra = {});

bool looks_like_hwloc_xml(std::string_view text);
// Throws InputError for a file hwloc cannot load.
Topology read_hwloc_xml(const std::string& path, const DeviceSelection& extra = {});

}  // namespace gdrcheck

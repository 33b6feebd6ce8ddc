// Builds a Ports-style Topology with hwloc: from sysfs under a Root (live
// "/" or a recorded tree, through HWLOC_FSROOT) or from an `lstopo --of xml`
// file. One adapter serves both, so live and recorded hosts are read alike.
#pragma once

#include <chrono>
#include <cstddef>
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

// No real topology file is near this; larger input is refused, not cut.
inline constexpr std::size_t kMaxTopologyFile = 64u << 20;  // 64 MiB

// How long hwloc may take over one input in its probe child (long enough
// for the largest topology file accepted, 64 MiB, on a slow machine; a
// recorded root of a big node takes well under a second), and how much
// address space one load may add (the largest real topologies take hwloc
// about 10 MB; see host/address_space_limit.h).
inline constexpr std::chrono::milliseconds kHwlocProbeLimit{60'000};
inline constexpr std::size_t kHwlocLoadMemory = std::size_t{256} << 20;

// A recorded root (not the live "/") is audited first (host/root_audit.h):
// hwloc is handed no tree with a link out of it or a FIFO or device in it.
// Throws InputError naming the root and the offending path.
Topology read_sysfs_topology(const Root& root, const DeviceSelection& extra = {});

bool looks_like_hwloc_xml(std::string_view text);
// Throws InputError for a file that is missing, not a regular file, larger
// than kMaxTopologyFile, or that read_hwloc_xml_text() refuses.
Topology read_hwloc_xml(const std::string& path, const DeviceSelection& extra = {});
// Loads hwloc XML from memory; `source` names it in errors and in the
// result ("-" for standard input). Always through hwloc's own minimal XML
// reader, never libxml2; a document with a DTD internal subset or an
// entity declaration is refused before hwloc sees it. Throws InputError.
Topology read_hwloc_xml_text(const std::string& text, const std::string& source, const DeviceSelection& extra = {});
// Throws InputError(source, …) when `text` declares entities or has a
// DOCTYPE with its own declarations ("[...]"). lstopo's own
// <!DOCTYPE topology SYSTEM "hwloc2.dtd"> passes.
void refuse_xml_declarations(std::string_view text, const std::string& source);

// The loads read_sysfs_topology() and read_hwloc_xml_text() make in this
// process once a forked copy has made them without crashing or hanging
// (hwloc 2.9 crashes on some malformed XML and can loop on a crafted
// tree). Only for input already audited (audit_root_for_hwloc,
// refuse_xml_declarations) and loaded by such a copy, or for this machine's
// own sysfs: the fuzz targets keep one copy for many inputs instead of
// forking one per load. Throw InputError.
Topology load_sysfs_topology_unprobed(const Root& root, const DeviceSelection& extra = {});
Topology load_hwloc_xml_unprobed(const std::string& text, const std::string& source, const DeviceSelection& extra = {});

}  // namespace gdrcheck

// Picks the reader for what the user gave: a root directory (sysfs through
// hwloc) or a file whose kind is detected from its content (hwloc XML, NCCL
// topology XML, pasted nvidia-smi text) unless forced.
#pragma once

#include <istream>
#include <string>

#include "topology/hwloc_source.h"
#include "topology/topology.h"

namespace gdrcheck {

enum class TopologyFileKind { Auto, HwlocXml, NcclXml, SmiText };

// Parses "auto", "hwloc-xml", "nccl-xml", "smi-text"; false for anything else.
bool parse_topology_file_kind(const std::string& text, TopologyFileKind* out);

// Reads a topology file ("-" = standard input). Throws InputError naming the
// file for a missing, unreadable, binary or unrecognised file, one that is
// not a regular file (a FIFO, /dev/zero), or input over kMaxTopologyFile.
Topology load_topology_file(const std::string& path, TopologyFileKind kind, const DeviceSelection& extra = {});

// The same from a stream (standard input), named `name` in errors; reads
// at most kMaxTopologyFile + 1 bytes. hwloc XML is loaded from memory, so
// no copy of the input is ever written to a file.
Topology load_topology_stream(std::istream& in, const std::string& name, TopologyFileKind kind,
                              const DeviceSelection& extra = {});

// Reads the topology of the host under `root_dir` ("/" = this machine).
// Throws InputError when the directory does not exist.
Topology load_topology_root(const std::string& root_dir, const DeviceSelection& extra = {});

}  // namespace gdrcheck

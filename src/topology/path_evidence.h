// Whether each device's PCIe path in a sysfs topology is proven by the
// files it was read from. hwloc leaves out a bridge whose `config` it cannot
// read and hangs the devices below it straight off the host bridge: a
// switch-local GPU/NIC pair then looks like PHB. Comparing hwloc's bridge
// chain with the device's own sysfs path catches that, so a fault in the
// evidence becomes UNKNOWN instead of a false "no GDR".
#pragma once

#include <string>

#include "host/root.h"
#include "topology/topology.h"

namespace gdrcheck {

// For a sysfs topology read from `root`, sets Endpoint::path_unproven on
// every endpoint whose path cannot be proven:
//  - /sys/bus/pci/devices/<bdf> does not lead to a device directory;
//  - a bridge on the device's sysfs path is missing from hwloc's chain, or
//    the chain holds a bridge the sysfs path does not;
//  - the `config` of a bridge on the path, or of the device itself, cannot
//    be read (a bridge's also when shorter than the 64-byte header that
//    holds its bus numbers).
// Topologies from other sources are left unchanged.
void mark_unproven_paths(Topology& t, const Root& root);

// What would decide an unproven path, for the fix of a finding.
std::string unproven_path_fix();

}  // namespace gdrcheck

// NCCL's own view of a PCI topology (nccl-spec.md §1.2–1.4): the grouping
// of sysfs bridges into switch nodes (NCCL keeps every second path level),
// CPU nodes by NUMA id (no NODE level), the flattening of Broadcom Gen4/Gen5
// switches, and NCCL's path types between GPUs and NICs.
#pragma once

#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NcclViewOptions {
  // Apply ncclTopoFlattenBcmSwitches (NCCL ≥ 2.20 for Gen5, ≥ 2.9 for Gen4).
  bool flatten_bcm = true;
  // Gen5 switches too (getBcmGen, NCCL >= 2.20.3); Gen4 only when false.
  bool flatten_bcm_gen5 = true;
};

// Returns a Switches-style tree as NCCL would build it:
//  - from a Ports tree (sysfs, hwloc XML): parent of each device = the
//    bridge two levels up its sysfs path, repeated; roots are one CPU node
//    per NUMA id (numa -1 when unknown, as NCCL does);
//  - from a Switches tree (NCCL XML): the same tree;
// then BCM flattening when enabled. Endpoints keep their ids and point at
// the corresponding nodes of the new tree. A TreeStyle::None topology is
// returned unchanged.
Topology nccl_view(const Topology& t, const NcclViewOptions& options = {});

// NCCL path type between two endpoints of a Switches-style tree: both direct
// children of one switch node → PIX; common switch deeper → PXB; common CPU
// only → PHB; different CPU nodes → SYS; GPU↔GPU with a recorded NVLink
// (direct, or both to NVSwitches) → NVL.
NcclClass nccl_class(const Topology& nccl_tree, const Endpoint& a, const Endpoint& b);

}  // namespace gdrcheck

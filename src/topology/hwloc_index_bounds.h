// hwloc sizes a CPU or NUMA-node bitmap by the largest index in it, so an
// os_index near 2^32 (or a NUMA node given none, which hwloc takes as
// 2^32 - 1) in a file from another machine costs 512 MiB per bitmap and
// describes no machine: Linux numbers CPUs below NR_CPUS (8,192 at most)
// and NUMA nodes below MAX_NUMNODES (1,024 at most). Such a topology is
// refused once hwloc has loaded it (under AddressSpaceGrowthLimit, so the
// load itself stays small).
#pragma once

#include <hwloc.h>

#include <string>

namespace gdrcheck {

inline constexpr unsigned kMaxHwlocOsIndex = 65535;

// Throws InputError(source, ...) naming the first PU or NUMA node whose
// os_index is past kMaxHwlocOsIndex.
void refuse_impossible_os_indexes(hwloc_topology_t topo, const std::string& source);

}  // namespace gdrcheck

#include "topology/hwloc_index_bounds.h"

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

void refuse_past_bound(hwloc_topology_t topo, hwloc_obj_type_t type, const char* name, const std::string& source) {
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o;
       o = hwloc_get_next_obj_by_type(topo, type, o)) {
    if (o->os_index <= kMaxHwlocOsIndex) continue;
    std::string index =
        o->os_index == HWLOC_UNKNOWN_INDEX ? "none (hwloc takes 4294967295)" : std::to_string(o->os_index);
    throw InputError(source, std::string("a ") + name + " with os_index " + index + ": no machine numbers its " + name +
                                 "s past " + std::to_string(kMaxHwlocOsIndex) +
                                 ", and hwloc would size its bitmaps by it; gdrcheck does not load it");
  }
}

}  // namespace

void refuse_impossible_os_indexes(hwloc_topology_t topo, const std::string& source) {
  refuse_past_bound(topo, HWLOC_OBJ_PU, "PU", source);
  refuse_past_bound(topo, HWLOC_OBJ_NUMANODE, "NUMA node", source);
}

}  // namespace gdrcheck

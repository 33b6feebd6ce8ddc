// Included by exactly one file of each hwloc fuzz target. In a release
// build hwloc loads under an address-space limit (kHwlocLoadMemory): an
// allocation past it fails and hwloc carries on without it. A sanitizer
// build cannot limit its address space, so here the allocator refuses such
// allocations instead; without that, every input with an index near 2^32
// spent a second filling 0.5-1 GiB bitmaps.
#pragma once

extern "C" const char* __asan_default_options() {
  return "max_allocation_size_mb=256:allocator_may_return_null=1";
}

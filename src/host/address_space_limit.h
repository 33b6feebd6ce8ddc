// Bounds how much address space this process may add while a library we
// cannot fix does its work: hwloc 2.9 sizes a bitmap by the largest index
// it is given, so an index near 2^32 in a file from another machine asks
// for 512 MiB per bitmap. Under the limit an allocation past it fails (and
// hwloc carries on without it) instead of taking the machine's memory.
#pragma once

#include <sys/resource.h>

#include <cstddef>

namespace gdrcheck {

class AddressSpaceGrowthLimit {
 public:
  // Lowers the soft RLIMIT_AS to what is mapped now plus `growth`, unless
  // the limit is already lower, what is mapped cannot be read, or this is
  // a sanitizer build (they reserve terabytes of address space up front).
  explicit AddressSpaceGrowthLimit(std::size_t growth);
  ~AddressSpaceGrowthLimit();  // puts the soft limit back
  AddressSpaceGrowthLimit(const AddressSpaceGrowthLimit&) = delete;
  AddressSpaceGrowthLimit& operator=(const AddressSpaceGrowthLimit&) = delete;

  bool active() const { return active_; }

 private:
  bool active_ = false;
  rlimit saved_{};
};

// Whether this build reserves a huge address space at start (AddressSanitizer,
// ThreadSanitizer), so that no address-space limit can be set.
bool sanitizer_reserves_address_space();

// The address space this process has mapped now (/proc/self/statm), 0 when
// it cannot be read.
std::size_t mapped_address_space();

}  // namespace gdrcheck

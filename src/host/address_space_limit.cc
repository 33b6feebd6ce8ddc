#include "host/address_space_limit.h"

#include <unistd.h>

#include <cstdio>

namespace gdrcheck {

bool sanitizer_reserves_address_space() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

std::size_t mapped_address_space() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return 0;
  unsigned long pages = 0;
  bool read = std::fscanf(f, "%lu", &pages) == 1;
  std::fclose(f);
  long page = ::sysconf(_SC_PAGESIZE);
  return read && page > 0 ? pages * static_cast<std::size_t>(page) : 0;
}

AddressSpaceGrowthLimit::AddressSpaceGrowthLimit(std::size_t growth) {
  if (sanitizer_reserves_address_space() || ::getrlimit(RLIMIT_AS, &saved_) != 0) return;
  std::size_t now = mapped_address_space();
  if (now == 0) return;  // a guessed limit could make ordinary work fail
  rlim_t wanted = static_cast<rlim_t>(now + growth);
  if (saved_.rlim_cur != RLIM_INFINITY && saved_.rlim_cur <= wanted) return;
  rlimit lowered = saved_;
  lowered.rlim_cur = wanted;
  active_ = ::setrlimit(RLIMIT_AS, &lowered) == 0;
}

AddressSpaceGrowthLimit::~AddressSpaceGrowthLimit() {
  if (active_) ::setrlimit(RLIMIT_AS, &saved_);
}

}  // namespace gdrcheck

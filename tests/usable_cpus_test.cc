// Tests for the CPUs this process may run on.
#include "host/usable_cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace gdrcheck {
namespace {

TEST(UsableCpus, FollowsTheAffinityMask) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(usable_cpus(), static_cast<std::size_t>(CPU_COUNT(&all)));
  EXPECT_LE(usable_cpus(), std::max(1u, std::thread::hardware_concurrency()));
  // Bound to one CPU (on a thread of its own: the mask is per thread).
  std::size_t bound = 0;
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) == 0) bound = usable_cpus();
  }).join();
  EXPECT_EQ(bound, 1u);
}

}  // namespace
}  // namespace gdrcheck

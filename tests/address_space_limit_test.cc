#include "host/address_space_limit.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <memory>
#include <new>
#include <stdexcept>

#include "host/isolated_call.h"

namespace gdrcheck {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMiB = std::size_t{1} << 20;

rlimit current_limit() {
  rlimit r{};
  ::getrlimit(RLIMIT_AS, &r);
  return r;
}

TEST(AddressSpaceGrowthLimit, AllocationPastTheGrowthFailsAndTheLimitComesBack) {
  rlimit before = current_limit();
  {
    AddressSpaceGrowthLimit limit(64 * kMiB);
    if (sanitizer_reserves_address_space()) {
      EXPECT_FALSE(limit.active());
      GTEST_SKIP() << "a sanitizer build reserves terabytes of address space: no limit can be set";
    }
    ASSERT_TRUE(limit.active());
    EXPECT_THROW(std::make_unique<char[]>(512 * kMiB), std::bad_alloc);
    EXPECT_NO_THROW(std::make_unique<char[]>(8 * kMiB));  // growth within the limit still works
  }
  rlimit after = current_limit();
  EXPECT_EQ(after.rlim_cur, before.rlim_cur);
  EXPECT_EQ(after.rlim_max, before.rlim_max);
  EXPECT_NO_THROW(std::make_unique<char[]>(512 * kMiB));
}

// A limit the process already has that is lower than the guard's is kept.
TEST(AddressSpaceGrowthLimit, NeverRaisesALowerLimit) {
  if (sanitizer_reserves_address_space()) GTEST_SKIP() << "no address-space limit in a sanitizer build";
  IsolatedEnd end = run_isolated(
      [] {
        rlimit low{};
        ::getrlimit(RLIMIT_AS, &low);
        low.rlim_cur = static_cast<rlim_t>(mapped_address_space() + 32 * kMiB);
        if (::setrlimit(RLIMIT_AS, &low) != 0) throw std::runtime_error("setrlimit");
        {
          AddressSpaceGrowthLimit limit(std::size_t{1} << 30);
          if (limit.active()) throw std::runtime_error("raised");
        }
        if (current_limit().rlim_cur != low.rlim_cur) throw std::runtime_error("changed");
      },
      5s);
  EXPECT_TRUE(end.finished()) << end.describe();
}

TEST(AddressSpaceGrowthLimit, MappedAddressSpaceIsRead) {
  std::size_t before = mapped_address_space();
  ASSERT_GT(before, 0u);
  auto block = std::make_unique<char[]>(64 * kMiB);
  EXPECT_GE(mapped_address_space(), before + 60 * kMiB);
}

}  // namespace
}  // namespace gdrcheck

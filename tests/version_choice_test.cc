// Which NCCL release node predicts for.
#include "nccl/version_choice.h"

#include <gtest/gtest.h>

#include "nccl_versions.h"

namespace gdrcheck {
namespace {

using testing::nccl_version;

TEST(VersionChoice, SystemLibraryWinsOverAWheelAndOthersAreKept) {
  auto plan = plan_nccl_versions(std::nullopt, {{nccl_version("2.23.4"), "wheel /usr/local/lib/python3.10/x", 1},
                                                {nccl_version("2.21.5"), "library /usr/lib/libnccl.so.2.21.5", 0}});
  EXPECT_EQ(plan.primary.found, nccl_version("2.21.5"));
  EXPECT_EQ(plan.primary.origin, "library /usr/lib/libnccl.so.2.21.5");
  ASSERT_EQ(plan.others.size(), 1u);
  EXPECT_EQ(plan.others[0].found, nccl_version("2.23.4"));
}

TEST(VersionChoice, ExplicitVersionWinsAndFoundOnesBecomeOthers) {
  auto plan = plan_nccl_versions(nccl_version("2.18.6"), {{nccl_version("2.21.5"), "library x", 0}});
  EXPECT_EQ(plan.primary.found, nccl_version("2.18.6"));
  EXPECT_EQ(plan.primary.origin, "--nccl-version");
  ASSERT_EQ(plan.others.size(), 1u);
}

TEST(VersionChoice, NothingFoundUsesTheNewestRulesAndSaysWhy) {
  auto plan = plan_nccl_versions(std::nullopt, {});
  EXPECT_EQ(plan.primary.rules, NcclVersion::newest());
  EXPECT_NE(plan.primary.origin.find("no NCCL found"), std::string::npos);
  EXPECT_TRUE(plan.others.empty());
}

TEST(VersionChoice, NewerThanKnownIsApproximatedAndNamed) {
  auto plan = plan_nccl_versions(std::nullopt, {{nccl_version("2.31.2"), "library y", 0}});
  EXPECT_TRUE(plan.primary.approximated);
  EXPECT_EQ(plan.primary.rules, NcclVersion::newest());
  EXPECT_NE(plan.primary.describe().find("predicted with " + NcclVersion::newest().str()), std::string::npos);
}

TEST(VersionChoice, ReleasesWithoutRulesAreNotedNotUsed) {
  EXPECT_FALSE(version_with_rules(nccl_version("1.3.4"), "x").has_value());
  EXPECT_FALSE(version_with_rules(nccl_version("2.3.7"), "x").has_value());
  auto plan = plan_nccl_versions(std::nullopt, {{nccl_version("3.0.1"), "library z", 0}});
  EXPECT_EQ(plan.primary.rules, NcclVersion::newest());
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("no rules"), std::string::npos);
}

TEST(VersionChoice, EachReleaseOnce) {
  auto plan = plan_nccl_versions(std::nullopt, {{nccl_version("2.21.5"), "library a", 0},
                                                {nccl_version("2.21.5"), "header b", 3},
                                                {nccl_version("2.21.5"), "wheel c", 1}});
  EXPECT_TRUE(plan.others.empty());
}

}  // namespace
}  // namespace gdrcheck

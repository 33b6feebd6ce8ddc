#include "cli/example_root.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(ExampleRoot, InstalledCopyBesideTheBinaryComesFirst) {
  EXPECT_EQ(
      example_root_candidates("/usr/bin/gdrcheck", "/src/build/example-root/dgx-h100"),
      (std::vector<std::string>{"/usr/share/gdrcheck/example-root/dgx-h100", "/src/build/example-root/dgx-h100"}));
  EXPECT_EQ(example_root_candidates("/opt/gdrcheck/bin/gdrcheck", "")[0],
            "/opt/gdrcheck/share/gdrcheck/example-root/dgx-h100");
}

TEST(ExampleRoot, AnUnknownExecutablePathLeavesTheBuildPath) {
  EXPECT_EQ(example_root_candidates("", "/b/example"), std::vector<std::string>{"/b/example"});
  EXPECT_EQ(example_root_candidates("relative/gdrcheck", "/b/example"), std::vector<std::string>{"/b/example"});
}

TEST(ExampleRoot, NothingFoundFallsBackToTheBuildPathForTheMessage) {
  EXPECT_EQ(find_example_root("/nonexistent/example"), "/nonexistent/example");
}

}  // namespace
}  // namespace gdrcheck

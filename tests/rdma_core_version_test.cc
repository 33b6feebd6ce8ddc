// The rdma-core release from libibverbs' file name.
#include "host/rdma_core_version.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

TEST(RdmaCoreVersion, ReleaseIsTheThirdNumber) {
  EXPECT_EQ(rdma_core_release_of("libibverbs.so.1.14.50.0"), 50);  // Debian 12's rdma-core 44 is 1.14.44.0
  EXPECT_EQ(rdma_core_release_of("libibverbs.so.1.11.33.0"), 33);
  EXPECT_EQ(rdma_core_release_of("libibverbs.so.1.14.2410.0"), 2410);
}

TEST(RdmaCoreVersion, OtherNamesAreNotReleases) {
  EXPECT_FALSE(rdma_core_release_of("libibverbs.so.1").has_value());
  EXPECT_FALSE(rdma_core_release_of("libibverbs.so.1.14").has_value());
  EXPECT_FALSE(rdma_core_release_of("libibverbs.so.1.x.50.0").has_value());
  EXPECT_FALSE(rdma_core_release_of("libibverbs.so.1.14.0.0").has_value());
  EXPECT_FALSE(rdma_core_release_of("libmlx5.so.1.24.50.0").has_value());
  EXPECT_FALSE(rdma_core_release_of("libibverbs.so.1.14.99999999999.0").has_value());
}

class RdmaCoreRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-rdmacore-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    fs::create_directories(dir_ + "/usr/lib/x86_64-linux-gnu");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void touch(const std::string& inside) { std::ofstream(dir_ + inside) << "ELF"; }
  std::string dir_;
};

TEST_F(RdmaCoreRoot, NewestLibraryInTheLibraryFolders) {
  touch("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.11.33.0");
  touch("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.50.0");
  fs::create_symlink("libibverbs.so.1.14.50.0", dir_ + "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
  auto found = find_rdma_core(Root(dir_));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->release, 50);
  EXPECT_EQ(found->path, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.50.0");
}

TEST_F(RdmaCoreRoot, NoLibraryIsUnknownNotOld) {
  EXPECT_FALSE(find_rdma_core(Root(dir_)).has_value());
}

TEST_F(RdmaCoreRoot, LinkLeavingTheRootIsNotFollowed) {
  fs::create_symlink("/usr/lib/x86_64-linux-gnu/libc.so.6", dir_ + "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.50.0");
  EXPECT_FALSE(find_rdma_core(Root(dir_)).has_value());
}

}  // namespace
}  // namespace gdrcheck

// Bounded folder patterns and file checks over a built root, including
// links that try to leave it, folders with many entries and a FIFO.
#include "host/root_search.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

class RootSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-search-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void folder(const std::string& inside) { fs::create_directories(dir_ + inside); }
  void file(const std::string& inside, const std::string& text = "") {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    std::ofstream(dir_ + inside) << text;
  }
  void link(const std::string& inside, const std::string& target) {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    fs::create_symlink(target, dir_ + inside);
  }

  std::string dir_;
};

TEST(MatchesComponent, OneStarWithPrefixAndSuffix) {
  EXPECT_TRUE(matches_component("python3.10", "python3*"));
  EXPECT_TRUE(matches_component("python3", "python3*"));  // '*' matches nothing too
  EXPECT_TRUE(matches_component("cuda-12.4", "cuda-*"));
  EXPECT_TRUE(matches_component("nccl.conf", "*.conf"));
  EXPECT_TRUE(matches_component("anything", "*"));
  EXPECT_TRUE(matches_component("lib64", "lib64"));
  EXPECT_FALSE(matches_component("python2.7", "python3*"));
  EXPECT_FALSE(matches_component("lib", "lib64"));
  EXPECT_FALSE(matches_component("a.conf", "a*b*.conf"));  // two stars are not a pattern here
  EXPECT_FALSE(matches_component("ab", "ab*b"));           // prefix and suffix must not overlap
}

TEST_F(RootSearchTest, ExpandsStarsToExistingFoldersInOrder) {
  folder("/usr/local/cuda-12.4/lib64");
  folder("/usr/local/cuda-11.8/lib64");
  folder("/usr/local/cuda-12.1");  // no lib64
  file("/usr/local/cuda-notes");   // a file matching the star
  auto found = expand_folder_pattern(Root(dir_), "/usr/local/cuda-*/lib64");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path, "/usr/local/cuda-11.8/lib64");
  EXPECT_EQ(found[1].path, "/usr/local/cuda-12.4/lib64");
  EXPECT_EQ(found[1].canonical, "/usr/local/cuda-12.4/lib64");
}

TEST_F(RootSearchTest, TwoStarComponentsInOnePattern) {
  folder("/opt/conda/envs/py310/lib/python3.10/site-packages");
  folder("/opt/conda/envs/py311/lib/python3.11/site-packages");
  folder("/opt/conda/envs/empty/lib");
  auto found = expand_folder_pattern(Root(dir_), "/opt/conda/envs/*/lib/python3*/site-packages");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path, "/opt/conda/envs/py310/lib/python3.10/site-packages");
}

TEST_F(RootSearchTest, MissingFoldersAndBadPatternsGiveNothing) {
  Root root(dir_);
  EXPECT_TRUE(expand_folder_pattern(root, "/usr/local/cuda-*/lib64").empty());
  EXPECT_TRUE(expand_folder_pattern(root, "relative/path").empty());
  EXPECT_TRUE(expand_folder_pattern(root, "").empty());
  folder("/usr/lib");
  EXPECT_TRUE(expand_folder_pattern(root, "/usr/lib/../lib").empty());
  EXPECT_TRUE(expand_folder_pattern(Root(dir_ + "/no-such-root"), "/usr/lib").empty());
}

TEST_F(RootSearchTest, FolderReachedThroughSymlinksIsSearchedOnce) {
  folder("/usr/local/cuda-12.4/targets/x86_64-linux/lib");
  link("/usr/local/cuda-12.4/lib64", "targets/x86_64-linux/lib");
  link("/usr/local/cuda", "cuda-12.4");
  auto found = distinct_folders(Root(dir_),
                                {"/usr/local/cuda/lib64", "/usr/local/cuda-*/lib64", "/usr/local/cuda/targets/*/lib"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path, "/usr/local/cuda/lib64");  // the first pattern names it
  EXPECT_EQ(found[0].canonical, "/usr/local/cuda-12.4/targets/x86_64-linux/lib");
}

TEST_F(RootSearchTest, LinksLeavingTheRootAreResolvedInsideIt) {
  char tmpl[] = "/tmp/gdrcheck-outside-XXXXXX";
  std::string outside = ::mkdtemp(tmpl);
  fs::create_directories(outside + "/lib");
  link("/opt/nccl-absolute", outside);  // absolute: re-rooted, so it names a folder the root lacks
  link("/opt/nccl-relative", "../../../../../../../../.." + outside);
  auto found = expand_folder_pattern(Root(dir_), "/opt/nccl*/lib");
  fs::remove_all(outside);
  EXPECT_TRUE(found.empty());
}

TEST_F(RootSearchTest, ManyMatchingFoldersAreBounded) {
  for (int i = 0; i < 300; ++i) folder("/opt/conda/envs/env" + std::to_string(1000 + i) + "/lib");
  auto found = expand_folder_pattern(Root(dir_), "/opt/conda/envs/*/lib");
  EXPECT_EQ(found.size(), kMaxPatternMatches);
  EXPECT_EQ(found.front().path, "/opt/conda/envs/env1000/lib");
}

TEST_F(RootSearchTest, ManyMatchingFilesCostABoundedNumberOfChecks) {
  // Files named like the pattern are not folders; the search gives up
  // after a bounded number of them rather than checking each.
  for (int i = 0; i < 1000; ++i) file("/usr/lib/python3.x" + std::to_string(1000 + i));
  folder("/usr/lib/python3.zz/site-packages");
  EXPECT_TRUE(expand_folder_pattern(Root(dir_), "/usr/lib/python3*/site-packages").empty());
}

TEST_F(RootSearchTest, ListingIsCutAtTheLimit) {
  for (int i = 0; i < 50; ++i) file("/many/f" + std::to_string(10 + i));
  Root root(dir_);
  auto names = list_bounded(root, "/many", 20);
  ASSERT_EQ(names.size(), 20u);
  EXPECT_EQ(names.front(), "f10");
  EXPECT_EQ(list_bounded(root, "/many").size(), 50u);
  EXPECT_TRUE(list_bounded(root, "/missing").empty());
}

TEST_F(RootSearchTest, RegularFilesOnly) {
  file("/etc/ld.so.conf", "/usr/local/lib\n");
  link("/etc/link.conf", "ld.so.conf");
  link("/etc/dangling.conf", "nowhere.conf");
  folder("/etc/ld.so.conf.d");
  ASSERT_EQ(::mkfifo((dir_ + "/etc/fifo.conf").c_str(), 0600), 0);
  Root root(dir_);
  EXPECT_TRUE(is_regular_file(root, "/etc/ld.so.conf"));
  EXPECT_TRUE(is_regular_file(root, "/etc/link.conf"));
  EXPECT_FALSE(is_regular_file(root, "/etc/dangling.conf"));
  EXPECT_FALSE(is_regular_file(root, "/etc/ld.so.conf.d"));
  EXPECT_FALSE(is_regular_file(root, "/etc/fifo.conf"));  // reading it would block
  EXPECT_FALSE(is_regular_file(root, "/etc/missing"));
}

TEST(FileNameOf, LastComponent) {
  EXPECT_EQ(file_name_of("/usr/lib/libnccl.so.2"), "libnccl.so.2");
  EXPECT_EQ(file_name_of("libnccl.so.2"), "libnccl.so.2");
  EXPECT_EQ(file_name_of("/usr/lib/"), "");
}

}  // namespace
}  // namespace gdrcheck

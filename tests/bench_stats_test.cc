// Repeat statistics, raw output file names and finding nccl-tests binaries.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "bench/nccl_tests_locator.h"
#include "bench/raw_output_file.h"
#include "bench/repeat_stats.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

TEST(RepeatStats, MedianAndSpread) {
  EXPECT_FALSE(repeat_stats({}));
  auto one = repeat_stats({40});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->count, 1);
  EXPECT_DOUBLE_EQ(one->median, 40);
  EXPECT_DOUBLE_EQ(one->spread, 0);
  auto odd = repeat_stats({45, 40, 50});
  EXPECT_DOUBLE_EQ(odd->median, 45);
  EXPECT_DOUBLE_EQ(odd->min, 40);
  EXPECT_DOUBLE_EQ(odd->max, 50);
  EXPECT_NEAR(odd->spread, 10.0 / 45, 1e-12);
  auto even = repeat_stats({10, 40, 20, 30});
  EXPECT_DOUBLE_EQ(even->median, 25);
  auto zero = repeat_stats({0, 0});
  EXPECT_DOUBLE_EQ(zero->spread, 0);
}

std::chrono::system_clock::time_point time_at(int64_t seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

TEST(RawOutputFile, NameSaysHostTimeAndPid) {
  // 2026-12-02T10:20:30Z
  std::string n = raw_output_name("/var/tmp", "gpu01.cluster", time_at(1796206830), 4242, "gdr-on-1");
  EXPECT_EQ(n, "/var/tmp/gdrcheck-bench-gpu01.cluster-20261202T102030Z-4242-gdr-on-1.log");
}

TEST(RawOutputFile, HostCannotAddAPathComponent) {
  std::string n = raw_output_name("out/", "../../etc/x", time_at(0), 1, "a/b");
  EXPECT_EQ(n.rfind("out/gdrcheck-bench-", 0), 0u);
  EXPECT_EQ(n.find("/", 4), std::string::npos) << n;
}

TEST(RawOutputFile, NeverAnExistingName) {
  std::string dir = testing::scratch_dir();
  std::string first = fresh_raw_output_path(dir, "h", time_at(5), 7, "run");
  std::ofstream(first) << "x";
  std::string second = fresh_raw_output_path(dir, "h", time_at(5), 7, "run");
  EXPECT_NE(first, second);
  EXPECT_EQ(second.substr(second.size() - 6), "-2.log");
  std::ofstream(second) << "y";
  EXPECT_EQ(fresh_raw_output_path(dir, "h", time_at(5), 7, "run").substr(second.size() - 6), "-3.log");
}

std::string make_exe(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(NcclTestsLocator, NamedDirectoryAndItsBuild) {
  std::string dir = testing::scratch_dir() + "/nccl-tests";
  std::string exe = make_exe(dir + "/build/all_reduce_perf");
  LocatedBinary b = locate_nccl_test("all_reduce_perf", dir, "/usr/bin");
  EXPECT_EQ(b.path, exe);
  // The named directory is the only place looked at.
  LocatedBinary missing = locate_nccl_test("alltoall_perf", dir, "/usr/bin");
  EXPECT_EQ(missing.path, "");
  EXPECT_EQ(missing.searched.size(), 2u);
}

TEST(NcclTestsLocator, PathOnly) {
  std::string root = testing::scratch_dir();
  std::string in_path = make_exe(root + "/p/all_gather_perf");
  EXPECT_EQ(locate_nccl_test("all_gather_perf", "", root + "/none:" + root + "/p").path, in_path);
  // Not executable: not found.
  std::ofstream(root + "/p/sendrecv_perf") << "text";
  LocatedBinary b = locate_nccl_test("sendrecv_perf", "", root + "/p");
  EXPECT_EQ(b.path, "");
  EXPECT_FALSE(b.searched.empty());
}

TEST(NcclTestsLocator, NoGuessedPlacesAndNoCurrentDirectory) {
  // Builds left in the usual places are not picked up unless named.
  LocatedBinary b = locate_nccl_test("all_reduce_perf", "", "");
  EXPECT_EQ(b.path, "");
  EXPECT_TRUE(b.searched.empty());
  for (const auto& s : locate_nccl_test("all_reduce_perf", "", "/usr/bin").searched) {
    EXPECT_EQ(s.find("/workspace"), std::string::npos) << s;
    EXPECT_EQ(s.find("/root"), std::string::npos) << s;
  }
  // Empty and relative PATH entries name the current directory: skipped.
  std::string cwd = testing::scratch_dir();
  make_exe(cwd + "/all_reduce_perf");
  make_exe(cwd + "/bin/all_reduce_perf");
  auto old = std::filesystem::current_path();
  std::filesystem::current_path(cwd);
  LocatedBinary rel = locate_nccl_test("all_reduce_perf", "", "::.:bin");
  std::filesystem::current_path(old);
  EXPECT_EQ(rel.path, "");
  EXPECT_TRUE(rel.searched.empty());
}

}  // namespace
}  // namespace gdrcheck

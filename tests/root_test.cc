#include "host/root.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

// A small root with sysfs-style relative links, an absolute link, a
// dangling driver link and a loop.
class RootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-root-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    fs::create_directories(dir_ + "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0");
    fs::create_directories(dir_ + "/sys/bus/pci/devices");
    write("/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/vendor", "0x15b3\n");
    fs::create_symlink("../../../devices/pci0000:16/0000:16:01.0/0000:17:00.0",
                       dir_ + "/sys/bus/pci/devices/0000:17:00.0");
    fs::create_symlink("../../../../bus/pci/drivers/mlx5_core",
                       dir_ + "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/driver");
    // An absolute link must be re-rooted, not followed into the live /.
    fs::create_directories(dir_ + "/etc");
    write("/etc/hostname", "recorded-host\n");
    fs::create_symlink("/etc/hostname", dir_ + "/hostname-link");
    fs::create_symlink("loop-b", dir_ + "/loop-a");
    fs::create_symlink("loop-a", dir_ + "/loop-b");
    fs::create_symlink("../../../../../etc/hostname", dir_ + "/sys/escape");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& inside, const std::string& text) { std::ofstream(dir_ + inside) << text; }

  std::string dir_;
};

TEST_F(RootTest, ReadsThroughRelativeSysfsLinks) {
  Root root(dir_);
  FileRead r = root.read("/sys/bus/pci/devices/0000:17:00.0/vendor");
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.trimmed(), "0x15b3");
  EXPECT_EQ(*root.resolve("/sys/bus/pci/devices/0000:17:00.0"), "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0");
}

// The kernel refuses a ".." lookup with EAGAIN when a rename anywhere on
// the system races with it (openat2 RESOLVE_IN_ROOT). Renames are common on
// a live host; a read through sysfs links must still succeed.
TEST_F(RootTest, ReadsSurviveConcurrentRenames) {
  std::atomic<bool> stop{false};
  std::string a = dir_ + "/rename-a", b = dir_ + "/rename-b";
  fs::create_directories(a);
  std::thread renamer([&] {
    while (!stop) {
      ::rename(a.c_str(), b.c_str());
      ::rename(b.c_str(), a.c_str());
    }
  });
  Root root(dir_);
  int failed = 0;
  std::string last;
  for (int i = 0; i < 20000; ++i) {
    FileRead r = root.read("/sys/bus/pci/devices/0000:17:00.0/vendor");
    if (!r.ok()) {
      ++failed;
      last = r.reason();
    }
  }
  stop = true;
  renamer.join();
  EXPECT_EQ(failed, 0) << last;
}

TEST_F(RootTest, AbsoluteLinksStayInsideTheRoot) {
  Root root(dir_);
  EXPECT_EQ(root.read("/hostname-link").trimmed(), "recorded-host");
  // ".." beyond the root stops at the root.
  EXPECT_EQ(*root.resolve("/sys/escape"), "/etc/hostname");
  EXPECT_EQ(root.read("/sys/escape").trimmed(), "recorded-host");
}

TEST_F(RootTest, DanglingDriverLinkIsReadWithReadlink) {
  Root root(dir_);
  auto target = root.readlink("/sys/bus/pci/devices/0000:17:00.0/driver");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->substr(target->rfind('/') + 1), "mlx5_core");
  EXPECT_FALSE(root.exists("/sys/bus/pci/devices/0000:17:00.0/driver"));
}

TEST_F(RootTest, MissingFileIsATypedUnknownNotAnException) {
  Root root(dir_);
  FileRead r = root.read("/sys/bus/pci/devices/0000:17:00.0/config");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status, FileRead::Status::Missing);
  EXPECT_EQ(r.reason(), "/sys/bus/pci/devices/0000:17:00.0/config: not found");
}

TEST_F(RootTest, SymlinkLoopIsAnErrorNotAHang) {
  Root root(dir_);
  EXPECT_FALSE(root.resolve("/loop-a").has_value());
  FileRead r = root.read("/loop-a");
  EXPECT_EQ(r.status, FileRead::Status::Error);
  EXPECT_NE(r.reason().find("symlink loop"), std::string::npos);
}

TEST_F(RootTest, DirectoryIsNotAFile) {
  Root root(dir_);
  EXPECT_EQ(root.read("/sys/bus").status, FileRead::Status::NotAFile);
  EXPECT_TRUE(root.is_dir("/sys/bus/pci/devices/0000:17:00.0"));
}

TEST_F(RootTest, PlantedFifoIsNotAFileAndNeverBlocks) {
  // A FIFO with no writer blocks a plain open() forever.
  ASSERT_EQ(::mkfifo((dir_ + "/etc/nccl.conf").c_str(), 0644), 0);
  Root root(dir_);
  auto reading = std::async(std::launch::async, [&] { return root.read("/etc/nccl.conf").status; });
  ASSERT_EQ(reading.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "read blocked on a FIFO";
  EXPECT_EQ(reading.get(), FileRead::Status::NotAFile);
}

TEST_F(RootTest, UnreadableFileIsDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file; the denied path needs an ordinary user";
  write("/secret", "x");
  ::chmod((dir_ + "/secret").c_str(), 0);
  EXPECT_EQ(Root(dir_).read("/secret").status, FileRead::Status::Denied);
}

TEST_F(RootTest, ReadStopsAtMaxBytes) {
  write("/big", std::string(10000, 'a'));
  EXPECT_EQ(Root(dir_).read("/big", 64).content.size(), 64u);
}

TEST_F(RootTest, ListsEntriesSorted) {
  Root root(dir_);
  auto names = root.list("/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0");
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "driver");
  EXPECT_EQ(names[1], "vendor");
  EXPECT_TRUE(root.list("/nope").empty());
}

TEST(RootPaths, HostPathJoinsOnce) {
  EXPECT_EQ(Root("/tmp/x/").host_path("/sys/a"), "/tmp/x/sys/a");
  EXPECT_EQ(Root("/").host_path("/sys/a"), "/sys/a");
  EXPECT_TRUE(Root("/").is_live());
  EXPECT_FALSE(Root("/tmp/x").is_live());
}

}  // namespace
}  // namespace gdrcheck

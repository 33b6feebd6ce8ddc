// The audit of a recorded root before hwloc reads it: links that leave the
// root (absolute, climbing, or climbing through another link), special
// files, link loops, limits, and what a clean sysfs-style tree looks like.
#include "host/root_audit.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

class RootAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    outer_ = testing::scratch_dir();
    root_ = outer_ + "/root";
    // A sysfs-style tree: relative links that climb only to the root, and
    // a dangling driver link as recorded trees have them.
    fs::create_directories(root_ + "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0");
    fs::create_directories(root_ + "/sys/bus/pci/devices");
    fs::create_directories(root_ + "/proc");
    write("/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/vendor", "0x15b3\n");
    write("/proc/cpuinfo", "processor : 0\n");
    link("../../../devices/pci0000:16/0000:16:01.0/0000:17:00.0", "/sys/bus/pci/devices/0000:17:00.0");
    link("../../../../bus/pci/drivers/mlx5_core", "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/driver");
    write_outside("canary", "CANARY-SECRET\n");
  }

  void write(const std::string& inside, const std::string& text) { std::ofstream(root_ + inside) << text; }
  void write_outside(const std::string& name, const std::string& text) { std::ofstream(outer_ + "/" + name) << text; }
  void link(const std::string& target, const std::string& inside) { fs::create_symlink(target, root_ + inside); }

  // The problem text of the refusal, or "" when the root passes.
  std::string refusal(const RootAuditLimits& limits = {}) {
    try {
      audit_root_for_hwloc(Root(root_), limits);
      return "";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), root_);
      return e.problem();
    }
  }

  std::string outer_, root_;
};

TEST_F(RootAuditTest, SysfsStyleTreePasses) {
  RootAuditStats s = audit_root_for_hwloc(Root(root_));
  EXPECT_EQ(s.links, 2u);
  EXPECT_EQ(s.entries, 13u);
}

TEST_F(RootAuditTest, LiveRootIsNotWalked) {
  RootAuditStats s = audit_root_for_hwloc(Root("/"));
  EXPECT_EQ(s.entries, 0u);
}

TEST_F(RootAuditTest, AbsoluteLinkIsRefused) {
  link(outer_ + "/canary", "/proc/meminfo");
  std::string why = refusal();
  EXPECT_EQ(why, "/proc/meminfo: a link to " + outer_ + "/canary, outside the root; gdrcheck does not read through it");
  EXPECT_EQ(why.find("CANARY-SECRET"), std::string::npos);
}

TEST_F(RootAuditTest, AbsoluteLinkIntoTheRootsOwnPathIsStillRefused) {
  // hwloc's openat() would take it from the live "/", whatever it names.
  link("/sys/devices", "/sys/class");
  EXPECT_NE(refusal().find("/sys/class: a link to /sys/devices, outside the root"), std::string::npos);
}

TEST_F(RootAuditTest, ClimbingLinkIsRefused) {
  link("../../canary", "/proc/cpuinfo-link");
  EXPECT_EQ(refusal(),
            "/proc/cpuinfo-link: a link to ../../canary, outside the root; gdrcheck does not read through it");
}

TEST_F(RootAuditTest, ClimbingToTheRootItselfPasses) {
  link("../..", "/sys/bus/top");
  link("../../../devices/../bus/pci/devices/./0000:17:00.0", "/sys/bus/pci/again");
  EXPECT_EQ(refusal(), "");
}

// "up" leads to the root; "up/.." is then above it, though the text
// "sys/bus/up/.." reads as a path inside. Resolution is physical, like the kernel's.
TEST_F(RootAuditTest, ClimbingThroughAnotherLinkIsRefused) {
  link("../..", "/sys/bus/up");
  link("up/../canary", "/sys/bus/sneaky");
  EXPECT_NE(refusal().find("/sys/bus/sneaky: a link to up/../canary, outside the root"), std::string::npos);
}

// A physical ".." after a link into a deep directory stays inside, although
// the same text read lexically would climb out.
TEST_F(RootAuditTest, DotDotAfterADeepLinkIsPhysical) {
  link("devices/pci0000:16/0000:16:01.0", "/sys/deep");
  link("deep/../../..", "/sys/fine");  // deep/.. = /sys/devices/pci0000:16, then /sys, then /
  EXPECT_EQ(refusal(), "");
}

TEST_F(RootAuditTest, LinkThroughAnAbsoluteLinkNamesBoth) {
  link("/etc", "/sys/m");
  link("m/shadow", "/sys/a-link");  // sorted first, so it is the one named
  std::string why = refusal();
  EXPECT_NE(why.find("/sys/a-link: a link to m/shadow (through /sys/m, a link to /etc), outside the root"),
            std::string::npos)
      << why;
}

TEST_F(RootAuditTest, LinkLoopIsRefused) {
  link("loop-b", "/sys/loop-a");
  link("loop-a", "/sys/loop-b");
  EXPECT_NE(refusal().find("/sys/loop-a: a link to loop-b through more than 40 links"), std::string::npos);
}

TEST_F(RootAuditTest, DanglingAndEmptyChainsStopWhereTheKernelStops) {
  // A missing name or a file used as a directory ends the lookup: what
  // follows is never opened, so it cannot leave the root.
  link("missing/../../../../../..", "/sys/dangling");
  link("../proc/cpuinfo/../../../..", "/sys/through-file");
  EXPECT_EQ(refusal(), "");
}

TEST_F(RootAuditTest, FifoIsRefused) {
  ASSERT_EQ(::mkfifo((root_ + "/proc/meminfo").c_str(), 0644), 0);
  EXPECT_EQ(refusal(),
            "/proc/meminfo: a FIFO, not a regular file, directory or link; gdrcheck does not read through it");
}

TEST_F(RootAuditTest, SocketIsRefused) {
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = root_ + "/sys/sock";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(s);
  EXPECT_NE(refusal().find("/sys/sock: a socket"), std::string::npos);
}

TEST_F(RootAuditTest, CharacterDeviceIsRefused) {
  if (::mknod((root_ + "/sys/zero").c_str(), S_IFCHR | 0644, makedev(1, 5)) != 0)
    GTEST_SKIP() << "creating a device node needs CAP_MKNOD";
  EXPECT_NE(refusal().find("/sys/zero: a character device"), std::string::npos);
}

TEST_F(RootAuditTest, LinkToAFifoInsideIsRefusedThroughTheFifo) {
  ASSERT_EQ(::mkfifo((root_ + "/sys/pipe").c_str(), 0644), 0);
  link("../sys/pipe", "/proc/meminfo");
  EXPECT_NE(refusal().find("/sys/pipe: a FIFO"), std::string::npos);
}

TEST_F(RootAuditTest, ControlBytesInNamesAreEscaped) {
  link("/etc/\x1b[31mred", "/sys/\x1b]0;title\x07");
  std::string why = refusal();
  EXPECT_EQ(why.find('\x1b'), std::string::npos);
  EXPECT_EQ(why.find('\x07'), std::string::npos);
  EXPECT_NE(why.find("/sys/\\x1b]0;title\\x07: a link to /etc/\\x1b[31mred"), std::string::npos) << why;
}

TEST_F(RootAuditTest, EntryLimit) {
  for (int i = 0; i < 20; ++i) write("/proc/f" + std::to_string(i), "x");
  RootAuditLimits limits;
  limits.max_entries = 10;
  EXPECT_EQ(refusal(limits), "more than 10 entries; gdrcheck does not check a tree this large before hwloc reads it");
}

TEST_F(RootAuditTest, DepthLimit) {
  fs::create_directories(root_ + "/a/b/c/d/e");
  RootAuditLimits limits;
  limits.max_depth = 3;
  EXPECT_NE(refusal(limits).find("/a/b/c/d: directories nested deeper than 3 levels"), std::string::npos);
}

TEST_F(RootAuditTest, UnlistableDirectoryIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root lists any directory";
  fs::create_directories(root_ + "/sys/locked");
  ::chmod((root_ + "/sys/locked").c_str(), 0);
  std::string why = refusal();
  ::chmod((root_ + "/sys/locked").c_str(), 0755);
  EXPECT_NE(why.find("/sys/locked: cannot be opened"), std::string::npos) << why;
}

TEST_F(RootAuditTest, MissingRootIsAnInputError) {
  EXPECT_THROW(audit_root_for_hwloc(Root(outer_ + "/no-such-root")), InputError);
}

}  // namespace
}  // namespace gdrcheck

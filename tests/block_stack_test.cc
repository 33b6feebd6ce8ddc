// Block stacks read from a sysfs tree laid out as the kernel lays it out:
// class links into /sys/devices, partitions inside their disk, md and dm
// members under slaves/.
#include "host/block_stack.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

const std::string kCtrl = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0";

class BlockStack : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::scratch_dir();
    write(kCtrl + "/transport", "pcie\n");
    link(kCtrl + "/device", "../../../0000:01:00.0");
    link(kCtrl + "/nvme0n1/device", "../../nvme0");
    write(kCtrl + "/nvme0n1/nvme0n1p1/partition", "1\n");
    link("/sys/class/nvme/nvme0", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0");
    link("/sys/class/block/nvme0n1", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1");
    link("/sys/class/block/nvme0n1p1",
         "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1/nvme0n1p1");
  }
  void write(const std::string& inside, const std::string& text) {
    fs::path p = fs::path(root_) / inside.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void link(const std::string& inside, const std::string& target) {
    fs::path p = fs::path(root_) / inside.substr(1);
    fs::create_directories(p.parent_path());
    fs::create_symlink(target, p);
  }
  // A virtual block device (md, dm, loop) with the given member devices.
  void virtual_device(const std::string& name, const std::vector<std::string>& members) {
    std::string dir = "/sys/devices/virtual/block/" + name;
    fs::create_directories(fs::path(root_) / dir.substr(1) / "slaves");
    for (const auto& m : members) link(dir + "/slaves/" + m, "../../../../../class/block/" + m);
    link("/sys/class/block/" + name, "../../devices/virtual/block/" + name);
  }
  std::string root_;
};

TEST_F(BlockStack, APartitionLeadsToItsNamespaceAndControllerFunction) {
  Root root(root_);
  EXPECT_EQ(block_device_name(root, "/dev/nvme0n1p1"), "nvme0n1p1");
  BlockDevice d = read_block_device(root, "nvme0n1p1");
  EXPECT_EQ(d.kind, BlockDevice::Kind::Partition);
  ASSERT_EQ(d.below.size(), 1u);
  const BlockDevice& ns = d.below[0];
  EXPECT_EQ(ns.kind, BlockDevice::Kind::NvmeNamespace);
  EXPECT_EQ(ns.controller, "nvme0");
  EXPECT_EQ(ns.transport, "pcie");
  ASSERT_TRUE(ns.pci);
  EXPECT_EQ(ns.pci->str(), "0000:01:00.0");
  EXPECT_TRUE(ns.problem.empty()) << ns.problem;
}

TEST_F(BlockStack, LvmOnMdRaid0OfNvmeIsReadLayerByLayer) {
  write(kCtrl + "/../nvme1/transport", "pcie\n");
  link("/sys/class/nvme/nvme1", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme1");
  link("/sys/class/block/nvme1n1", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme1/nvme1n1");
  link(kCtrl + "/../nvme1/nvme1n1/device", "../../nvme1");
  virtual_device("md0", {"nvme0n1", "nvme1n1"});
  write("/sys/devices/virtual/block/md0/md/level", "raid0\n");
  virtual_device("dm-0", {"md0"});
  write("/sys/devices/virtual/block/dm-0/dm/name", "vg0-data\n");
  write("/sys/devices/virtual/block/dm-0/dm/uuid", "LVM-Xy12\n");
  Root root(root_);
  EXPECT_EQ(block_device_name(root, "/dev/mapper/vg0-data"), "dm-0");
  BlockDevice d = read_block_device(root, "dm-0");
  EXPECT_EQ(d.kind, BlockDevice::Kind::DeviceMapper);
  EXPECT_EQ(d.dm_kind, "LVM");
  EXPECT_EQ(d.dm_name, "vg0-data");
  ASSERT_EQ(d.below.size(), 1u);
  EXPECT_EQ(d.below[0].kind, BlockDevice::Kind::Md);
  EXPECT_EQ(d.below[0].level, "raid0");
  ASSERT_EQ(d.below[0].below.size(), 2u);
  EXPECT_EQ(d.below[0].below[1].controller, "nvme1");
}

TEST_F(BlockStack, CyclesAndMissingDevicesEndWithAProblem) {
  virtual_device("dm-1", {"dm-2"});
  virtual_device("dm-2", {"dm-1"});
  write("/sys/devices/virtual/block/dm-1/dm/name", "a\n");
  write("/sys/devices/virtual/block/dm-2/dm/name", "b\n");
  Root root(root_);
  BlockDevice d = read_block_device(root, "dm-1");
  ASSERT_EQ(d.below.size(), 1u);
  ASSERT_EQ(d.below[0].below.size(), 1u);
  EXPECT_NE(d.below[0].below[0].problem.find("cycle"), std::string::npos);
  EXPECT_NE(read_block_device(root, "sdz").problem.find("not found"), std::string::npos);
  EXPECT_NE(read_block_device(root, "../../etc").problem.find("not found"), std::string::npos);
  EXPECT_EQ(block_device_name(root, "/dev/root"), std::nullopt);
  EXPECT_EQ(block_device_name(root, "server:/export"), std::nullopt);
  EXPECT_EQ(block_device_name(root, "/dev/mapper/absent"), std::nullopt);
  EXPECT_EQ(block_device_name(root, "/dev/../sys/class/block/nvme0n1"), std::nullopt);
}

TEST_F(BlockStack, AnUnreadableTransportIsAProblemNotPcie) {
  fs::remove(fs::path(root_) / kCtrl.substr(1) / "transport");
  BlockDevice d = read_block_device(Root(root_), "nvme0n1");
  EXPECT_EQ(d.kind, BlockDevice::Kind::NvmeNamespace);
  EXPECT_TRUE(d.transport.empty());
  EXPECT_FALSE(d.pci);
  EXPECT_NE(d.problem.find("transport"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

// The mount table as the kernel prints it, and the mount that holds a path.
#include "host/mounts.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

TEST(Mounts, ReadsFieldsOptionsAndOctalEscapes) {
  MountTable t = parse_mounts(
      "proc /proc proc rw,relatime 0 0\n"
      "/dev/md0 /raid ext4 rw,relatime,data=ordered 0 0\n"
      "10.0.0.1@o2ib:/lustre /mnt/my\\040data lustre rw,flock,lazystatfs 0 0\n"
      "srv:/export /home nfs4 rw,vers=4.2,proto=rdma,port=20049 0 0\n");
  ASSERT_EQ(t.mounts.size(), 4u);
  EXPECT_EQ(t.skipped, 0u);
  EXPECT_EQ(t.mounts[1].device, "/dev/md0");
  EXPECT_TRUE(t.mounts[1].has_option("data=ordered"));
  EXPECT_EQ(t.mounts[1].option("data"), "ordered");
  EXPECT_EQ(t.mounts[2].mountpoint, "/mnt/my data");
  EXPECT_EQ(t.mounts[2].line, 3);
  EXPECT_EQ(t.mounts[3].option("proto"), "rdma");
  EXPECT_EQ(t.mounts[3].option("prot"), std::nullopt);  // a key is matched whole
}

TEST(Mounts, LinesThatAreNotMountsAreCountedNotGuessed) {
  MountTable t = parse_mounts("garbage\n/dev/sda1 relative ext4 rw 0 0\n/dev/sda1 / ext4 rw 0 0 extra\n\n");
  EXPECT_TRUE(t.mounts.empty());
  EXPECT_EQ(t.skipped, 3u);
}

TEST(Mounts, TheDeepestMountOnTopHoldsAPath) {
  MountTable t = parse_mounts(
      "/dev/vda / ext4 rw 0 0\n"
      "/dev/md0 /raid ext4 rw 0 0\n"
      "/dev/nvme0n1 /raid xfs rw 0 0\n"
      "/dev/nvme1n1 /raidx xfs rw 0 0\n");
  ASSERT_NE(mount_holding(t, "/raid/imagenet/train"), nullptr);
  EXPECT_EQ(mount_holding(t, "/raid/imagenet/train")->device, "/dev/nvme0n1");  // mounted over /dev/md0
  EXPECT_EQ(mount_holding(t, "/raidy")->device, "/dev/vda");                    // not below /raid
  EXPECT_EQ(mount_holding(t, "/raidx")->device, "/dev/nvme1n1");
  EXPECT_EQ(mount_holding(parse_mounts(""), "/x"), nullptr);
}

TEST(Mounts, ReadsMountListingsUsersPasteInstead) {
  MountTable t = parse_mounts(
      "10.0.0.10@tcp:/exacloud on /mnt/exa cloud type lustre (rw,seclabel,flock,user_xattr,lazystatfs,encrypt)\n"
      "not a mount on /x type\n");
  ASSERT_EQ(t.mounts.size(), 1u);
  EXPECT_EQ(t.mounts[0].device, "10.0.0.10@tcp:/exacloud");
  EXPECT_EQ(t.mounts[0].mountpoint, "/mnt/exa cloud");
  EXPECT_EQ(t.mounts[0].fstype, "lustre");
  EXPECT_TRUE(t.mounts[0].has_option("flock"));
  EXPECT_EQ(t.skipped, 1u);
}

// Real tables and listings users posted (tests/data/gds/mounts/PROVENANCE.md).
TEST(Mounts, RealPostedTablesAndListings) {
  MountTable nfs = parse_mounts(testing::read_test_data("gds/mounts/nfs4-rdma-proxmox-eseries-blog.mounts"));
  ASSERT_EQ(nfs.mounts.size(), 1u);
  EXPECT_EQ(nfs.mounts[0].fstype, "nfs4");
  EXPECT_EQ(nfs.mounts[0].option("proto"), "rdma");
  EXPECT_EQ(nfs.mounts[0].option("port"), "20049");

  MountTable raid = parse_mounts(testing::read_test_data("gds/mounts/md0-raid-nfs4-home-elided-options.mounts"));
  ASSERT_EQ(raid.mounts.size(), 2u);
  EXPECT_EQ(raid.mounts[1].device, "/dev/md0");
  EXPECT_FALSE(raid.mounts[1].has_option("data=ordered"));  // a real /raid without it stated
  EXPECT_TRUE(raid.mounts[0].has_option("..."));            // the poster's elision, kept as an option

  MountTable weka = parse_mounts(testing::read_test_data("gds/mounts/fixture-wekafs-container-name.mounts"));
  EXPECT_EQ(weka.skipped, 0u);
  EXPECT_EQ(weka.mounts.at(0).device, "dev/sdc1");  // as the fixture has it: the device field is not judged here
  EXPECT_EQ(std::count_if(weka.mounts.begin(), weka.mounts.end(), [](const Mount& m) { return m.fstype == "wekafs"; }),
            6);

  MountTable beegfs = parse_mounts(testing::read_test_data("gds/mounts/fixture-beegfs-cfgfile.mounts"));
  ASSERT_EQ(beegfs.mounts.size(), 6u);  // a line ending in two tabs is still six fields
  EXPECT_EQ(beegfs.mounts[5].option("cfgFile"), "/etc/beegfs/2beegfs-client.conf");

  MountTable lvm = parse_mounts(testing::read_test_data("gds/mounts/lvm-mapper-btrfs-node-exporter-20.mounts"));
  EXPECT_EQ(lvm.mounts.at(0).device, "/dev/mapper/ubuntu--vg-docker");

  MountTable guide =
      parse_mounts(testing::read_test_data("gds/mounts/mount-output-gds-benchmarking-guide-nfs3-rdma.txt"));
  ASSERT_EQ(guide.mounts.size(), 4u);
  EXPECT_EQ(guide.mounts[3].mountpoint, "/mnt/nfs/ib8/data/1");
  EXPECT_EQ(guide.mounts[3].option("proto"), "rdma");

  MountTable azure = parse_mounts(testing::read_test_data("gds/mounts/mount-output-lustre-azure-csi-pod-volume.txt"));
  ASSERT_EQ(azure.mounts.size(), 2u);
  EXPECT_EQ(azure.mounts[0].fstype, "lustre");
}

}  // namespace
}  // namespace gdrcheck

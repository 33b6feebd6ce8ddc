// The mount table as the kernel prints it, and the mount that holds a path.
#include "host/mounts.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gdrcheck

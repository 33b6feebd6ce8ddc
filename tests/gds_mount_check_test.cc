// gds.mount: good, bad and evidence-missing file systems and block stacks.
#include <gtest/gtest.h>

#include "checks/gds_checks.h"
#include "node_checks.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::find_subject;

BlockDevice nvme(const std::string& name, const std::string& transport = "pcie") {
  BlockDevice d;
  d.name = name;
  d.kind = BlockDevice::Kind::NvmeNamespace;
  d.controller = name.substr(0, name.find('n', 4));
  d.transport = transport;
  if (transport == "pcie") d.pci = PciAddress::parse("0000:5e:00.0");
  return d;
}

BlockDevice stacked(const std::string& name, BlockDevice::Kind kind, std::vector<BlockDevice> below) {
  BlockDevice d;
  d.name = name;
  d.kind = kind;
  d.below = std::move(below);
  return d;
}

GdsState with_mounts(const std::string& table) {
  GdsState g;
  g.nvidia_fs_loaded = true;
  g.backends = std::vector<NvidiaFsBackend>{{"nvme", "2.28.4"}, {"nvme_rdma", "2.28.4"}, {"lnet", "2.28.4"}};
  g.mounts = parse_mounts(table);
  return g;
}

TEST(GdsMountCheck, XfsOnNvmeAndMdRaid0OfNvmeGoDirect) {
  GdsState g = with_mounts("/dev/nvme0n1 /data xfs rw 0 0\n/dev/md0 /raid ext4 rw,data=ordered 0 0\n");
  g.block_stacks["/dev/nvme0n1"] = nvme("nvme0n1");
  BlockDevice md = stacked("md0", BlockDevice::Kind::Md, {nvme("nvme1n1"), nvme("nvme2n1")});
  md.level = "raid0";
  g.block_stacks["/dev/md0"] = md;
  auto f = check_gds_mounts(g, std::nullopt);
  ASSERT_NE(find_subject(f, "/data"), nullptr);
  EXPECT_EQ(find_subject(f, "/data")->status, Status::Ok) << find_subject(f, "/data")->summary;
  EXPECT_NE(find_subject(f, "/data")->summary.find("NVMe namespace over PCIe, 0000:5e:00.0"), std::string::npos);
  ASSERT_NE(find_subject(f, "/raid"), nullptr);
  EXPECT_EQ(find_subject(f, "/raid")->status, Status::Ok) << find_subject(f, "/raid")->summary;
}

TEST(GdsMountCheck, Ext4WithoutExplicitOrderedLvmAndRaid1BreakTheDirectPath) {
  GdsState g = with_mounts(
      "/dev/nvme0n1 /scratch ext4 rw,relatime 0 0\n"
      "/dev/mapper/vg-data /lv xfs rw 0 0\n"
      "/dev/md1 /mirror xfs rw 0 0\n"
      "/dev/nvme3n1 /wb ext4 rw,data=writeback 0 0\n");
  g.block_stacks["/dev/nvme0n1"] = nvme("nvme0n1");
  g.block_stacks["/dev/nvme3n1"] = nvme("nvme3n1");
  BlockDevice lv = stacked("dm-0", BlockDevice::Kind::DeviceMapper, {nvme("nvme1n1")});
  lv.dm_kind = "LVM";
  g.block_stacks["/dev/mapper/vg-data"] = lv;
  BlockDevice md = stacked("md1", BlockDevice::Kind::Md, {nvme("nvme2n1")});
  md.level = "raid1";
  g.block_stacks["/dev/md1"] = md;
  auto f = check_gds_mounts(g, std::nullopt);
  ASSERT_NE(find_subject(f, "/scratch"), nullptr);
  EXPECT_EQ(find_subject(f, "/scratch")->status, Status::Warning);
  EXPECT_NE(find_subject(f, "/scratch")->summary.find("without data=ordered"), std::string::npos);
  EXPECT_NE(find_subject(f, "/scratch")->fix.find("data=ordered"), std::string::npos);
  EXPECT_EQ(find_subject(f, "/wb")->status, Status::Warning);
  EXPECT_NE(find_subject(f, "/wb")->summary.find("data=writeback"), std::string::npos);
  ASSERT_NE(find_subject(f, "/lv"), nullptr);
  EXPECT_EQ(find_subject(f, "/lv")->status, Status::Warning);
  EXPECT_NE(find_subject(f, "/lv")->summary.find("LVM logical volume"), std::string::npos);
  ASSERT_NE(find_subject(f, "/mirror"), nullptr);
  EXPECT_NE(find_subject(f, "/mirror")->summary.find("md raid1"), std::string::npos);
}

TEST(GdsMountCheck, NetworkFileSystemsNeedTheirRoute) {
  GdsState g = with_mounts(
      "10.0.0.1@o2ib:/lfs /lustre lustre rw,flock 0 0\n"
      "srv:/data /nfsrdma nfs4 rw,proto=rdma,port=20049 0 0\n"
      "srv:/home /home nfs4 rw,proto=tcp 0 0\n"
      "srv:/proj /proj nfs rw,proto=tcp 0 0\n"
      "weka /mnt/weka wekafs rw 0 0\n");
  auto f = check_gds_mounts(g, std::nullopt);
  EXPECT_EQ(find_subject(f, "/lustre")->status, Status::Ok);  // lnet registered
  ASSERT_NE(find_subject(f, "/nfsrdma"), nullptr);
  EXPECT_EQ(find_subject(f, "/nfsrdma")->status, Status::Warning);  // rpcrdma did not register
  EXPECT_NE(find_subject(f, "/nfsrdma")->summary.find("rpcrdma did not register"), std::string::npos);
  EXPECT_EQ(find_subject(f, "/mnt/weka")->status, Status::Warning);  // no peermem, no dmabuf
  CufileConfig c = parse_cufile_config(R"({"properties": {"rdma_peer_type": "dmabuf"}})", "/etc/cufile.json");
  EXPECT_EQ(find_subject(check_gds_mounts(g, c), "/mnt/weka")->status, Status::Ok);
  // NFS over TCP and the system's /home are listed, not warned about.
  const Finding* others = find_subject(f, "other mounts");
  ASSERT_NE(others, nullptr);
  EXPECT_EQ(others->status, Status::Ok);
  EXPECT_NE(others->summary.find("/home (nfs4)"), std::string::npos);
  EXPECT_NE(others->summary.find("/proj (nfs)"), std::string::npos);
}

TEST(GdsMountCheck, P2pdmaRouteStandsInForNvidiaFs) {
  GdsState g = with_mounts("/dev/nvme0n1 /data xfs rw 0 0\n");
  g.nvidia_fs_loaded = false;
  g.backends.reset();
  g.block_stacks["/dev/nvme0n1"] = nvme("nvme0n1");
  EXPECT_EQ(check_gds_mounts(g, std::nullopt)[0].status, Status::Warning);
  CufileConfig c = parse_cufile_config(
      R"({"properties": {"use_pci_p2pdma": true}, "block": {"nvme": {"use_pci_p2pdma": true}}})", "/etc/cufile.json");
  auto f = check_gds_mounts(g, c);
  EXPECT_EQ(f[0].status, Status::Ok) << f[0].summary;
}

TEST(GdsMountCheck, PathJudgesItsMountAndCompatOffMakesItCritical) {
  GdsState g = with_mounts("/dev/vda / ext4 rw 0 0\nsrv:/proj /proj nfs rw,proto=tcp 0 0\n");
  g.path = "/proj/imagenet";
  auto f = check_gds_mounts(g, std::nullopt);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject, "/proj");
  EXPECT_EQ(f[0].status, Status::Warning);
  EXPECT_EQ(f[0].summary.rfind("/proj/imagenet: ", 0), 0u) << f[0].summary;
  CufileConfig off = parse_cufile_config(R"({"properties": {"allow_compat_mode": false}})", "/etc/cufile.json");
  f = check_gds_mounts(g, off);
  EXPECT_EQ(f[0].status, Status::Critical);
  EXPECT_NE(f[0].summary.find("fails"), std::string::npos);
}

TEST(GdsMountCheck, DenylistedMountIsNotDirect) {
  GdsState g = with_mounts("/dev/nvme0n1 /data xfs rw 0 0\n");
  g.block_stacks["/dev/nvme0n1"] = nvme("nvme0n1");
  CufileConfig c = parse_cufile_config(R"({"denylist": {"mounts": ["/data"]}})", "/etc/cufile.json");
  auto f = check_gds_mounts(g, c);
  EXPECT_EQ(f[0].status, Status::Warning);
  EXPECT_NE(f[0].summary.find("denylist.mounts"), std::string::npos);
}

TEST(GdsMountCheck, EvidenceMissingIsUnknown) {
  GdsState g;
  g.mounts_problem = "/proc/mounts: not found";
  auto f = check_gds_mounts(g, std::nullopt);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Unknown);
  // A local file system whose device the root does not show is not called compat.
  GdsState h = with_mounts("/dev/nvme9n1 /data xfs rw 0 0\n");
  f = check_gds_mounts(h, std::nullopt);
  EXPECT_EQ(f[0].status, Status::Unknown);
  // An NVMe transport that could not be read.
  BlockDevice d = nvme("nvme9n1", "");
  d.problem = "/sys/class/nvme/nvme9/transport: not readable";
  h.block_stacks["/dev/nvme9n1"] = d;
  EXPECT_EQ(check_gds_mounts(h, std::nullopt)[0].status, Status::Unknown);
  // --path outside every mount.
  h.path = "relative";
  EXPECT_EQ(check_gds_mounts(h, std::nullopt)[0].status, Status::Unknown);
}

TEST(GdsMountCheck, MountNamesFromDataNeverReachTheTextRaw) {
  GdsState g = with_mounts("/dev/nvme0n1 /data\\033[2J xfs rw 0 0\n");
  g.block_stacks["/dev/nvme0n1"] = nvme("nvme0n1");
  auto f = check_gds_mounts(g, std::nullopt);
  for (const auto& x : f) {
    EXPECT_EQ(x.subject.find('\x1b'), std::string::npos);
    EXPECT_EQ(x.summary.find('\x1b'), std::string::npos);
    for (const auto& e : x.evidence) EXPECT_EQ(e.find('\x1b'), std::string::npos);
  }
}

// Real tables users posted (tests/data/gds/mounts/PROVENANCE.md).
TEST(GdsMountCheck, RealPostedTables) {
  GdsState g = with_mounts(testing::read_test_data("gds/mounts/md0-raid-nfs4-home-elided-options.mounts"));
  BlockDevice md = stacked("md0", BlockDevice::Kind::Md, {nvme("nvme0n1"), nvme("nvme1n1")});
  md.level = "raid0";
  g.block_stacks["/dev/md0"] = md;
  auto f = check_gds_mounts(g, std::nullopt);
  ASSERT_NE(find_subject(f, "/raid"), nullptr);
  EXPECT_EQ(find_subject(f, "/raid")->status, Status::Warning);  // ext4, data=ordered not stated
  EXPECT_NE(find_subject(f, "/raid")->evidence[0].find("/proc/mounts line 2: /dev/md0 /raid ext4"), std::string::npos);
  EXPECT_NE(find_subject(f, "other mounts")->summary.find("/home (nfs4)"), std::string::npos);

  g = with_mounts(testing::read_test_data("gds/mounts/nfs4-rdma-proxmox-eseries-blog.mounts"));
  g.backends->push_back({"rpcrdma", "2.17.5"});
  f = check_gds_mounts(g, std::nullopt);
  ASSERT_NE(find_subject(f, "/mnt/r1_4096_128"), nullptr);
  EXPECT_EQ(find_subject(f, "/mnt/r1_4096_128")->status, Status::Ok);
  EXPECT_NE(find_subject(f, "/mnt/r1_4096_128")->summary.find("NFS over RDMA"), std::string::npos);

  g = with_mounts(testing::read_test_data("gds/mounts/fixture-wekafs-container-name.mounts"));
  g.peermem_loaded = true;
  f = check_gds_mounts(g, std::nullopt);
  ASSERT_NE(find_subject(f, "/mnt/weka"), nullptr);
  EXPECT_EQ(find_subject(f, "/mnt/weka")->status, Status::Ok);
  EXPECT_NE(find_subject(f, "other mounts")->summary.find("/run/weka-fs-mounts/"), std::string::npos);

  g = with_mounts(testing::read_test_data("gds/mounts/mount-output-gds-benchmarking-guide-nfs3-rdma.txt"));
  f = check_gds_mounts(g, std::nullopt);
  EXPECT_EQ(f.size(), 4u);
  for (const auto& x : f) EXPECT_NE(x.summary.find("rpcrdma did not register"), std::string::npos) << x.summary;
}

}  // namespace
}  // namespace gdrcheck

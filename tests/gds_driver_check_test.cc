// gds.driver: good, bad and evidence-missing states of nvidia-fs.
#include <gtest/gtest.h>

#include "checks/gds_checks.h"

namespace gdrcheck {
namespace {

GdsState loaded(std::vector<NvidiaFsBackend> backends) {
  GdsState g;
  g.nvidia_fs_loaded = true;
  g.module_version = {"/sys/module/nvidia_fs/version", "2.28.4", ""};
  g.proc_version = {"/proc/driver/nvidia-fs/version", "version: 2.28", ""};
  g.backends = std::move(backends);
  g.acs_bridges = std::vector<std::string>{};
  return g;
}

TEST(GdsDriverCheck, LoadedWithTheNvmeDriverRegisteredIsOk) {
  auto f = check_gds_driver(loaded({{"nvme", "2.28.4"}, {"nvme_rdma", "2.28.4"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "gds.driver");
  EXPECT_EQ(f[0].status, Status::Ok);
  EXPECT_NE(f[0].summary.find("nvidia-fs 2.28.4; registered: nvme 2.28.4, nvme_rdma 2.28.4"), std::string::npos)
      << f[0].summary;
}

TEST(GdsDriverCheck, NotLoadedIsAWarningNotCritical) {
  GdsState g;
  auto f = check_gds_driver(g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Warning);
  EXPECT_NE(f[0].summary.find("compat mode"), std::string::npos);
  EXPECT_NE(f[0].fix.find("modprobe nvidia-fs"), std::string::npos);
}

TEST(GdsDriverCheck, NoStorageDriverRegisteredOrNoNvme) {
  EXPECT_EQ(check_gds_driver(loaded({}))[0].status, Status::Warning);
  auto f = check_gds_driver(loaded({{"lnet", "2.28.4"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Warning);
  EXPECT_NE(f[0].summary.find("NVMe driver did not register"), std::string::npos);
}

TEST(GdsDriverCheck, AcsBridgesNvidiaFsFoundAreAWarningOfTheirOwn) {
  GdsState g = loaded({{"nvme", "2.28.4"}});
  g.acs_bridges = std::vector<std::string>{"0000:16:02.0", "0000:16:\x1b[2J"};
  auto f = check_gds_driver(g);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].subject, "acs");
  EXPECT_EQ(f[1].status, Status::Warning);
  EXPECT_EQ(f[1].evidence[0].find('\x1b'), std::string::npos);  // escaped
}

TEST(GdsDriverCheck, EvidenceMissingIsUnknown) {
  GdsState uncaptured;
  uncaptured.uncaptured = {"/sys/module"};
  auto f = check_gds_driver(uncaptured);
  EXPECT_EQ(f.at(0).status, Status::Unknown);
  EXPECT_NE(f[0].summary.find("not captured"), std::string::npos);
  GdsState unreadable = loaded({});
  unreadable.backends.reset();
  unreadable.backends_problem = "/proc/driver/nvidia-fs/modules: permission denied";
  EXPECT_EQ(check_gds_driver(unreadable).at(0).status, Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

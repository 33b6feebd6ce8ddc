// `gdrcheck gds` end to end on roots built here: a node with GDS set up,
// one with compat mode forced, one without nvidia-fs or configuration, and
// a job's own CUFILE_ENV_PATH_JSON.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "run_binary.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::run_gdrcheck;

class GdsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gdrcheck-gds-cli-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    for (const char* d : {"sys/module", "proc/driver", "sys/bus/pci/devices", "sys/class/nvme", "etc"})
      fs::create_directories(root_ / d);
    write("/proc/sys/kernel/hostname", "gds01\n");
    write("/sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");  // an H100
    write("/sys/bus/pci/devices/0000:1b:00.0/class", "0x030200\n");
    write("/proc/mounts", "/dev/vda1 / ext4 rw,relatime 0 0\nproc /proc proc rw 0 0\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& inside, const std::string& text) {
    fs::path p = root_ / inside.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void gds_driver() {
    write("/sys/module/nvidia_fs/version", "2.28.4\n");
    write("/proc/driver/nvidia-fs/version", "version: 2.28\n");
    write("/proc/driver/nvidia-fs/modules", "nvme: 2.28.4\nnvme_rdma: 2.28.4\n");
    write("/proc/driver/nvidia-fs/bridges", "");
  }
  fs::path root_;
};

TEST_F(GdsCli, SetUpNodeIsOkInTextAndJson) {
  gds_driver();
  write("/etc/cufile.json", "{\n  // ours\n  \"properties\": {\"allow_compat_mode\": false}\n}\n");
  auto text = run_gdrcheck({"gds", "--root", root_.string()});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("gdrcheck gds: gds01"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("cuFile configuration: /etc/cufile.json"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("OK: gds01:"), std::string::npos) << text.out;
  auto json = run_gdrcheck({"gds", "--root", root_.string(), "--json"});
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema"], "gdrcheck.gds/1");
  EXPECT_EQ(j["status"], "OK");
  EXPECT_EQ(j["cufile"], "/etc/cufile.json");
  ASSERT_GE(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["check"], "gds.driver");
}

TEST_F(GdsCli, ForcedCompatModeIsCritical) {
  gds_driver();
  write("/etc/cufile.json", R"({"properties": {"force_compat_mode": true}})");
  auto r = run_gdrcheck({"gds", "--root", root_.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("compat mode forced"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/etc/cufile.json:1"), std::string::npos) << r.out;
}

TEST_F(GdsCli, NothingInstalledIsAWarningAndAnUnknown) {
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out;  // WARNING (nvidia-fs not loaded) outranks UNKNOWN (no configuration)
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["cufile"].is_null());
  EXPECT_EQ(j["findings"][0]["status"], "WARNING");
  EXPECT_EQ(j["findings"][1]["status"], "UNKNOWN");
}

TEST_F(GdsCli, TheJobsConfigurationFirst) {
  gds_driver();
  write("/etc/cufile.json", R"({"properties": {"force_compat_mode": true}})");
  write("/opt/job/cufile.json", R"({"properties": {"force_compat_mode": false}})");
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--env", "CUFILE_ENV_PATH_JSON=/opt/job/cufile.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cuFile configuration: /opt/job/cufile.json"), std::string::npos) << r.out;
  EXPECT_EQ(run_gdrcheck({"gds", "--root", root_.string(), "--env", "NCCL_X=1"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"gds", "--root", "/nonexistent-gds-root"}).exit_code, 3);
}

TEST_F(GdsCli, WithoutAGpuThereIsNothingToCheck) {
  fs::remove_all(root_ / "sys/bus/pci/devices/0000:1b:00.0");
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["check"], "gds.gpu");
}

}  // namespace
}  // namespace gdrcheck

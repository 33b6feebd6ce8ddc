// The GPUDirect Storage driver route and cuFile configuration as a root
// shows them (platform-spec §5.1, §5.2): roots built here, file by file.
#include "host/gds_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

class GdsRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gdrcheck-gds-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "sys/module");
    fs::create_directories(dir_ / "proc/driver");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& inside, const std::string& text) {
    fs::path p = dir_ / inside.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  GdsState read(GdsReadOptions o = {}) { return read_gds_state(Root(dir_.string()), o); }
  fs::path dir_;
};

TEST_F(GdsRoot, LoadedDriverWithItsBackendsAndNoAcsBridges) {
  write("/sys/module/nvidia_fs/version", "2.28.4\n");
  write("/proc/driver/nvidia-fs/version", "version: 2.28\n");
  write("/proc/driver/nvidia-fs/modules", "nvme: 2.28.4\nnvme_rdma: 2.28.4\n\ngarbage line\n");
  write("/proc/driver/nvidia-fs/bridges", "");
  GdsState g = read();
  EXPECT_TRUE(g.nvidia_fs_loaded);
  EXPECT_EQ(g.module_version.value, "2.28.4");
  EXPECT_EQ(g.proc_version.value, "version: 2.28");
  ASSERT_TRUE(g.backends);
  ASSERT_EQ(g.backends->size(), 2u);
  EXPECT_EQ((*g.backends)[1].name, "nvme_rdma");
  EXPECT_EQ((*g.backends)[1].version, "2.28.4");
  ASSERT_TRUE(g.acs_bridges);
  EXPECT_TRUE(g.acs_bridges->empty());
}

TEST_F(GdsRoot, DriverNotLoadedAndItsFilesAbsent) {
  GdsState g = read();
  EXPECT_FALSE(g.nvidia_fs_loaded);
  EXPECT_FALSE(g.module_version.known());
  EXPECT_FALSE(g.backends);
  EXPECT_NE(g.backends_problem.find("/proc/driver/nvidia-fs/modules"), std::string::npos);
  EXPECT_FALSE(g.acs_bridges);
}

// A capture without /proc/driver says nothing about the driver's files.
TEST_F(GdsRoot, AreasTheCaptureLacksAreNamed) {
  fs::remove_all(dir_ / "proc/driver");
  GdsState g = read();
  EXPECT_NE(std::find(g.uncaptured.begin(), g.uncaptured.end(), "/proc/driver"), g.uncaptured.end());
}

// libcufile's search order: $CUFILE_ENV_PATH_JSON, /etc/cufile.json,
// /usr/local/cuda/gds/cufile.json; the first that exists is the one read.
TEST_F(GdsRoot, CufileSearchOrder) {
  write("/usr/local/cuda/gds/cufile.json", "{\"shipped\": true}");
  GdsState shipped = read();
  EXPECT_EQ(shipped.cufile_path, "/usr/local/cuda/gds/cufile.json");
  EXPECT_EQ(shipped.cufile_searched.front(), "/etc/cufile.json: not found");
  write("/etc/cufile.json", "{\"etc\": true}");
  EXPECT_EQ(read().cufile_path, "/etc/cufile.json");
  write("/opt/job/cufile.json", "{\"job\": true}");
  GdsReadOptions o;
  o.cufile_env_path = "/opt/job/cufile.json";
  GdsState job = read(o);
  EXPECT_EQ(job.cufile_path, "/opt/job/cufile.json");
  EXPECT_EQ(job.cufile_text, "{\"job\": true}");
  o.cufile_env_path = "/opt/job/missing.json";
  GdsState fallback = read(o);
  EXPECT_EQ(fallback.cufile_searched.front(), "CUFILE_ENV_PATH_JSON=/opt/job/missing.json: not found");
  EXPECT_EQ(fallback.cufile_path, "/etc/cufile.json");
}

TEST_F(GdsRoot, NvidiaGpusOnTheBus) {
  EXPECT_FALSE(read().nvidia_gpus);  // no /sys/bus/pci/devices: not known
  write("/sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
  write("/sys/bus/pci/devices/0000:1b:00.0/class", "0x030200\n");
  write("/sys/bus/pci/devices/0000:1b:00.1/vendor", "0x10de\n");  // its audio function
  write("/sys/bus/pci/devices/0000:1b:00.1/class", "0x040300\n");
  write("/sys/bus/pci/devices/0000:1a:00.0/vendor", "0x15b3\n");
  write("/sys/bus/pci/devices/0000:1a:00.0/class", "0x020700\n");
  EXPECT_EQ(read().nvidia_gpus, 1);
}

TEST_F(GdsRoot, NoCufileAnywhere) {
  GdsState g = read();
  EXPECT_FALSE(g.cufile_path);
  EXPECT_EQ(g.cufile_searched.size(), 2u);
}

// A link out of the root is not followed (reads stay inside it).
TEST_F(GdsRoot, CufileLinkedOutOfTheRootIsNotReadFromOutside) {
  fs::create_directories(dir_ / "etc");
  fs::create_symlink("/etc/passwd", dir_ / "etc/cufile.json");
  GdsState g = read();
  if (g.cufile_text) {
    EXPECT_EQ(g.cufile_text->find("root:"), std::string::npos);
  }
}

}  // namespace
}  // namespace gdrcheck

// "Absent because the thing is absent" against "absent because the root
// does not have that part": a recorded root without an area is UNKNOWN
// "not captured", never CRITICAL; on a root that has the area, absence is
// still evidence.
#include "host/capture_extent.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "node_checks.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::check;
using testing::find;
using testing::fresh_node_root;
using testing::node_root;

Status status_of(const NodeReport& r, const std::string& check, const std::string& subject) {
  const Finding* f = find(r, check, subject);
  EXPECT_NE(f, nullptr) << check << " " << subject;
  return f ? f->status : Status::Ok;
}

bool evidence_has(const Finding* f, const std::string& part) {
  if (!f) return false;
  for (const auto& e : f->evidence)
    if (e.find(part) != std::string::npos) return true;
  return false;
}

void remove_modules(const std::string& root, const std::string& prefix) {
  for (const auto& m : fs::directory_iterator(root + "/sys/module"))
    if (m.path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(m.path());
}

TEST(CaptureExtent, AreaOfAPath) {
  std::vector<std::string> missing{"/proc/driver", "/sys/module"};
  EXPECT_EQ(uncaptured_area(missing, "/proc/driver/nvidia/version"), "/proc/driver");
  EXPECT_EQ(uncaptured_area(missing, "/sys/module"), "/sys/module");
  EXPECT_EQ(uncaptured_area(missing, "/sys/modules/x"), std::nullopt);  // a prefix is not a parent
  EXPECT_EQ(uncaptured_area(missing, "/proc/cmdline"), std::nullopt);
  EXPECT_EQ(uncaptured_area({}, "/proc/driver/nvidia/version"), std::nullopt);
}

TEST(CaptureExtent, LiveMachineHasEveryArea) {
  EXPECT_TRUE(uncaptured_areas(Root("/")).empty());
}

TEST(CaptureExtent, RecordedRootListsWhatItLacks) {
  std::string root = fresh_node_root("dgx-h100");
  EXPECT_TRUE(uncaptured_areas(Root(root)).empty());
  fs::remove_all(root + "/proc/driver");
  fs::remove_all(root + "/sys/class/infiniband");
  EXPECT_EQ(uncaptured_areas(Root(root)), (std::vector<std::string>{"/proc/driver", "/sys/class/infiniband"}));
}

TEST(CaptureExtent, HealthyRootStaysOk) {
  auto c = check(node_root("dgx-h100"));
  EXPECT_EQ(c.report.status, Status::Ok);
  EXPECT_EQ(status_of(c.report, "driver", "nvidia"), Status::Ok);
}

TEST(CaptureExtent, RootWithoutProcDriverIsUnknownNotCritical) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove_all(root + "/proc/driver");
  auto c = check(root);
  const Finding* f = find(c.report, "driver", "nvidia");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown) << f->summary;
  EXPECT_NE(f->summary.find("not captured"), std::string::npos) << f->summary;
  EXPECT_TRUE(evidence_has(f, "/proc/driver: not captured"));
  EXPECT_EQ(f->fix.find("snapshot"), std::string::npos) << f->fix;
  EXPECT_NE(f->fix.find("copy /proc/driver/nvidia/version"), std::string::npos) << f->fix;
  for (const auto& x : c.report.findings) EXPECT_NE(x.status, Status::Critical) << x.check << " " << x.summary;
  EXPECT_EQ(c.report.status, Status::Unknown);
}

TEST(CaptureExtent, RootWithoutDriverAndModulesIsUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove_all(root + "/proc/driver");
  fs::remove_all(root + "/sys/module");
  fs::remove(root + "/proc/modules");
  auto c = check(root);
  EXPECT_EQ(status_of(c.report, "driver", "nvidia"), Status::Unknown);
  EXPECT_EQ(status_of(c.report, "driver", "rdma"), Status::Unknown);
  EXPECT_EQ(find(c.report, "driver", "rdma")->fix.find("snapshot"), std::string::npos);
  for (const auto& x : c.report.findings) EXPECT_NE(x.status, Status::Critical) << x.check << " " << x.summary;
}

// A root that has /proc/driver and /sys/module shows the driver is absent.
TEST(CaptureExtent, DriverReallyAbsentIsStillCritical) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove_all(root + "/proc/driver/nvidia");
  fs::create_directories(root + "/proc/driver");
  std::ofstream(root + "/proc/driver/rtc") << "rtc_time\t: 10:00:00\n";
  remove_modules(root, "nvidia");
  auto c = check(root);
  const Finding* f = find(c.report, "driver", "nvidia");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Critical);
  EXPECT_EQ(f->summary, "NVIDIA driver not loaded");
  EXPECT_TRUE(evidence_has(f, "/sys/module/nvidia: absent"));
}

TEST(CaptureExtent, NicWithoutCapturedInfinibandIsUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove_all(root + "/sys/class/infiniband");
  auto c = check(root);
  const Finding* f = find(c.report, "nic", "0000:18:00.0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown) << f->summary;
  EXPECT_NE(f->summary.find("not captured"), std::string::npos);
  // One device missing from a captured class is still evidence.
  std::string one = fresh_node_root("dgx-h100");
  fs::remove(one + "/sys/class/infiniband/mlx5_0");
  EXPECT_EQ(status_of(check(one).report, "nic", "0000:18:00.0"), Status::Critical);
}

TEST(CaptureExtent, PeerMemoryWithoutModulesIsUnknown) {
  // No peer-memory module and a proprietary driver: CRITICAL when /sys/module
  // shows it, UNKNOWN when the root has no /sys/module.
  EXPECT_EQ(status_of(check(node_root("dgx-h100", {"peermem-missing"})).report, "peermem", "host"), Status::Critical);
  std::string root = fresh_node_root("dgx-h100", {"peermem-missing"});
  fs::remove_all(root + "/sys/module");
  const Finding* f = nullptr;
  auto c = check(root);
  f = find(c.report, "peermem", "host");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown) << f->summary;
  EXPECT_TRUE(evidence_has(f, "/sys/module: not captured"));
}

TEST(CaptureExtent, IommuWithoutCapturedUnitsIsUnknownUnlessTheCmdlineDecides) {
  std::string root = fresh_node_root("vm-flattened");
  EXPECT_EQ(status_of(check(root).report, "iommu", "host"), Status::Ok);
  fs::remove_all(root + "/sys/class/iommu");
  EXPECT_EQ(status_of(check(root).report, "iommu", "host"), Status::Unknown);
  std::ofstream(root + "/proc/cmdline") << "BOOT_IMAGE=/vmlinuz ro iommu=pt\n";
  EXPECT_EQ(status_of(check(root).report, "iommu", "host"), Status::Ok);
}

// The NVIDIA driver loaded and no GPU on the bus: GPUs that fell off it.
TEST(CaptureExtent, GpusFallenOffTheBusAreCritical) {
  std::string root = fresh_node_root("dgx-h100");
  auto before = check(root);
  for (const Endpoint* g : before.report.topology.with_role(DeviceRole::Gpu)) {
    std::string link = root + "/sys/bus/pci/devices/" + g->address->str();
    fs::remove_all(fs::canonical(link));
    fs::remove(link);
  }
  auto c = check(root);
  ASSERT_TRUE(c.report.topology.with_role(DeviceRole::Gpu).empty());
  const Finding* f = find(c.report, "gpu", "host");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Critical);
  EXPECT_NE(f->summary.find("fell off the bus"), std::string::npos);
  EXPECT_NE(f->fix.find("Xid 79"), std::string::npos);
  EXPECT_EQ(c.report.status, Status::Critical);
  // Without the driver it is a machine without GPUs: UNKNOWN.
  fs::remove_all(root + "/proc/driver/nvidia");
  remove_modules(root, "nvidia");
  EXPECT_EQ(status_of(check(root).report, "gpu", "host"), Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

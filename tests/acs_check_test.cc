// The acs check on built DGX H100-like roots: bridges between each GPU and
// its NIC judged from `config`, and a GPU or NIC whose PCIe path is not
// proven (a bridge's config gone, so hwloc left the bridge out) UNKNOWN
// rather than vouched for by the bridges that could be read.
#include <gtest/gtest.h>

#include <filesystem>

#include "node_checks.h"
#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::check;
using testing::contains;
using testing::find;
using testing::fresh_node_root;
using testing::node_root;
using testing::pair;

constexpr const char* kUnproven = "not every bridge between it and the root port could be read: ";

std::vector<const Finding*> acs_findings(const NodeReport& r) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.check == "acs") out.push_back(&f);
  return out;
}

// Removes the file a device's `config` link leads to; returns the device's
// sysfs name as the findings quote it.
std::string remove_config(const std::string& root, const std::string& bdf) {
  fs::remove(fs::canonical(root + "/sys/bus/pci/devices/" + bdf) / "config");
  return "/sys/bus/pci/devices/" + bdf + "/config";
}

// The bridge above GPU0's switch port: without it hwloc hangs GPU0 higher.
std::string gpu0_upper_bridge(const std::string& root) {
  Topology t = read_sysfs_topology(Root(root));
  std::vector<int> chain = t.bridge_chain(t.find("GPU0")->node);
  return t.nodes[chain[chain.size() - 2]].address->str();
}

TEST(AcsCheck, ProvenPathsGetNoDeviceFinding) {
  auto c = check(node_root("dgx-h100"));
  auto acs = acs_findings(c.report);
  ASSERT_FALSE(acs.empty());
  for (const Finding* f : acs) {
    EXPECT_EQ(f->status, Status::Ok) << f->subject << ": " << f->summary;
    EXPECT_FALSE(contains(f->summary, kUnproven)) << f->summary;
  }
  EXPECT_EQ(find(c.report, "acs", "GPU0"), nullptr);
}

TEST(AcsCheck, LostBridgeMakesItsGpuUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  std::string bridge = gpu0_upper_bridge(root);
  std::string file = remove_config(root, bridge);
  auto c = check(root);
  const Finding* f = find(c.report, "acs", "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown);
  EXPECT_TRUE(contains(f->summary, kUnproven)) << f->summary;
  EXPECT_TRUE(contains(f->summary, file + ": not found")) << f->summary;
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_TRUE(contains(f->evidence.front(), file)) << f->evidence.front();
  EXPECT_TRUE(contains(f->fix, "/sys/bus/pci/devices/*/config")) << f->fix;
  // The bridge hwloc lost is judged by nobody: it must not pass as OK.
  EXPECT_EQ(find(c.report, "acs", bridge), nullptr);
  // Only GPU0 is in doubt; the bridges that were read keep their verdicts.
  for (const Finding* a : acs_findings(c.report)) {
    if (a == f) continue;
    EXPECT_EQ(a->status, Status::Ok) << a->subject << ": " << a->summary;
  }
  EXPECT_EQ(pair(c.report, "GPU0").status, Status::Unknown);
  EXPECT_EQ(pair(c.report, "GPU1").status, Status::Ok) << pair(c.report, "GPU1").reason;
}

// A NIC whose own config cannot be read is named by its RDMA device, so the
// pairs that use it see the finding.
TEST(AcsCheck, UnreadableNicConfigMakesTheNicUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  Topology t = read_sysfs_topology(Root(root));
  const Endpoint* nic = t.find("NIC0");
  ASSERT_NE(nic, nullptr);
  std::string file = remove_config(root, nic->address->str());
  auto c = check(root);
  const Finding* f = find(c.report, "acs", nic->name);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown);
  EXPECT_TRUE(contains(f->summary, kUnproven)) << f->summary;
  EXPECT_TRUE(contains(f->summary, "the device itself")) << f->summary;
}

// A redirect on a bridge that was read is still CRITICAL next to the
// UNKNOWN for the part that was not.
TEST(AcsCheck, RedirectStaysCriticalBesideALostBridge) {
  std::string root = fresh_node_root("dgx-h100", {"acs-redirect"});
  remove_config(root, gpu0_upper_bridge(root));
  auto c = check(root);
  const Finding* redirect = find(c.report, "acs", "0000:1a:00.0");
  ASSERT_NE(redirect, nullptr);
  EXPECT_EQ(redirect->status, Status::Critical) << redirect->summary;
  const Finding* gpu0 = find(c.report, "acs", "GPU0");
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu0->status, Status::Unknown);
  EXPECT_EQ(c.report.status, Status::Critical);
}

// Without root every bridge hides ACS alike: one merged finding, and the
// lost bridge's device is still named on its own.
TEST(AcsCheck, RootlessCaptureKeepsTheMergedFindingAndTheLostBridge) {
  std::string root = fresh_node_root("dgx-h100", {"rootless"});
  remove_config(root, gpu0_upper_bridge(root));
  auto c = check(root);
  const Finding* host = find(c.report, "acs", "host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->status, Status::Unknown);
  const Finding* gpu0 = find(c.report, "acs", "GPU0");
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu0->status, Status::Unknown);
  for (const Finding* f : acs_findings(c.report)) EXPECT_NE(f->status, Status::Ok) << f->subject;
}

}  // namespace
}  // namespace gdrcheck

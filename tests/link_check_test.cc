// The link check on built DGX H100-like roots, for a GPU whose PCIe path is
// not proven: hwloc left a bridge out, so its switch uplink is judged by
// nobody and the device's links above it are UNKNOWN, never quietly OK.
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
using testing::fresh_node_root;
using testing::node_root;

constexpr const char* kBridgesUnread = "not every bridge between it and the root port could be read: ";

std::vector<const Finding*> link_findings(const NodeReport& r, const std::string& subject) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.check == "link" && f.subject == subject) out.push_back(&f);
  return out;
}

const Finding* unproven_finding(const NodeReport& r, const std::string& subject) {
  for (const Finding* f : link_findings(r, subject))
    if (contains(f->summary, kBridgesUnread)) return f;
  return nullptr;
}

// Removes the config of the bridge above GPU0's switch port; returns its
// address.
std::string drop_gpu0_bridge(const std::string& root) {
  Topology t = read_sysfs_topology(Root(root));
  std::vector<int> chain = t.bridge_chain(t.find("GPU0")->node);
  std::string bridge = t.nodes[chain[chain.size() - 2]].address->str();
  fs::remove(fs::canonical(root + "/sys/bus/pci/devices/" + bridge) / "config");
  return bridge;
}

TEST(LinkCheck, ProvenPathsGetNoUnprovenFinding) {
  auto c = check(node_root("dgx-h100"));
  for (const auto& f : c.report.findings) {
    if (f.check != "link") continue;
    EXPECT_FALSE(contains(f.summary, kBridgesUnread)) << f.subject << ": " << f.summary;
  }
  EXPECT_EQ(unproven_finding(c.report, "GPU0"), nullptr);
}

TEST(LinkCheck, LostBridgeMakesTheLinksAboveTheGpuUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  std::string bridge = drop_gpu0_bridge(root);
  auto c = check(root);
  const Finding* f = unproven_finding(c.report, "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown);
  EXPECT_TRUE(contains(f->summary, "/sys/bus/pci/devices/" + bridge + "/config: not found")) << f->summary;
  EXPECT_TRUE(contains(f->fix, "/sys/bus/pci/devices/*/config")) << f->fix;
  // GPU0's own link was read and keeps its verdict beside it.
  auto all = link_findings(c.report, "GPU0");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all.front()->status, Status::Ok) << all.front()->summary;
  EXPECT_EQ(unproven_finding(c.report, "GPU1"), nullptr);
}

// A degraded link elsewhere stays CRITICAL; the lost bridge adds an UNKNOWN.
TEST(LinkCheck, DegradedLinkStaysCriticalBesideALostBridge) {
  std::string root = fresh_node_root("dgx-h100", {"gpu-x8"});
  drop_gpu0_bridge(root);
  auto c = check(root);
  auto gpu2 = link_findings(c.report, "GPU2");
  ASSERT_FALSE(gpu2.empty());
  EXPECT_EQ(gpu2.front()->status, Status::Critical) << gpu2.front()->summary;
  const Finding* f = unproven_finding(c.report, "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

// Whether each device's PCIe path is proven by the sysfs files it was read
// from: a built DGX H100-like root, then the same root with one file of the
// GPU0 chain removed, replaced, planted or cut short.
#include "topology/path_evidence.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"
#include "text_checks.h"
#include "topology/hwloc_source.h"
#include "topology/nccl_view.h"
#include "topology/path_class.h"
#include "topology/path_matrix.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::fresh_node_root;
using testing::node_root;

Topology read_marked(const std::string& root) {
  Topology t = read_sysfs_topology(Root(root));
  mark_unproven_paths(t, Root(root));
  return t;
}

// Addresses of the bridges above an endpoint, root port first, as read from
// the intact root.
std::vector<std::string> chain_of(const Topology& t, const std::string& id) {
  std::vector<std::string> out;
  for (int b : t.bridge_chain(t.find(id)->node)) out.push_back(t.nodes[b].address->str());
  return out;
}

std::string device_file(const std::string& root, const std::string& bdf, const std::string& name) {
  return root + "/sys/bus/pci/devices/" + bdf + "/" + name;
}

// A root whose GPU0 chain is altered by `change(root, gpu0 bdf, its bridges)`.
template <typename Change>
Topology altered(Change change) {
  std::string root = fresh_node_root("dgx-h100");
  Topology before = read_sysfs_topology(Root(root));
  change(root, before.find("GPU0")->address->str(), chain_of(before, "GPU0"));
  return read_marked(root);
}

void expect_only_gpu0_unproven(const Topology& t) {
  EXPECT_FALSE(t.find("GPU0")->path_unproven.empty());
  for (const auto& e : t.endpoints) {
    if (e.id == "GPU0") continue;
    EXPECT_EQ(e.path_unproven, "") << e.id;
  }
}

TEST(PathEvidence, FullChainsAreProven) {
  Topology t = read_marked(node_root("dgx-h100"));
  ASSERT_FALSE(t.endpoints.empty());
  for (const auto& e : t.endpoints) EXPECT_EQ(e.path_unproven, "") << e.id;
  EXPECT_EQ(smi_class(t, *t.find("GPU0"), *t.find("NIC0")).code(), "PXB");
}

TEST(PathEvidence, MissingBridgeConfigIsNamed) {
  std::string bridge;
  Topology t = altered([&](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    bridge = chain[chain.size() - 2];  // the switch port above the GPU's own slot
    fs::remove(device_file(root, bridge, "config"));
  });
  expect_only_gpu0_unproven(t);
  const std::string& why = t.find("GPU0")->path_unproven;
  EXPECT_TRUE(contains(why, "/sys/bus/pci/devices/" + bridge + "/config: not found")) << why;
  EXPECT_TRUE(contains(why, "GPU0")) << why;
  // Every class involving GPU0 is unknown with that reason; NIC pairs of
  // proven devices keep theirs.
  SmiClass smi = smi_class(t, *t.find("GPU0"), *t.find("NIC0"));
  EXPECT_EQ(smi.code(), "?");
  EXPECT_EQ(smi.why, why);
  EXPECT_EQ(smi_class(t, *t.find("GPU1"), *t.find("NIC3")).code(), "PXB");
  Topology v = nccl_view(t);
  NcclClass nc = nccl_class(v, *v.find("GPU0"), *v.find("NIC0"));
  EXPECT_EQ(nc.path, NcclPath::Unknown);
  EXPECT_EQ(nc.why, why);
  EXPECT_EQ(nccl_class(v, *v.find("GPU1"), *v.find("NIC3")).path, NcclPath::PIX);
}

TEST(PathEvidence, RootPortConfigMissingToo) {
  Topology t = altered([](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    fs::remove(device_file(root, chain.front(), "config"));
  });
  // Every device below that root port loses its proof, the others keep it.
  EXPECT_FALSE(t.find("GPU0")->path_unproven.empty());
  EXPECT_FALSE(t.find("NIC0")->path_unproven.empty());
  EXPECT_EQ(t.find("GPU1")->path_unproven, "");
  EXPECT_EQ(t.find("NIC3")->path_unproven, "");
}

TEST(PathEvidence, ConfigReplacedByADirectory) {
  Topology t = altered([](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    std::string config = device_file(root, chain.back(), "config");
    fs::remove(config);
    fs::create_directory(config);
  });
  expect_only_gpu0_unproven(t);
  EXPECT_TRUE(contains(t.find("GPU0")->path_unproven, "not a regular file")) << t.find("GPU0")->path_unproven;
}

TEST(PathEvidence, ConfigAsADanglingLink) {
  Topology t = altered([](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    std::string config = device_file(root, chain.back(), "config");
    fs::remove(config);
    fs::create_symlink("../../../nowhere/config", config);
  });
  expect_only_gpu0_unproven(t);
  EXPECT_TRUE(contains(t.find("GPU0")->path_unproven, "config: not found")) << t.find("GPU0")->path_unproven;
}

TEST(PathEvidence, ShortBridgeConfigCannotHoldBusNumbers) {
  Topology t = altered([](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    std::ofstream(device_file(root, chain.back(), "config"), std::ios::trunc) << "0123456789";
  });
  expect_only_gpu0_unproven(t);
  EXPECT_TRUE(contains(t.find("GPU0")->path_unproven, "10 bytes")) << t.find("GPU0")->path_unproven;
}

TEST(PathEvidence, DevicesOwnConfigMissing) {
  Topology t = altered([](const std::string& root, const std::string& gpu, const std::vector<std::string>&) {
    fs::remove(device_file(root, gpu, "config"));
  });
  expect_only_gpu0_unproven(t);
  EXPECT_TRUE(contains(t.find("GPU0")->path_unproven, "the device itself")) << t.find("GPU0")->path_unproven;
}

// The device link changes between hwloc's read and ours (a flaky or busy
// host): gone, a loop, or pointing at a planted name.
TEST(PathEvidence, DeviceLinkThatNoLongerLeadsToTheDevice) {
  std::string root = fresh_node_root("dgx-h100");
  Topology t = read_sysfs_topology(Root(root));
  std::string gpu = t.find("GPU0")->address->str();
  std::string gpu1 = t.find("GPU1")->address->str();
  std::string nic = t.find("NIC0")->address->str();
  std::string link = root + "/sys/bus/pci/devices/";
  fs::remove(link + gpu);
  fs::remove(link + gpu1);
  fs::create_symlink(gpu1, link + gpu1);  // a link to itself
  fs::remove(link + nic);
  fs::create_symlink("../../../devices/\x1b[31mplanted", link + nic);
  mark_unproven_paths(t, Root(root));
  EXPECT_TRUE(contains(t.find("GPU0")->path_unproven, "does not lead to the device's directory"));
  EXPECT_TRUE(contains(t.find("GPU1")->path_unproven, "symbolic link loop")) << t.find("GPU1")->path_unproven;
  const std::string& planted = t.find("NIC0")->path_unproven;
  EXPECT_TRUE(contains(planted, "does not lead")) << planted;
  EXPECT_EQ(planted.find('\x1b'), std::string::npos) << planted;
  EXPECT_EQ(t.find("GPU2")->path_unproven, "");
}

// hwloc's tree lost a bridge although every file reads: the chains differ.
TEST(PathEvidence, BridgeMissingFromTheTreeIsFound) {
  Topology t = read_sysfs_topology(Root(node_root("dgx-h100")));
  Endpoint& gpu = *std::find_if(t.endpoints.begin(), t.endpoints.end(), [](auto& e) { return e.id == "GPU0"; });
  int parent = t.nodes[gpu.node].parent;
  int grandparent = t.nodes[parent].parent;
  std::string lost = t.nodes[parent].address->str();
  t.nodes[gpu.node].parent = grandparent;  // what hwloc does with a bridge it cannot read
  mark_unproven_paths(t, Root(node_root("dgx-h100")));
  EXPECT_TRUE(contains(gpu.path_unproven, "bridge " + lost + " on its sysfs path")) << gpu.path_unproven;
  EXPECT_TRUE(contains(gpu.path_unproven, "missing from hwloc's tree")) << gpu.path_unproven;
  EXPECT_EQ(t.find("GPU1")->path_unproven, "");
}

TEST(PathEvidence, ClosestNicOfAnUnprovenGpuIsUndecided) {
  Topology t = altered([](const std::string& root, const std::string&, const std::vector<std::string>& chain) {
    fs::remove(device_file(root, chain.back(), "config"));
  });
  TopologyPaths p = compute_paths(t);
  EXPECT_EQ(p.smi_at("GPU0", "NIC0").code, "?");
  EXPECT_EQ(p.smi_at("GPU0", "NIC0").why, t.find("GPU0")->path_unproven);
  EXPECT_EQ(p.nccl_at("GPU0", "NIC0").code, "?");
  for (const auto& c : p.closest) {
    std::size_t expected = c.gpu == "GPU0" ? 0u : 1u;
    EXPECT_EQ(c.nics.size(), expected) << c.gpu;
  }
}

TEST(PathEvidence, OtherSourcesAreLeftAlone) {
  Topology t = read_sysfs_topology(Root(node_root("dgx-h100")));
  t.kind = SourceKind::HwlocXml;
  mark_unproven_paths(t, Root("/nonexistent-root"));
  for (const auto& e : t.endpoints) EXPECT_EQ(e.path_unproven, "") << e.id;
}

TEST(PathEvidence, PairReasonJoinsBothEnds) {
  Endpoint a, b;
  EXPECT_EQ(unproven_path_between(a, b), "");
  a.path_unproven = "A";
  EXPECT_EQ(unproven_path_between(a, b), "A");
  EXPECT_EQ(unproven_path_between(b, a), "A");
  b.path_unproven = "A";
  EXPECT_EQ(unproven_path_between(a, b), "A");
  b.path_unproven = "B";
  EXPECT_EQ(unproven_path_between(a, b), "A; B");
}

}  // namespace
}  // namespace gdrcheck

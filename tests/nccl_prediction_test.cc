// NCCL's decision per GPU on built roots, one scenario per rule that
// changed between releases or that a host's state decides. Each cites the
// NCCL source it follows (docs/nccl-model.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "node_checks.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::check;
using testing::find;
using testing::has_rule;
using testing::node_root;
using testing::pair;
using testing::prediction;

NodeOptions for_nccl(const char* version) {
  NodeOptions o;
  o.nccl_version = *NcclVersion::parse(version);
  return o;
}

HostReadOptions env_options(std::vector<std::pair<std::string, std::string>> values) {
  HostReadOptions o;
  for (auto& [n, v] : values) o.environment.push_back({n, v, "--env"});
  return o;
}

std::string rules(const GdrPrediction& p) {
  std::string out;
  for (const auto& r : p.rules) out += "\n  " + r;
  return out;
}

// ---- the devices NCCL's IB transport enumerates (ncclIbInitDevices) ----------------------

TEST(NcclPrediction, EveryPortDownFallsBackToSockets) {
  auto c = check(node_root("dgx-h100", {"ports-all-down"}));
  for (const auto& p : c.report.pairs) {
    EXPECT_EQ(p.gdr_send, GdrUse::No) << p.gpu;
    EXPECT_EQ(p.status, Status::Critical) << p.gpu;
  }
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_TRUE(g0.nics.empty());
  EXPECT_TRUE(has_rule(g0, "NCCL falls back to sockets")) << rules(g0);
  EXPECT_TRUE(has_rule(g0, "DOWN: NCCL skips ports that are not ACTIVE")) << rules(g0);
}

TEST(NcclPrediction, NoUverbsMeansNcclSeesNoDevice) {
  auto c = check(node_root("dgx-h100", {"no-uverbs"}));
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_EQ(g0.recv, Tri::No);
  EXPECT_TRUE(has_rule(g0, "no uverbs device (ib_uverbs not loaded)")) << rules(g0);
  EXPECT_NE(pair(c.report, "GPU0").reason.find("falls back to sockets"), std::string::npos);
}

// GPU0's own NIC is gone; its NVLink peers' NICs are reached through PXN
// (src/graph/paths.cc:ncclTopoComputePaths@v2.30.7-1; ranked GPU→NIC from 2.18.5).
TEST(NcclPrediction, MissingOwnNicUsesAPeersNicThroughPxn) {
  auto c = check(node_root("dgx-h100", {"nic-removed"}));
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_EQ(g0.path, NcclPath::PXN);
  EXPECT_EQ(g0.pxn_peer, "GPU1") << rules(g0);
  EXPECT_EQ(g0.send, Tri::Yes);
  EXPECT_EQ(g0.recv, Tri::Yes);
  // Before 2.12 there is no PXN: the GPU's own best path (through the CPU).
  auto old = check(node_root("dgx-h100", {"nic-removed"}), {}, for_nccl("2.11.4"));
  EXPECT_NE(prediction(old.report, "GPU0").path, NcclPath::PXN);
  EXPECT_EQ(prediction(old.report, "GPU0").recv, Tri::No);
}

TEST(NcclPrediction, PxnOffBySettingStagesThroughTheCpu) {
  auto c = check(node_root("dgx-h100", {"port-down"}), env_options({{"NCCL_PXN_DISABLE", "1"}}));
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_TRUE(g0.pxn_peer.empty());
  EXPECT_EQ(g0.recv, Tri::No) << rules(g0);
  EXPECT_TRUE(has_rule(g0, "mlx5_0 port 1 DOWN")) << rules(g0);
}

// ---- NVLink: NVSwitch functions in the root (sysfs shows no NVLink) --------------------

// Up to 2.18 the NIC reads GPU memory only with an NVLink peer
// (src/graph/paths.cc:ncclTopoCheckGdr@v2.18.6-1); the DGX root has NVSwitches.
TEST(NcclPrediction, NvswitchHostSendsWithNccl218) {
  auto c = check(node_root("dgx-h100", {"nccl-2.18"}));
  EXPECT_EQ(c.report.nccl.found.str(), "2.18.6");
  EXPECT_NE(c.report.nccl.origin.find("libnccl.so.2.18.6"), std::string::npos) << c.report.nccl.origin;
  for (const auto& p : c.report.predictions) {
    EXPECT_EQ(p.send, Tri::Yes) << p.gpu << rules(p);
    EXPECT_TRUE(has_rule(p, "send side allowed")) << rules(p);
  }
}

// ---- the installed NCCL ----------------------------------------------------------------

TEST(NcclPrediction, InstalledLibraryDecidesAndAWheelIsPredictedToo) {
  auto c = check(node_root("dgx-h100", {"nccl-2.21-and-wheel-2.23"}));
  EXPECT_EQ(c.report.nccl.found.str(), "2.21.5");
  ASSERT_EQ(c.report.nccl_alternatives.size(), 1u);
  EXPECT_EQ(c.report.nccl_alternatives[0].nccl.found.str(), "2.23.4");
  EXPECT_EQ(c.report.nccl_alternatives[0].predictions.size(), 8u);
}

TEST(NcclPrediction, ExplicitVersionWinsOverTheInstalledOne) {
  auto c = check(node_root("dgx-h100", {"nccl-2.18"}), {}, for_nccl("2.30.7"));
  EXPECT_EQ(c.report.nccl.found.str(), "2.30.7");
  EXPECT_EQ(c.report.nccl.origin, "--nccl-version");
  ASSERT_EQ(c.report.nccl_alternatives.size(), 1u);
}

TEST(NcclPrediction, OlderWheelThatWouldStageIsAWarning) {
  // peermem-new-stack without DMA-BUF: 2.30.7 uses GDR, a 2.22 wheel would not.
  auto c = check(node_root("dgx-h100", {"peermem-new-stack"}), env_options({{"NCCL_DMABUF_ENABLE", "0"}}),
                 for_nccl("2.30.7"));
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::Yes);
  auto old = check(node_root("dgx-h100", {"peermem-new-stack"}), env_options({{"NCCL_DMABUF_ENABLE", "0"}}),
                   for_nccl("2.22.3"));
  EXPECT_EQ(pair(old.report, "GPU0").gdr_recv, GdrUse::No);
}

// ---- topology files (src/graph/topo.cc:ncclTopoGetSystem) ------------------------------

TEST(NcclPrediction, AzureVmPredictsFromItsTopologyFile) {
  auto c = check(node_root("azure-ndv4-vm"));
  EXPECT_EQ(c.report.nccl_topology, "/opt/microsoft/ndv4-topo.xml");
  for (const auto& p : c.report.pairs) {
    EXPECT_EQ(p.gdr_send, GdrUse::Yes) << p.gpu;
    EXPECT_EQ(p.nccl_path, "PIX") << p.gpu;
  }
  const Finding* f = find(c.report, "nccl", "NCCL_TOPO_FILE");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Ok);
  EXPECT_EQ(find(c.report, "path", "topology"), nullptr);  // the flattened tree does not matter here
}

TEST(NcclPrediction, AzureVmWithoutItsTopologyFileIsTheFlattenedTree) {
  auto c = check(node_root("azure-ndv4-vm", {"topo-file-missing"}));
  EXPECT_EQ(c.report.nccl_topology, "sysfs");
  EXPECT_EQ(find(c.report, "nccl", "NCCL_TOPO_FILE")->status, Status::Warning);
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::No);
  ASSERT_NE(find(c.report, "path", "topology"), nullptr);
}

// The default virtual topology is read from 2.10.3 only.
TEST(NcclPrediction, VirtualTopologyFileFrom2103) {
  auto c = check(node_root("azure-ndv4-vm", {"virtual-topology"}));
  EXPECT_EQ(c.report.nccl_topology, "/var/run/nvidia-topologyd/virtualTopology.xml");
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::Yes);
  auto old = check(node_root("azure-ndv4-vm", {"virtual-topology"}), {}, for_nccl("2.9.9"));
  EXPECT_EQ(old.report.nccl_topology, "sysfs");
}

// ---- Grace C2C, GeForce ------------------------------------------------------------------

// P2C from 2.27.3 with NCCL_NET_GDR_C2C on by default; 2.19-2.25 see PHB.
TEST(NcclPrediction, GraceC2cPerRelease) {
  auto now = check(node_root("gh200"));
  EXPECT_EQ(prediction(now.report, "GPU0").path, NcclPath::P2C);
  EXPECT_EQ(prediction(now.report, "GPU0").recv, Tri::Yes) << rules(prediction(now.report, "GPU0"));
  auto old = check(node_root("gh200"), {}, for_nccl("2.25.1"));
  EXPECT_EQ(prediction(old.report, "GPU0").recv, Tri::No);
  auto off = check(node_root("gh200"), {}, for_nccl("2.26.6"));  // NCCL_NET_GDR_C2C default 0 in 2.26
  EXPECT_EQ(prediction(off.report, "GPU0").recv, Tri::No);
}

TEST(NcclPrediction, GeforceHasNoGdrAndItIsAWarningNotADrain) {
  auto c = check(node_root("pcie-geforce"));
  for (const auto& p : c.report.pairs) {
    EXPECT_EQ(p.gdr_recv, GdrUse::No) << p.gpu;
    EXPECT_EQ(p.status, Status::Warning) << p.gpu << ": " << p.reason;
  }
  EXPECT_EQ(find(c.report, "gpu", "GPU0")->status, Status::Warning);
  EXPECT_TRUE(has_rule(prediction(c.report, "GPU0"), "cudaDevAttrGPUDirectRDMASupported = 0"));
}

// ---- fused dual-port adapters (2.20.3+) ------------------------------------------------

TEST(NcclPrediction, DualPortAdapterIsOneDeviceFrom2203) {
  auto now = check(node_root("roce-node", {"dual-port"}));
  EXPECT_EQ(prediction(now.report, "GPU0").net_name, "mlx5_0+mlx5_1");
  auto old = check(node_root("roce-node", {"dual-port"}), {}, for_nccl("2.19.4"));
  EXPECT_EQ(prediction(old.report, "GPU0").nics.size(), 2u);
}

// ---- net plugins and EFA -------------------------------------------------------------------

TEST(NcclPrediction, EfaWithoutAPluginIsInvisibleToNcclsIbTransport) {
  auto c = check(node_root("aws-p5"));
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_EQ(g0.recv, Tri::No);
  EXPECT_TRUE(has_rule(g0, "only InfiniBand and Ethernet")) << rules(g0);
}

TEST(NcclPrediction, AwsOfiPluginIsNamedAndUnknown) {
  auto c = check(node_root("aws-p5", {"ofi-plugin"}));
  const GdrPrediction& g0 = prediction(c.report, "GPU0");
  EXPECT_EQ(g0.recv, Tri::Unknown);
  EXPECT_TRUE(has_rule(g0, "net plugin aws-ofi-nccl")) << rules(g0);
  EXPECT_EQ(pair(c.report, "GPU0").status, Status::Unknown);
  // NCCL_NET=IB skips the plugin by name: the IB transport (no EFA port) decides.
  auto ib = check(node_root("aws-p5", {"ofi-plugin"}), env_options({{"NCCL_NET", "IB"}}));
  EXPECT_EQ(prediction(ib.report, "GPU0").recv, Tri::No);
}

// ---- settings a release reads differently ------------------------------------------------

// A CRLF nccl.conf: the CR stays in string values before 2.30.3
// (src/misc/param.cc:setEnvFile@v2.29.7-1).
TEST(NcclPrediction, CrlfConfKeepsTheCrBefore2303) {
  std::string root = testing::fresh_node_root("dgx-h100");
  std::ofstream(root + "/etc/nccl.conf") << "NCCL_NET_GDR_LEVEL=LOC\r\n";
  auto now = check(root, {}, for_nccl("2.30.7"));
  EXPECT_EQ(prediction(now.report, "GPU0").recv, Tri::No);  // LOC applies
  auto old = check(root, {}, for_nccl("2.29.7"));
  EXPECT_EQ(prediction(old.report, "GPU0").recv, Tri::Yes);  // "LOC\r" is no level
  EXPECT_TRUE(has_rule(prediction(old.report, "GPU0"), "LOC\\r")) << rules(prediction(old.report, "GPU0"));
}

// ---- a PCIe path the files do not prove ------------------------------------------------

// Removes the config of the bridge above GPU0's switch port; hwloc then
// leaves that bridge out of the tree. Returns the bridge's address.
std::string break_gpu0_bridge(const std::string& root) {
  Topology t = read_sysfs_topology(Root(root));
  std::vector<int> chain = t.bridge_chain(t.find("GPU0")->node);
  std::string bridge = t.nodes[chain[chain.size() - 2]].address->str();
  std::filesystem::remove(std::filesystem::canonical(root + "/sys/bus/pci/devices/" + bridge) / "config");
  return bridge;
}

TEST(NcclPrediction, ProvenPathNamesNoPathCause) {
  auto c = check(node_root("dgx-h100"));
  const Finding* f = find(c.report, "nccl", "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Ok) << f->summary;
  EXPECT_EQ(f->summary.find("not proven"), std::string::npos) << f->summary;
}

// The cause is the missing evidence, not the distance: the fix must not
// send anyone to move cards under one switch. With PXN on and off.
TEST(NcclPrediction, UnprovenPathIsTheCauseNotTheDistance) {
  std::string root = testing::fresh_node_root("dgx-h100");
  std::string bridge = break_gpu0_bridge(root);
  for (const char* pxn_disable : {"0", "1"}) {
    auto c = check(root, env_options({{"NCCL_PXN_DISABLE", pxn_disable}}));
    const Finding* f = find(c.report, "nccl", "GPU0");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->status, Status::Unknown) << pxn_disable << ": " << f->summary;
    EXPECT_NE(f->summary.find("a PCIe path is not proven by the files read (PCIe path of GPU0"), std::string::npos)
        << f->summary;
    EXPECT_NE(f->summary.find("/sys/bus/pci/devices/" + bridge + "/config: not found"), std::string::npos)
        << f->summary;
    EXPECT_EQ(f->summary.find("too far"), std::string::npos) << f->summary;
    EXPECT_EQ(f->summary.find("NVLink"), std::string::npos) << f->summary;
    EXPECT_NE(f->fix.find("/sys/bus/pci/devices/*/config"), std::string::npos) << f->fix;
    EXPECT_NE(f->fix.find("`lspci -tv`"), std::string::npos) << f->fix;
    EXPECT_EQ(f->fix.find("PCIe switch"), std::string::npos) << f->fix;
    const GdrPrediction& g0 = prediction(c.report, "GPU0");
    ASSERT_FALSE(g0.causes.empty());
    EXPECT_EQ(g0.causes.front(), GdrCause::PathUnknown);
    EXPECT_EQ(find(c.report, "nccl", "GPU1")->status, Status::Ok);
  }
}

// NCCL_NET_GDR_LEVEL=LOC turns GDR off whatever the path: that is still
// said, with its own fix.
TEST(NcclPrediction, LocLevelStillDecidesOnAnUnprovenPath) {
  std::string root = testing::fresh_node_root("dgx-h100");
  break_gpu0_bridge(root);
  auto c = check(root, env_options({{"NCCL_NET_GDR_LEVEL", "LOC"}}));
  const Finding* f = find(c.report, "nccl", "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Critical) << f->summary;
  EXPECT_NE(f->summary.find("NCCL_NET_GDR_LEVEL rules it out"), std::string::npos) << f->summary;
  EXPECT_NE(f->fix.find("remove NCCL_NET_GDR_LEVEL"), std::string::npos) << f->fix;
}

}  // namespace
}  // namespace gdrcheck

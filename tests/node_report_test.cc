// The node checks on built roots (tests/data/nodes) and their failure
// variants, and with evidence removed: for every check a good case, a bad
// case and a case where its evidence is missing (UNKNOWN, never OK).
#include "checks/node_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checks/manifest.h"
#include "node_checks.h"
#include "recorded_fixtures.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"
#include "topology/path_evidence.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::check;
using testing::Checked;
using testing::find;
using testing::fresh_node_root;
using testing::node_root;
using testing::pair;

Status finding_status(const NodeReport& r, const std::string& check, const std::string& subject) {
  const Finding* f = find(r, check, subject);
  EXPECT_NE(f, nullptr) << "no " << check << " finding for " << subject;
  return f ? f->status : Status::Unknown;
}

std::vector<const Finding*> of_check(const NodeReport& r, const std::string& check) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.check == check) out.push_back(&f);
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string device_dir(const std::string& root, const std::string& bdf) {
  return fs::canonical(root + "/sys/bus/pci/devices/" + bdf).string();
}

// --- the healthy DGX H100-like node -------------------------------------------------

TEST(NodeHealthy, DgxH100IsReadyOnEveryGpu) {
  auto c = check(node_root("dgx-h100"));
  EXPECT_EQ(c.report.status, Status::Ok);
  ASSERT_EQ(c.report.pairs.size(), 8u);
  for (const auto& p : c.report.pairs) {
    EXPECT_EQ(p.status, Status::Ok) << p.gpu << ": " << p.reason;
    EXPECT_EQ(p.gdr_send, GdrUse::Yes);
    EXPECT_EQ(p.gdr_recv, GdrUse::Yes);
    EXPECT_EQ(p.path, "PXB");       // two Broadcom sub-switches for nvidia-smi
    EXPECT_EQ(p.nccl_path, "PIX");  // one switch for NCCL after flattening
  }
  EXPECT_EQ(pair(c.report, "GPU0").nic_name, "mlx5_0");
  EXPECT_EQ(pair(c.report, "GPU7").nic_name, "mlx5_11");
  EXPECT_EQ(c.report.host, "dgx-h100-01");
  EXPECT_EQ(finding_status(c.report, "peermem", "host"), Status::Ok);
  EXPECT_EQ(finding_status(c.report, "driver", "nvidia"), Status::Ok);
  EXPECT_NE(find(c.report, "driver", "nvidia")->summary.find("open kernel module"), std::string::npos);
  EXPECT_EQ(finding_status(c.report, "path", "rails"), Status::Ok);
  EXPECT_EQ(finding_status(c.report, "gpu", "GPU3"), Status::Ok);
  EXPECT_EQ(finding_status(c.report, "iommu", "mlx5_0"), Status::Ok);
  EXPECT_EQ(finding_status(c.report, "link", "GPU0"), Status::Ok);
  // The dual-port 2x200G storage NIC is not "below its model's rate".
  EXPECT_EQ(finding_status(c.report, "port", "mlx5_1/1"), Status::Ok);
}

TEST(NodeHealthy, OkFindingsStillCarryEvidence) {
  auto c = check(node_root("dgx-h100"));
  for (const auto& f : c.report.findings) {
    EXPECT_FALSE(f.evidence.empty()) << f.check << " " << f.subject;
    EXPECT_TRUE(f.status == Status::Ok || !f.fix.empty()) << f.check << " " << f.subject << " has no fix";
  }
}

// --- gpu ----------------------------------------------------------------------------

TEST(NodeGpu, UnboundDriverIsCritical) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove(device_dir(root, "0000:1b:00.0") + "/driver");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "gpu", "GPU0"), Status::Critical);
  EXPECT_EQ(pair(c.report, "GPU0").status, Status::Critical);
}

TEST(NodeGpu, NoGpuAtAllIsUnknownNotOk) {
  auto c = check(testing::ve_root());
  EXPECT_EQ(finding_status(c.report, "gpu", "host"), Status::Unknown);
  EXPECT_NE(c.report.status, Status::Ok);
}

// --- nic ----------------------------------------------------------------------------

TEST(NodeNic, MissingRdmaDeviceIsCritical) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove(root + "/sys/class/infiniband/mlx5_0");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "nic", "0000:18:00.0"), Status::Critical);
}

TEST(NodeNic, UnreadableFirmwareIsSaid) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove(fs::canonical(root + "/sys/class/infiniband/mlx5_0").string() + "/fw_ver");
  auto c = check(root);
  const Finding* f = find(c.report, "nic", "mlx5_0");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("firmware unknown"), std::string::npos);
  bool said = false;
  for (const auto& e : f->evidence) said |= e.find("fw_ver: not found") != std::string::npos;
  EXPECT_TRUE(said);
}

// --- port ---------------------------------------------------------------------------

TEST(NodePort, DownPortIsCritical) {
  auto c = check(node_root("dgx-h100", {"port-down"}));
  const Finding* f = find(c.report, "port", "mlx5_0/1");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Critical);
  EXPECT_NE(f->summary.find("DOWN"), std::string::npos);
  EXPECT_EQ(c.report.status, Status::Critical);
  // NCCL skips the down port (ncclIbInitDevices: state != ACTIVE) and sends
  // GPU0's traffic through its NVLink peers' NICs (PXN), GDR still on.
  const PairVerdict& g0 = pair(c.report, "GPU0");
  EXPECT_EQ(g0.status, Status::Warning);
  EXPECT_EQ(g0.nccl_path, "PXN");
  EXPECT_EQ(g0.gdr_send, GdrUse::Yes);
  EXPECT_NE(g0.reason.find("its own NIC is unusable"), std::string::npos) << g0.reason;
  EXPECT_NE(g0.nic_name, "mlx5_0");
  EXPECT_EQ(pair(c.report, "GPU1").status, Status::Ok);
}

TEST(NodePort, SlowPortIsAWarning) {
  auto c = check(node_root("dgx-h100", {"nic-slow"}));
  std::vector<const Finding*> slow;
  for (const Finding* f : of_check(c.report, "port"))
    if (f->status == Status::Warning) slow.push_back(f);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0]->summary.find("below the 400 Gb/s"), std::string::npos);
}

TEST(NodePort, MissingStateIsUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove(fs::canonical(root + "/sys/class/infiniband/mlx5_0").string() + "/ports/1/state");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "port", "mlx5_0/1"), Status::Unknown);
}

TEST(NodePort, RoceWithoutV2GidIsAWarning) {
  auto good = check(node_root("roce-node"));
  for (const Finding* f : of_check(good.report, "port")) EXPECT_EQ(f->status, Status::Ok) << f->subject << f->summary;
  EXPECT_NE(of_check(good.report, "port").front()->summary.find("RoCE"), std::string::npos);
  std::string root = fresh_node_root("roce-node");
  std::string types = fs::canonical(root + "/sys/class/infiniband/mlx5_0").string() + "/ports/1/gid_attrs/types";
  for (const auto& entry : fs::directory_iterator(types)) write_text(entry.path().string(), "IB/RoCE v1\n");
  auto bad = check(root);
  EXPECT_EQ(finding_status(bad.report, "port", "mlx5_0/1"), Status::Warning);
}

// --- peermem ------------------------------------------------------------------------

TEST(NodePeermem, MissingModuleWithoutDmaBufIsCritical) {
  auto c = check(node_root("dgx-h100", {"peermem-missing"}));
  EXPECT_EQ(finding_status(c.report, "peermem", "host"), Status::Critical);
  for (const auto& p : c.report.pairs) {
    EXPECT_EQ(p.gdr_recv, GdrUse::No);
    EXPECT_EQ(p.status, Status::Critical);
  }
}

// Kernel 6.x with current MLNX_OFED/DOCA: nvidia_peermem works but no
// /sys/kernel/mm/memory_peers exists (NVIDIA/nccl#1939, #1537, #1676).
// Not a broken node: NCCL >= 2.23.4 finds the module file, older NCCL does
// not and stages through host memory.
TEST(NodePeermem, LoadedWithoutMemoryPeersIsTodaysStackNotAFault) {
  for (const char* variant : {"peermem-unregistered", "peermem-new-stack"}) {
    auto c = check(node_root("dgx-h100", {variant}));
    const Finding* f = find(c.report, "peermem", "host");
    ASSERT_NE(f, nullptr) << variant;
    EXPECT_EQ(f->status, Status::Ok) << variant;
    EXPECT_NE(f->summary.find("gdrcheck bench rdma"), std::string::npos) << f->summary;
    EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::Yes) << variant;
  }
}

// The variant's open driver on 6.8 also allows DMA-BUF, which NCCL 2.22
// would use; with DMA-BUF off only the peer-memory files decide.
TEST(NodePeermem, LoadedWithoutMemoryPeersOnNccl222IsNoGdrWithTheUpgradeFix) {
  NodeOptions no;
  no.nccl_version = *NcclVersion::parse("2.22.3");
  HostReadOptions ro;
  ro.environment.push_back({"NCCL_DMABUF_ENABLE", "0", "--env"});
  auto with_dmabuf = check(node_root("dgx-h100", {"peermem-new-stack"}), {}, no);
  EXPECT_EQ(pair(with_dmabuf.report, "GPU0").gdr_recv, GdrUse::Yes);
  auto c = check(node_root("dgx-h100", {"peermem-new-stack"}), ro, no);
  const Finding* f = find(c.report, "nccl", "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Critical);
  EXPECT_NE(f->fix.find("NCCL >= 2.23.4"), std::string::npos) << f->fix;
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::No);
}

// The registry exists but lists no nv_mem client: files cannot confirm
// registration either way, so say so and name the test that decides.
TEST(NodePeermem, RegistryWithoutTheNvidiaClientIsAWarningNotCritical) {
  auto c = check(node_root("dgx-h100", {"peermem-registry-without-nvidia"}));
  const Finding* f = find(c.report, "peermem", "host");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Warning);
  EXPECT_NE(f->summary.find("registration cannot be confirmed"), std::string::npos) << f->summary;
  EXPECT_NE(f->fix.find("gdrcheck bench rdma"), std::string::npos);
}

TEST(NodePeermem, LegacyNvPeerMemIsAWarning) {
  auto c = check(node_root("dgx-a100", {"nv-peer-mem"}));
  EXPECT_EQ(finding_status(c.report, "peermem", "host"), Status::Warning);
}

TEST(NodePeermem, DmaBufPathWithoutModule) {
  // The PCIe server has no peer-memory module; its driver decides DMA-BUF.
  auto c = check(node_root("pcie-server-nic-remote"));
  const Finding* f = find(c.report, "peermem", "host");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->status == Status::Ok || f->status == Status::Critical) << f->summary;
  EXPECT_NE(f->evidence.back().find("DMA-BUF"), std::string::npos);
}

TEST(NodePeermem, UnknownDriverMakesDmaBufUnknown) {
  std::string root = fresh_node_root("dgx-h100", {"peermem-missing"});
  fs::remove(root + "/proc/driver/nvidia/version");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "peermem", "host"), Status::Unknown);
  EXPECT_EQ(c.report.pairs[0].gdr_recv, GdrUse::Unknown);
  EXPECT_EQ(finding_status(c.report, "nccl", "GPU0"), Status::Unknown);
}

// --- path ---------------------------------------------------------------------------

TEST(NodePath, NicOnTheOtherSocketStagesThroughHost) {
  auto c = check(node_root("pcie-server-nic-remote"));
  const PairVerdict& p = pair(c.report, "GPU0");
  EXPECT_EQ(p.path, "SYS");
  EXPECT_EQ(p.gdr_recv, GdrUse::No);
  EXPECT_EQ(finding_status(c.report, "path", "GPU0-" + p.nic), Status::Warning);
}

TEST(NodePath, FlattenedVmTreeIsRecognised) {
  auto c = check(node_root("vm-flattened"));
  const Finding* f = find(c.report, "path", "topology");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Warning);
  EXPECT_NE(f->fix.find("NCCL_TOPO_FILE"), std::string::npos);
  auto dgx = check(node_root("dgx-h100"));
  EXPECT_EQ(find(dgx.report, "path", "topology"), nullptr);
}

TEST(NodePath, UnknownLocalityIsUnknown) {
  std::string root = fresh_node_root("pcie-server-nic-remote");
  // The NIC's host bridge can no longer be placed: every function under it
  // says numa_node -1 and lists every CPU as local.
  Topology t = read_sysfs_topology(Root(root));
  const Endpoint* nic = t.with_role(DeviceRole::Nic).front();
  std::string all = Root(root).read("/sys/devices/system/cpu/online").trimmed();
  std::vector<int> nodes;
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n)
    if (t.nodes[n].address && t.root_of(n) == t.root_of(nic->node)) nodes.push_back(n);
  for (int n : nodes) {
    std::string dir = device_dir(root, t.nodes[n].address->str());
    write_text(dir + "/numa_node", "-1\n");
    write_text(dir + "/local_cpulist", all + "\n");
    write_text(dir + "/local_cpus", "ffffffff,ffffffff\n");
  }
  auto c = check(root);
  const PairVerdict& p = pair(c.report, "GPU0");
  EXPECT_EQ(p.path, "?");
  EXPECT_EQ(finding_status(c.report, "path", "GPU0-" + p.nic), Status::Unknown);
}

// A bridge of GPU0's chain whose config cannot be read: hwloc leaves it out
// and, without its PXN escape, GPU0 would look PHB with no GDR. Its pairs
// are UNKNOWN with the file named; every other GPU is still judged.
Checked check_marked(const std::string& root, HostReadOptions ro = {}) {
  Topology t = read_sysfs_topology(Root(root));
  mark_unproven_paths(t, Root(root));
  HostState h = read_host_state(Root(root), pci_functions(t), ro);
  NodeReport r = build_node_report(std::move(t), h, {});
  return {std::move(h), std::move(r)};
}

std::string gpu0_bridge_without_config(const std::string& root) {
  Topology t = read_sysfs_topology(Root(root));
  std::vector<int> chain = t.bridge_chain(t.find("GPU0")->node);
  std::string bridge = t.nodes[chain[chain.size() - 2]].address->str();
  fs::remove(root + "/sys/bus/pci/devices/" + bridge + "/config");
  return bridge;
}

HostReadOptions without_pxn() {
  HostReadOptions ro;
  ro.environment.push_back({"NCCL_PXN_DISABLE", "1", "--env"});
  return ro;
}

TEST(NodePath, ProvenChainsKeepTheirVerdicts) {
  auto c = check_marked(node_root("dgx-h100"), without_pxn());
  EXPECT_EQ(c.report.status, Status::Ok);
  EXPECT_EQ(pair(c.report, "GPU0").path, "PXB");
}

TEST(NodePath, BridgeLostFromTheTreeIsUnknownNotCritical) {
  std::string root = fresh_node_root("dgx-h100");
  std::string bridge = gpu0_bridge_without_config(root);
  auto c = check_marked(root, without_pxn());
  EXPECT_EQ(c.report.status, Status::Unknown);
  for (const auto& f : c.report.findings) EXPECT_NE(f.status, Status::Critical) << f.check << " " << f.summary;
  const PairVerdict& p = pair(c.report, "GPU0");
  EXPECT_EQ(p.status, Status::Unknown) << p.reason;
  EXPECT_EQ(p.path, "?");
  EXPECT_EQ(p.gdr_recv, GdrUse::Unknown);
  const Finding* f = find(c.report, "path", "GPU0-" + p.nic);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Unknown);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence.front().find("/sys/bus/pci/devices/" + bridge + "/config: not found"), std::string::npos)
      << f->evidence.front();
  EXPECT_NE(f->fix.find("lspci"), std::string::npos);
  EXPECT_EQ(finding_status(c.report, "nccl", "GPU0"), Status::Unknown);
  EXPECT_EQ(finding_status(c.report, "path", "rails"), Status::Unknown);
  for (const std::string gpu : {"GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7"}) {
    EXPECT_EQ(pair(c.report, gpu).status, Status::Ok) << gpu << ": " << pair(c.report, gpu).reason;
    EXPECT_EQ(pair(c.report, gpu).nccl_path, "PIX") << gpu;
  }
}

TEST(NodePath, BridgeLostWithPxnIsUnknownNotAFalseRailWarning) {
  std::string root = fresh_node_root("dgx-h100");
  gpu0_bridge_without_config(root);
  auto c = check_marked(root);
  EXPECT_EQ(c.report.status, Status::Unknown);
  EXPECT_EQ(pair(c.report, "GPU0").status, Status::Unknown) << pair(c.report, "GPU0").reason;
  EXPECT_EQ(finding_status(c.report, "path", "rails"), Status::Unknown);
  EXPECT_EQ(pair(c.report, "GPU1").status, Status::Ok) << pair(c.report, "GPU1").reason;
}

TEST(NodePath, DeviceConfigUnreadableIsUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  Topology t = read_sysfs_topology(Root(root));
  std::string nic = t.find("NIC0")->address->str();
  std::string config = root + "/sys/bus/pci/devices/" + nic + "/config";
  fs::remove(config);
  fs::create_directory(config);
  auto c = check_marked(root, without_pxn());
  EXPECT_NE(c.report.status, Status::Ok);
  EXPECT_NE(c.report.status, Status::Critical);
  const PairVerdict& p = pair(c.report, "GPU0");
  EXPECT_EQ(p.status, Status::Unknown) << p.reason;
  EXPECT_EQ(pair(c.report, "GPU1").status, Status::Ok) << pair(c.report, "GPU1").reason;
}

// --- acs ----------------------------------------------------------------------------

TEST(NodeAcs, RedirectOnOneSwitchPortIsCritical) {
  auto c = check(node_root("dgx-h100", {"acs-redirect"}));
  std::vector<const Finding*> bad;
  for (const Finding* f : of_check(c.report, "acs"))
    if (f->status != Status::Ok) bad.push_back(f);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->status, Status::Critical);
  EXPECT_NE(bad[0]->fix.find("setpci -s " + bad[0]->subject + " ECAP_ACS+0x6.w=0000"), std::string::npos);
  EXPECT_NE(bad[0]->evidence.back().find("ReqRedir+"), std::string::npos);
  int critical_pairs = 0;
  for (const auto& p : c.report.pairs) critical_pairs += p.status == Status::Critical;
  EXPECT_EQ(critical_pairs, 1);
}

// Grace platforms need specific ACS bits: gdrcheck reports them, it does not
// demand all-off.
TEST(NodeAcs, GracePlatformBitsAreReportedNotJudged) {
  std::string root = fresh_node_root("dgx-h100", {"acs-redirect"});
  write_text(device_dir(root, "0000:1b:00.0") + "/device", "0x2342\n");  // GH200
  auto c = check(root);
  for (const Finding* f : of_check(c.report, "acs")) {
    EXPECT_EQ(f->status, Status::Ok) << f->subject;
    if (f->subject == "0000:1a:00.0") {
      EXPECT_NE(f->summary.find("needs specific ACS bits"), std::string::npos) << f->summary;
    }
  }
}

TEST(NodeAcs, RootlessCaptureIsUnknownNeverOk) {
  auto c = check(node_root("dgx-h100", {"rootless"}));
  auto acs = of_check(c.report, "acs");
  ASSERT_EQ(acs.size(), 1u);
  EXPECT_EQ(acs[0]->status, Status::Unknown);
  EXPECT_EQ(acs[0]->fix, "run as root to check ACS");
  EXPECT_EQ(c.report.status, Status::Unknown);
}

// --- iommu --------------------------------------------------------------------------

TEST(NodeIommu, TranslatedDomainsAreCritical) {
  auto c = check(node_root("dgx-h100", {"iommu-translated"}));
  EXPECT_EQ(finding_status(c.report, "iommu", "GPU0"), Status::Critical);
  EXPECT_NE(find(c.report, "iommu", "GPU0")->fix.find("iommu=pt"), std::string::npos);
}

TEST(NodeIommu, OldKernelWithoutTypeFallsBackToCmdline) {
  std::string root = fresh_node_root("dgx-h100", {"iommu-translated"});
  for (const auto& g : fs::directory_iterator(root + "/sys/kernel/iommu_groups")) fs::remove(g.path() / "type");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "iommu", "GPU0"), Status::Critical);  // intel_iommu=on without iommu=pt
  fs::remove(root + "/proc/cmdline");
  auto unknown = check(root);
  EXPECT_EQ(finding_status(unknown.report, "iommu", "GPU0"), Status::Unknown);
}

TEST(NodeIommu, NoIommuIsOneHostFinding) {
  auto c = check(node_root("vm-flattened"));
  EXPECT_EQ(finding_status(c.report, "iommu", "host"), Status::Ok);
}

// --- link ---------------------------------------------------------------------------

TEST(NodeLink, GpuAtX8IsCritical) {
  auto c = check(node_root("dgx-h100", {"gpu-x8"}));
  std::vector<const Finding*> bad;
  for (const Finding* f : of_check(c.report, "link"))
    if (f->status != Status::Ok) bad.push_back(f);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->status, Status::Critical);
  EXPECT_NE(bad[0]->summary.find("x8 (max Gen5 x16)"), std::string::npos);
}

TEST(NodeLink, IdleGpuSpeedIsOnlyANote) {
  std::string root = fresh_node_root("dgx-h100");
  write_text(device_dir(root, "0000:1b:00.0") + "/current_link_speed", "2.5 GT/s PCIe\n");
  auto c = check(root);
  const Finding* f = find(c.report, "link", "GPU0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::Ok);
  EXPECT_NE(f->summary.find("idle GPU"), std::string::npos);
}

TEST(NodeLink, MissingLinkFilesAreUnknown) {
  std::string root = fresh_node_root("dgx-h100");
  for (const char* f : {"current_link_speed", "current_link_width", "max_link_speed", "max_link_width"})
    fs::remove(device_dir(root, "0000:1b:00.0") + "/" + f);
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "link", "GPU0"), Status::Unknown);
}

// --- nccl ---------------------------------------------------------------------------

TEST(NodeNccl, StrayConfFileSettingsAreFound) {
  auto c = check(node_root("dgx-h100", {"stray-nccl-conf"}));
  EXPECT_EQ(finding_status(c.report, "nccl", "GPU0"), Status::Critical);
  EXPECT_EQ(finding_status(c.report, "nccl", "NCCL_IB_HCA"), Status::Warning);
  EXPECT_EQ(finding_status(c.report, "nccl", "NCCL_NET_GDR_LEVEL"), Status::Warning);
  EXPECT_NE(find(c.report, "nccl", "NCCL_NET_GDR_LEVEL")->evidence[0].find("/etc/nccl.conf"), std::string::npos);
}

// NCCL warns about a missing NCCL_TOPO_FILE and probes the topology itself
// (src/graph/xml.cc:ncclTopoGetXmlFromFile@v2.26.6-1 WARN, INFO from 2.27.3).
TEST(NodeNccl, MissingTopoFileIsAWarningAndThePciTreeIsUsed) {
  auto c = check(node_root("dgx-h100", {"stray-topo-file"}));
  EXPECT_EQ(finding_status(c.report, "nccl", "NCCL_TOPO_FILE"), Status::Warning);
  EXPECT_EQ(c.report.nccl_topology, "sysfs");
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::Yes);
}

TEST(NodeNccl, EnvironmentReadOffGivesReceiveOnly) {
  HostReadOptions ro;
  ro.environment.push_back({"NCCL_NET_GDR_READ", "0", "--env"});
  auto c = check(node_root("dgx-h100"), ro);
  const PairVerdict& p = pair(c.report, "GPU0");
  EXPECT_EQ(p.gdr_send, GdrUse::No);
  EXPECT_EQ(p.gdr_recv, GdrUse::Yes);
  EXPECT_EQ(finding_status(c.report, "nccl", "GPU0"), Status::Warning);
}

// The DGX root's switches are Broadcom Gen5 (PEX890xx): NCCL flattens them
// from 2.20.3 (getBcmGen), so 2.18.6 still sees PXB.
TEST(NodeNccl, OlderNcclWithoutGen5FlatteningSeesPxb) {
  NodeOptions no;
  no.nccl_version = *NcclVersion::parse("2.18.6");
  auto c = check(node_root("dgx-h100"), {}, no);
  EXPECT_EQ(pair(c.report, "GPU0").nccl_path, "PXB");
  EXPECT_EQ(pair(c.report, "GPU0").gdr_recv, GdrUse::Yes);  // PXB is within the default level
  no.nccl_version = *NcclVersion::parse("2.20.3");
  EXPECT_EQ(pair(check(node_root("dgx-h100"), {}, no).report, "GPU0").nccl_path, "PIX");
  no.view.flatten_bcm = false;  // --no-bcm-flatten
  EXPECT_EQ(pair(check(node_root("dgx-h100"), {}, no).report, "GPU0").nccl_path, "PXB");
}

// --- driver -------------------------------------------------------------------------

TEST(NodeDriver, MissingVerbsModuleIsCritical) {
  std::string root = fresh_node_root("dgx-h100");
  fs::remove_all(root + "/sys/module/mlx5_ib");
  auto c = check(root);
  EXPECT_EQ(finding_status(c.report, "driver", "rdma"), Status::Critical);
  EXPECT_NE(find(c.report, "driver", "rdma")->fix.find("modprobe -a mlx5_ib"), std::string::npos);
}

TEST(NodeDriver, NoModuleDirectoryIsUnknown) {
  auto c = check(testing::mic_root());
  EXPECT_EQ(finding_status(c.report, "driver", "rdma"), Status::Unknown);
  EXPECT_EQ(finding_status(c.report, "driver", "kernel"), Status::Unknown);
}

// --- manifest -----------------------------------------------------------------------

TEST(NodeManifest, GoodNodeMatchesItsOwnManifestAndDifferencesAreFound) {
  auto good = check(node_root("dgx-h100"));
  nlohmann::json m = make_manifest(good.report, good.host);
  EXPECT_EQ(m["gpus"]["count"], 8);
  NodeOptions no;
  no.manifest = m;
  auto same = check(node_root("dgx-h100"), {}, no);
  EXPECT_EQ(finding_status(same.report, "manifest", "host"), Status::Ok);
  auto slow = check(node_root("dgx-h100", {"nic-slow"}), {}, no);
  EXPECT_EQ(finding_status(slow.report, "manifest", "ports"), Status::Critical);
  EXPECT_EQ(slow.report.status, Status::Critical);
}

TEST(NodeManifest, BadManifestIsAnInputError) {
  EXPECT_THROW(validate_manifest(nlohmann::json::array(), "m.json"), InputError);
  EXPECT_THROW(validate_manifest({{"schema", "other"}}, "m.json"), InputError);
}

// --- the real recorded trees run through without error, truthfully ---------------------

TEST(NodeRecorded, RealTreesGiveTruthfulUnknowns) {
  for (const std::string& root :
       {testing::ve_root(), testing::mic_root(), testing::qib_root(), testing::p100_vm_root()}) {
    auto c = check(root);
    EXPECT_NE(c.report.status, Status::Ok) << root;  // none of them has enough evidence for OK
    for (const auto& f : c.report.findings)
      if (f.status == Status::Ok) {
        EXPECT_FALSE(f.evidence.empty()) << f.check << " " << f.subject;
      }
  }
  auto vm = check(testing::p100_vm_root());
  EXPECT_EQ(finding_status(vm.report, "link", "GPU0"), Status::Unknown);  // no link files in the VM
  EXPECT_EQ(finding_status(vm.report, "nic", "host"), Status::Critical);  // a GPU and no RDMA NIC
}

}  // namespace
}  // namespace gdrcheck

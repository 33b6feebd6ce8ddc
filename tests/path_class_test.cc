#include "topology/path_class.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gdrcheck {
namespace {

// Builds Ports-style trees by hand: host bridges with locality, bridges, devices.
struct TreeBuilder {
  Topology t;
  TreeBuilder() { t.tree = TreeStyle::Ports; }
  int host(int numa, const std::string& label) {
    PciNode n;
    n.kind = PciNode::Kind::HostBridge;
    n.label = label;
    n.locality.numa = numa;
    return t.add_node(n);
  }
  int bridge(int parent, const std::string& bdf) {
    PciNode n;
    n.kind = PciNode::Kind::Bridge;
    n.parent = parent;
    n.address = PciAddress::parse(bdf);
    return t.add_node(n);
  }
  void device(int parent, const std::string& id, DeviceRole role, const std::string& bdf) {
    PciNode n;
    n.kind = PciNode::Kind::Device;
    n.parent = parent;
    n.address = PciAddress::parse(bdf);
    int node = t.add_node(n);
    Endpoint e;
    e.id = id;
    e.role = role;
    e.node = node;
    e.address = n.address;
    t.endpoints.push_back(e);
  }
  std::string code(const std::string& a, const std::string& b) const {
    return smi_class(t, *t.find(a), *t.find(b)).code();
  }
};

// root port → switch (USP) → DSPs → GPU/NIC; a second level of switch below.
TreeBuilder two_level_switch() {
  TreeBuilder b;
  int hb = b.host(0, "pci0000:00");
  int rp = b.bridge(hb, "0000:00:01.0");
  int usp = b.bridge(rp, "0000:01:00.0");
  int dsp1 = b.bridge(usp, "0000:02:00.0");
  int dsp2 = b.bridge(usp, "0000:02:01.0");
  int dsp3 = b.bridge(usp, "0000:02:02.0");
  b.device(dsp1, "GPU0", DeviceRole::Gpu, "0000:03:00.0");
  b.device(dsp2, "NIC0", DeviceRole::Nic, "0000:04:00.0");
  int usp2 = b.bridge(dsp3, "0000:05:00.0");
  int dsp4 = b.bridge(usp2, "0000:06:00.0");
  b.device(dsp4, "GPU1", DeviceRole::Gpu, "0000:07:00.0");
  int rp2 = b.bridge(hb, "0000:00:02.0");
  b.device(rp2, "NIC1", DeviceRole::Nic, "0000:08:00.0");
  int hb2 = b.host(0, "pci0000:40");
  int rp3 = b.bridge(hb2, "0000:40:01.0");
  b.device(rp3, "NIC2", DeviceRole::Nic, "0000:41:00.0");
  int hb3 = b.host(1, "pci0000:80");
  int rp4 = b.bridge(hb3, "0000:80:01.0");
  b.device(rp4, "NIC3", DeviceRole::Nic, "0000:81:00.0");
  return b;
}

TEST(SmiClass, PixUnderOneSwitch) {
  EXPECT_EQ(two_level_switch().code("GPU0", "NIC0"), "PIX");
}
TEST(SmiClass, PxbThroughASecondSwitch) {
  EXPECT_EQ(two_level_switch().code("GPU1", "NIC0"), "PXB");
}
TEST(SmiClass, PhbAtTheSameHostBridge) {
  EXPECT_EQ(two_level_switch().code("GPU0", "NIC1"), "PHB");
}
TEST(SmiClass, NodeAcrossHostBridgesOfOneNuma) {
  EXPECT_EQ(two_level_switch().code("GPU0", "NIC2"), "NODE");
}
TEST(SmiClass, SysAcrossNumaNodes) {
  EXPECT_EQ(two_level_switch().code("GPU0", "NIC3"), "SYS");
}
TEST(SmiClass, SelfIsX) {
  EXPECT_EQ(two_level_switch().code("GPU0", "GPU0"), "X");
}
TEST(SmiClass, Symmetric) {
  auto b = two_level_switch();
  for (const auto& x : b.t.endpoints)
    for (const auto& y : b.t.endpoints) EXPECT_EQ(b.code(x.id, y.id), b.code(y.id, x.id)) << x.id << " " << y.id;
}

TEST(SmiClass, UnknownLocalityIsSaidNotGuessed) {
  auto b = two_level_switch();
  b.t.nodes[b.t.root_of(b.t.find("NIC3")->node)].locality = {};
  b.t.numa_count = 2;
  SmiClass c = smi_class(b.t, *b.t.find("GPU0"), *b.t.find("NIC3"));
  EXPECT_EQ(c.code(), "?");
  EXPECT_NE(c.why.find("unknown"), std::string::npos);
}

TEST(SmiClass, SingleNumaMachineNeedsNoLocality) {
  auto b = two_level_switch();
  for (auto& n : b.t.nodes) n.locality = {};
  b.t.numa_count = 1;
  EXPECT_EQ(b.code("GPU0", "NIC2"), "NODE");
}

TEST(SmiClass, NvlinkWinsForGpuPairs) {
  auto b = two_level_switch();
  b.t.endpoints[0].nvlinks.push_back({"0000:07:00.0", 12, 0x030200});
  EXPECT_EQ(b.code("GPU0", "GPU1"), "NV12");
  // Through NVSwitches both ways.
  auto c = two_level_switch();
  c.t.endpoints[0].nvlinks.push_back({"0000:c1:00.0", 18, 0x068000});
  c.t.endpoints[2].nvlinks.push_back({"0000:c1:00.0", 18, 0x068000});
  EXPECT_EQ(c.code("GPU0", "GPU1"), "NV18");
}

// A device whose path the files do not prove: the tree's answer would be
// a guess (hwloc may have lost a bridge), so every PCIe pair with it is
// unknown with the reason; NVLink and the device itself are unaffected.
TEST(SmiClass, UnprovenPathIsUnknownWithTheReason) {
  auto b = two_level_switch();
  const std::string why =
      "PCIe path of NIC0 (0000:04:00.0) not proven: /sys/bus/pci/devices/0000:02:01.0/config: not found";
  std::find_if(b.t.endpoints.begin(), b.t.endpoints.end(), [](auto& e) { return e.id == "NIC0"; })->path_unproven = why;
  SmiClass c = smi_class(b.t, *b.t.find("GPU0"), *b.t.find("NIC0"));
  EXPECT_EQ(c.code(), "?");
  EXPECT_EQ(c.why, why);
  EXPECT_EQ(b.code("NIC0", "GPU1"), "?");
  EXPECT_EQ(b.code("NIC0", "NIC0"), "X");
  EXPECT_EQ(b.code("GPU0", "NIC1"), "PHB");  // proven pairs keep their class
  EXPECT_EQ(nccl_from_smi(c).path, NcclPath::Unknown);
  EXPECT_EQ(nccl_from_smi(c).why, why);
}

TEST(SmiClass, UnprovenGpuKeepsItsNvlinks) {
  auto b = two_level_switch();
  b.t.endpoints[0].nvlinks.push_back({"0000:07:00.0", 12, 0x030200});
  b.t.endpoints[0].path_unproven = "PCIe path of GPU0 not proven";
  EXPECT_EQ(b.code("GPU0", "GPU1"), "NV12");
  EXPECT_EQ(b.code("GPU0", "NIC0"), "?");
}

TEST(SmiClass, NoTreeIsUnknown) {
  Topology t;
  t.tree = TreeStyle::None;
  Endpoint a, b;
  a.id = "GPU0";
  b.id = "NIC0";
  EXPECT_EQ(smi_class(t, a, b).code(), "?");
}

TEST(SmiCode, ParsesPrintedCodes) {
  EXPECT_EQ(parse_smi_code("PIX").path, SmiPath::PIX);
  EXPECT_EQ(parse_smi_code("SOC").path, SmiPath::SYS);  // old drivers
  EXPECT_EQ(parse_smi_code("NV18").nvlinks, 18);
  EXPECT_EQ(parse_smi_code("nv4").path, SmiPath::NVLink);
  EXPECT_EQ(parse_smi_code("N/A").path, SmiPath::Unknown);
  EXPECT_EQ(parse_smi_code("NV").path, SmiPath::Unknown);
  EXPECT_EQ(parse_smi_code("NV99999999999999").path, SmiPath::NVLink);  // no overflow
}

TEST(NcclFromSmi, NodeIsPhbForNccl) {
  EXPECT_EQ(nccl_from_smi(parse_smi_code("NODE")).path, NcclPath::PHB);
  EXPECT_EQ(nccl_from_smi(parse_smi_code("PXB")).path, NcclPath::PXB);
  EXPECT_EQ(nccl_from_smi(parse_smi_code("NV12")).path, NcclPath::NVL);
  EXPECT_EQ(nccl_from_smi(parse_smi_code("X")).path, NcclPath::LOC);
  EXPECT_STREQ(nccl_path_name(NcclPath::P2C), "P2C");
}

}  // namespace
}  // namespace gdrcheck

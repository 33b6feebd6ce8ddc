// NCCL's view of a topology: path types on the recorded NCCL XML fixtures
// (tests/data/recorded/README.md section C), each checked with both the
// nvidia-smi rule (smi_class on the file's tree) and NCCL's rule
// (nccl_class on nccl_view), and the Ports → NCCL-switch grouping on small
// hand-built sysfs-like trees.
#include "topology/nccl_view.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "topology/nccl_xml_source.h"
#include "topology/path_class.h"

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

// ---- helpers ----------------------------------------------------------------

struct Loaded {
  Topology t;  // as read
  Topology v;  // nccl_view(t)
};

Loaded load(const std::string& rel, NcclViewOptions options = {}) {
  Loaded l{read_nccl_xml(testing::read_test_data("recorded/" + rel), rel), {}};
  l.v = nccl_view(l.t, options);
  return l;
}

// By id, NIC name, or full bus id (first match).
const Endpoint& ep(const Topology& t, const std::string& key) {
  for (const auto& e : t.endpoints)
    if (e.id == key || e.name == key || (e.address && e.address->str() == key)) return e;
  ADD_FAILURE() << "no endpoint " << key;
  static Endpoint none;
  return none;
}

std::string smi_name(SmiPath p) {
  SmiClass c;
  c.path = p;
  return c.code();
}

// Checks one pair with both rules.
void expect_pair(const Topology& t, const Topology& v, const Endpoint& a, const Endpoint& b, SmiPath smi,
                 NcclPath nccl) {
  SmiClass s = smi_class(t, a, b);
  const Endpoint* va = v.find(a.id);
  const Endpoint* vb = v.find(b.id);
  ASSERT_TRUE(va && vb);
  NcclClass n = nccl_class(v, *va, *vb);
  std::string pair = a.id + "(" + a.name + ") <-> " + b.id + "(" + b.name + ")";
  EXPECT_EQ(s.path, smi) << pair << ": smi " << s.code() << " (" << s.why << "), want " << smi_name(smi);
  EXPECT_EQ(n.path, nccl) << pair << ": nccl " << nccl_path_name(n.path) << " (" << n.why << "), want "
                          << nccl_path_name(nccl);
}

void expect_pair(const Loaded& l, const std::string& a, const std::string& b, SmiPath smi, NcclPath nccl) {
  expect_pair(l.t, l.v, ep(l.t, a), ep(l.t, b), smi, nccl);
}

// Where a device sits in a fixture: its switch group and its CPU.
struct Place {
  int group;
  int cpu;
};

// Every GPU × NIC pair: same group → (smi_same, nccl_same); same CPU → PHB;
// otherwise SYS. Returns the number of pairs checked.
int expect_grouped(const Loaded& l, const std::map<std::string, Place>& where, SmiPath smi_same, NcclPath nccl_same) {
  int checked = 0;
  for (const Endpoint* g : l.t.with_role(DeviceRole::Gpu)) {
    for (const Endpoint* n : l.t.with_role(DeviceRole::Nic)) {
      auto pg = where.find(g->address ? g->address->str() : "?");
      auto pn = where.find(n->address ? n->address->str() : "?");
      if (pg == where.end() || pn == where.end()) {
        ADD_FAILURE() << "no place for " << g->id << " or " << n->id;
        continue;
      }
      bool same_group = pg->second.group == pn->second.group;
      bool same_cpu = pg->second.cpu == pn->second.cpu;
      SmiPath smi = same_group ? smi_same : same_cpu ? SmiPath::PHB : SmiPath::SYS;
      NcclPath nccl = same_group ? nccl_same : same_cpu ? NcclPath::PHB : NcclPath::SYS;
      expect_pair(l.t, l.v, *g, *n, smi, nccl);
      ++checked;
    }
  }
  return checked;
}

std::string dom(const std::string& d) {
  return d + ":00:00.0";
}

// ---- recorded NCCL XML fixtures (README section C) -------------------------

TEST(NcclViewAzure, Ndv2GpusOneToFourPhbFiveToEightSys) {
  Loaded l = load("azhpc-images/ndv2-topo.xml");
  for (int i = 1; i <= 8; ++i) {
    bool near = i <= 4;
    expect_pair(l, dom("000" + std::to_string(i)), dom("0101"), near ? SmiPath::PHB : SmiPath::SYS,
                near ? NcclPath::PHB : NcclPath::SYS);
  }
}

TEST(NcclViewAzure, Ndv4GroupsPixAcrossSys) {
  Loaded l = load("azhpc-images/ndv4-topo.xml");
  std::map<std::string, Place> where;
  const char* groups[4][4] = {{"0003", "0004", "0103", "0104"},
                              {"0001", "0002", "0101", "0102"},
                              {"000d", "000e", "0107", "0108"},
                              {"000b", "000c", "0105", "0106"}};
  for (int g = 0; g < 4; ++g)
    for (const char* d : groups[g]) where[dom(d)] = {g, g};
  EXPECT_EQ(expect_grouped(l, where, SmiPath::PIX, NcclPath::PIX), 64);
}

TEST(NcclViewAzure, Ndv5PairsPixSameCpuPhbOtherSys) {
  Loaded l = load("azhpc-images/ndv5-topo.xml");
  std::map<std::string, Place> where;
  const char* pairs[8][2] = {{"0001", "0101"}, {"0002", "0102"}, {"0003", "0103"}, {"0008", "0104"},
                             {"0009", "0105"}, {"000a", "0106"}, {"000b", "0107"}, {"000c", "0108"}};
  for (int p = 0; p < 8; ++p)
    for (const char* d : pairs[p]) where[dom(d)] = {p, p / 4};
  EXPECT_EQ(expect_grouped(l, where, SmiPath::PIX, NcclPath::PIX), 64);
}

TEST(NcclViewAzure, Ncv4OnlyEthernetNoRdmaNic) {
  Loaded l = load("azhpc-images/ncv4-topo.xml");
  auto nics = l.t.with_role(DeviceRole::Nic);
  ASSERT_EQ(nics.size(), 1u);
  EXPECT_EQ(nics[0]->name, "eth0");
  EXPECT_FALSE(nics[0]->rdma_device);
  EXPECT_EQ(nics[0]->attributes.at("gdr"), "0");
  // eth0 hangs off CPU0: the GPU there meets it at the CPU.
  expect_pair(l, dom("0001"), "eth0", SmiPath::PHB, NcclPath::PHB);
  for (const char* d : {"0002", "0003", "0004"}) expect_pair(l, dom(d), "eth0", SmiPath::SYS, NcclPath::SYS);
  // The self-NVLinks in the file (target = own bus id) are not GPU↔GPU links.
  expect_pair(l, "GPU0", "GPU1", SmiPath::SYS, NcclPath::SYS);
}

void check_p4(const std::string& file) {
  Loaded l = load(file);
  std::map<std::string, Place> where;
  const char* buses[4] = {"10", "20", "90", "a0"};
  for (int s = 0; s < 4; ++s)
    for (const char* dev : {"1b", "1c", "1d"}) where["0000:" + std::string(buses[s]) + ":" + dev + ".0"] = {s, s / 2};
  EXPECT_EQ(l.t.with_role(DeviceRole::Nic).size(), 4u);
  EXPECT_EQ(expect_grouped(l, where, SmiPath::PIX, NcclPath::PIX), 32);
}

TEST(NcclViewAws, P4dEfaPixPhbSys) {
  check_p4("aws-ofi-nccl/p4d-24xl-topo.xml");
}

TEST(NcclViewAws, P4deEfaPixPhbSys) {
  check_p4("aws-ofi-nccl/p4de-24xl-topo.xml");
}

TEST(NcclViewAws, P5ParsesWithUnknownDevicesAndNoGpus) {
  Loaded l = load("aws-ofi-nccl/p5.48xl-topo.xml");
  EXPECT_TRUE(l.t.with_role(DeviceRole::Gpu).empty());
  EXPECT_TRUE(l.t.endpoints.empty());
  EXPECT_EQ(l.v.nodes.size(), l.t.nodes.size());
  EXPECT_EQ(l.v.notes, l.t.notes);
}

TEST(NcclViewAws, G5ParsesWithUnknownDevicesAndNoGpus) {
  Loaded l = load("aws-ofi-nccl/g5.48xl-topo.xml");
  EXPECT_TRUE(l.t.with_role(DeviceRole::Gpu).empty());
  EXPECT_EQ(l.v.nodes.size(), 11u);
}

std::map<std::string, Place> oci_h100_places() {
  const char* pairs[8][2] = {{"0f", "0c"}, {"2d", "2a"}, {"44", "41"}, {"5b", "58"},
                             {"89", "86"}, {"a8", "a5"}, {"c0", "bd"}, {"d8", "d5"}};
  std::map<std::string, Place> where;
  for (int p = 0; p < 8; ++p)
    for (const char* bus : pairs[p]) where["0000:" + std::string(bus) + ":00.0"] = {p, p / 4};
  return where;
}

TEST(NcclViewOci, H100SmiPxbNcclPixAfterBcmFlattening) {
  Loaded l = load("oci-hpc/H100-topology.xml");
  EXPECT_EQ(l.t.with_role(DeviceRole::Nic).size(), 16u);
  EXPECT_EQ(expect_grouped(l, oci_h100_places(), SmiPath::PXB, NcclPath::PIX), 8 * 16);
  expect_pair(l, "0000:0f:00.0", "mlx5_0", SmiPath::PXB, NcclPath::PIX);
  expect_pair(l, "0000:0f:00.0", "mlx5_1", SmiPath::PXB, NcclPath::PIX);
  expect_pair(l, "0000:0f:00.0", "mlx5_3", SmiPath::PHB, NcclPath::PHB);
  expect_pair(l, "0000:0f:00.0", "mlx5_9", SmiPath::SYS, NcclPath::SYS);
  expect_pair(l, "0000:d8:00.0", "mlx5_17", SmiPath::PXB, NcclPath::PIX);
}

TEST(NcclViewOci, H100WithoutFlatteningIsPxb) {
  Loaded l = load("oci-hpc/H100-topology.xml", NcclViewOptions{.flatten_bcm = false});
  EXPECT_EQ(expect_grouped(l, oci_h100_places(), SmiPath::PXB, NcclPath::PXB), 8 * 16);
  EXPECT_EQ(l.v.nodes.size(), l.t.nodes.size());
}

TEST(NcclViewOci, H100FlattenedTreeShape) {
  Loaded l = load("oci-hpc/H100-topology.xml");
  // Each Broadcom switch loses its two virtual sub-switches.
  EXPECT_EQ(l.v.nodes.size(), l.t.nodes.size() - 16);
  const Endpoint& g = *l.v.find("GPU0");
  const Endpoint& n = *l.v.find("NIC0");
  EXPECT_EQ(l.v.nodes[g.node].parent, l.v.nodes[n.node].parent);
  EXPECT_EQ(l.v.nodes[l.v.nodes[g.node].parent].address->str(), "0000:08:00.0");
  EXPECT_EQ(l.v.nodes[g.node].address->str(), "0000:0f:00.0");
  bool noted = false;
  for (const auto& note : l.v.notes) noted |= note.find("8 Broadcom switch(es) flattened") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(NcclViewOci, H100GpusAreNvlinkedThroughNvswitches) {
  Loaded l = load("oci-hpc/H100-topology.xml");
  const Endpoint& a = ep(l.v, "GPU0");
  const Endpoint& b = ep(l.v, "GPU5");
  EXPECT_EQ(nccl_class(l.v, a, b).path, NcclPath::NVL);
  EXPECT_EQ(smi_class(l.t, ep(l.t, "GPU0"), ep(l.t, "GPU5")).path, SmiPath::NVLink);
}

TEST(NcclViewOci, FlattenedB4PixWithinGroupSysOtherwise) {
  Loaded l = load("oci-hpc/topo-flattened-b4.xml");
  const char* groups[4][4] = {
      {"0f", "0c", "15", "16"}, {"50", "53", "47", "4b"}, {"8c", "89", "91", "93"}, {"d6", "da", "c3", "d1"}};
  std::map<std::string, Place> where;
  for (int g = 0; g < 4; ++g)
    for (const char* bus : groups[g]) where["0000:" + std::string(bus) + ":00.0"] = {g, g};
  EXPECT_EQ(expect_grouped(l, where, SmiPath::PIX, NcclPath::PIX), 8 * 8);
}

TEST(NcclViewIbm, Gx3dPairsPixWithNamedNic) {
  Loaded l = load("ibm-cloud-docs/gx3d-160x1792x8h100-topo.xml");
  const char* pairs[8][3] = {{"a4", "a3", "mlx5_7"}, {"ae", "ad", "mlx5_6"}, {"b8", "b7", "mlx5_5"},
                             {"c2", "c1", "mlx5_4"}, {"cc", "cb", "mlx5_3"}, {"d6", "d5", "mlx5_2"},
                             {"e0", "df", "mlx5_1"}, {"ea", "e9", "mlx5_0"}};
  std::map<std::string, Place> where;
  for (int p = 0; p < 8; ++p) {
    where["0000:" + std::string(pairs[p][0]) + ":00.0"] = {p, p / 4};
    where["0000:" + std::string(pairs[p][1]) + ":00.0"] = {p, p / 4};
    EXPECT_EQ(ep(l.t, pairs[p][2]).address->str(), "0000:" + std::string(pairs[p][1]) + ":00.0");
    expect_pair(l, "0000:" + std::string(pairs[p][0]) + ":00.0", pairs[p][2], SmiPath::PIX, NcclPath::PIX);
  }
  EXPECT_EQ(expect_grouped(l, where, SmiPath::PIX, NcclPath::PIX), 64);
}

// ---- hand-built Ports trees ---------------------------------------------------

// A sysfs-like tree: host bridges with locality, one node per PCI bridge.
class PortsTree {
 public:
  PortsTree() {
    t.kind = SourceKind::Sysfs;
    t.tree = TreeStyle::Ports;
    t.source = "hand-built";
  }

  int host(const std::string& label, int numa, const std::string& cpus = "") {
    PciNode n;
    n.kind = PciNode::Kind::HostBridge;
    n.label = label;
    n.locality.numa = numa;
    n.locality.cpus = cpus;
    return t.add_node(std::move(n));
  }

  int bridge(int parent, const std::string& bdf, uint16_t vendor = 0x8086, uint16_t device = 0x347a,
             uint16_t sub_vendor = 0, uint16_t sub_device = 0) {
    PciNode n = node(parent, bdf, 0x060400);
    n.kind = PciNode::Kind::Bridge;
    n.vendor = vendor;
    n.device = device;
    n.subsystem_vendor = sub_vendor;
    n.subsystem_device = sub_device;
    return t.add_node(std::move(n));
  }

  int gpu(int parent, const std::string& bdf) {
    int idx = t.add_node(node(parent, bdf, 0x030200));
    add(idx, DeviceRole::Gpu, "GPU", "");
    return idx;
  }

  int nic(int parent, const std::string& bdf, const std::string& name) {
    int idx = t.add_node(node(parent, bdf, 0x020700));
    add(idx, DeviceRole::Nic, "NIC", name);
    return idx;
  }

  Topology t;

 private:
  static PciNode node(int parent, const std::string& bdf, uint32_t cls) {
    PciNode n;
    n.parent = parent;
    n.address = PciAddress::parse(bdf);
    n.ids_known = true;
    n.pci_class = cls;
    return n;
  }

  void add(int idx, DeviceRole role, const std::string& prefix, const std::string& name) {
    Endpoint e;
    e.role = role;
    e.id = prefix + std::to_string(t.with_role(role).size());
    e.name = name.empty() ? t.nodes[idx].address->str() : name;
    e.address = t.nodes[idx].address;
    e.node = idx;
    e.locality = t.locality_of(idx);
    t.endpoints.push_back(std::move(e));
  }
};

void expect_ports_pair(const Topology& t, SmiPath smi, NcclPath nccl, NcclViewOptions options = {}) {
  Topology v = nccl_view(t, options);
  EXPECT_EQ(v.tree, TreeStyle::Switches);
  expect_pair(t, v, *t.find("GPU0"), *t.find("NIC0"), smi, nccl);
}

TEST(NcclViewPorts, DeviceUnderRootPortHangsOffCpu) {
  PortsTree p;
  int h = p.host("pci0000:00", 0, "0-31");
  p.gpu(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(h, "0000:00:02.0"), "0000:02:00.0", "mlx5_0");
  p.t.numa_count = 1;
  expect_ports_pair(p.t, SmiPath::PHB, NcclPath::PHB);
  Topology v = nccl_view(p.t);
  const Endpoint& g = *v.find("GPU0");
  const PciNode& cpu = v.nodes[v.nodes[g.node].parent];
  EXPECT_EQ(cpu.kind, PciNode::Kind::Cpu);
  EXPECT_EQ(cpu.label, "CPU0");
  EXPECT_EQ(cpu.locality.cpus, "0-31");
  EXPECT_EQ(v.nodes.size(), 3u);  // CPU0, GPU, NIC: root ports are not NCCL nodes here
}

TEST(NcclViewPorts, DownstreamPortsOfOneSwitchGivePix) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int usp = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.gpu(p.bridge(usp, "0000:02:00.0"), "0000:03:00.0");
  p.nic(p.bridge(usp, "0000:02:01.0"), "0000:04:00.0", "mlx5_0");
  expect_ports_pair(p.t, SmiPath::PIX, NcclPath::PIX);
  Topology v = nccl_view(p.t);
  const PciNode& sw = v.nodes[v.nodes[v.find("GPU0")->node].parent];
  EXPECT_EQ(sw.address->str(), "0000:01:00.0");  // the upstream port stands for the switch
  EXPECT_EQ(sw.kind, PciNode::Kind::Bridge);
  EXPECT_EQ(sw.device, 0x347a);
  EXPECT_EQ(v.nodes[sw.parent].kind, PciNode::Kind::Cpu);
}

TEST(NcclViewPorts, TwoLevelSwitchesGivePxb) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int usp1 = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  int usp2 = p.bridge(p.bridge(usp1, "0000:02:00.0"), "0000:03:00.0");
  p.gpu(p.bridge(usp2, "0000:04:00.0"), "0000:05:00.0");
  p.nic(p.bridge(usp1, "0000:02:01.0"), "0000:06:00.0", "mlx5_0");
  expect_ports_pair(p.t, SmiPath::PXB, NcclPath::PXB);
}

TEST(NcclViewPorts, ExtraBridgeAboveSwitchKeepsPix) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int extra = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  int usp = p.bridge(extra, "0000:02:00.0");
  p.gpu(p.bridge(usp, "0000:03:00.0"), "0000:04:00.0");
  p.nic(p.bridge(usp, "0000:03:01.0"), "0000:05:00.0", "mlx5_0");
  expect_ports_pair(p.t, SmiPath::PIX, NcclPath::PIX);
}

// One single-child bridge between a downstream port and the GPU shifts
// NCCL's two-level pairing: the GPU's NCCL parent becomes the downstream
// port, whose parent is the root port, while the NIC's parent (the upstream
// port) hangs off the CPU. nvidia-smi still sees one shared switch.
TEST(NcclViewPorts, SingleChildBridgeShiftsPairing) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int usp = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  int dsp1 = p.bridge(usp, "0000:02:00.0");
  p.gpu(p.bridge(dsp1, "0000:03:00.0"), "0000:04:00.0");
  p.nic(p.bridge(usp, "0000:02:01.0"), "0000:05:00.0", "mlx5_0");
  expect_ports_pair(p.t, SmiPath::PXB, NcclPath::PHB);
  Topology v = nccl_view(p.t);
  const PciNode& gp = v.nodes[v.nodes[v.find("GPU0")->node].parent];
  EXPECT_EQ(gp.address->str(), "0000:02:00.0");
  EXPECT_EQ(v.nodes[gp.parent].address->str(), "0000:00:01.0");
}

// OCI BM.GPU.H100.8 as sysfs shows it: a Broadcom PEX89000 upstream port
// (subsystem 0x0072) with virtual sub-switches (subsystem 0x1003) below.
PortsTree broadcom_tree(uint16_t sub_vendor) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int rp = p.bridge(h, "0000:00:01.0");
  int usp = p.bridge(rp, "0000:08:00.0", 0x1000, 0xc030, sub_vendor, 0x0072);
  int dsp_a = p.bridge(usp, "0000:09:00.0", 0x1000, 0xc030, sub_vendor, 0x0072);
  int dsp_b = p.bridge(usp, "0000:09:01.0", 0x1000, 0xc030, sub_vendor, 0x0072);
  int sub_a = p.bridge(dsp_a, "0000:0a:00.0", 0x1000, 0xc030, sub_vendor, 0x1003);
  int sub_b = p.bridge(dsp_b, "0000:0d:00.0", 0x1000, 0xc030, sub_vendor, 0x1003);
  p.nic(p.bridge(sub_a, "0000:0b:00.0", 0x1000, 0xc030, sub_vendor, 0x1003), "0000:0c:00.0", "mlx5_0");
  p.gpu(p.bridge(sub_b, "0000:0e:00.0", 0x1000, 0xc030, sub_vendor, 0x1003), "0000:0f:00.0");
  return p;
}

TEST(NcclViewPorts, BroadcomGen5SubSwitchesFlattened) {
  PortsTree p = broadcom_tree(0x1000);
  expect_ports_pair(p.t, SmiPath::PXB, NcclPath::PIX);
  expect_ports_pair(p.t, SmiPath::PXB, NcclPath::PXB, NcclViewOptions{.flatten_bcm = false});
  Topology v = nccl_view(p.t);
  EXPECT_EQ(v.nodes.size(), 4u);  // CPU0, switch 08, NIC, GPU
  EXPECT_EQ(v.nodes[v.nodes[v.find("GPU0")->node].parent].address->str(), "0000:08:00.0");
}

TEST(NcclViewPorts, NonBroadcomSubsystemNotFlattened) {
  PortsTree p = broadcom_tree(0x1028);  // Dell-branded board: not Broadcom's subsystem id
  expect_ports_pair(p.t, SmiPath::PXB, NcclPath::PXB);
  Topology v = nccl_view(p.t);
  for (const auto& note : v.notes) EXPECT_EQ(note.find("Broadcom"), std::string::npos) << note;
}

TEST(NcclViewSwitches, BroadcomGen4SameIdAtBothLevels) {
  std::string xml = R"(<system version="1"><cpu numaid="0">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064">
      <pci busid="0000:11:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064">
        <pci busid="0000:12:00.0" class="0x030200"><gpu dev="0" sm="80" rank="0" gdr="1"/></pci>
      </pci>
      <pci busid="0000:13:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064">
        <pci busid="0000:14:00.0" class="0x020700"><nic><net name="mlx5_0" dev="0"/></nic></pci>
      </pci>
    </pci></cpu></system>)";
  Topology t = read_nccl_xml(xml, "gen4.xml");
  expect_pair(t, nccl_view(t), *t.find("GPU0"), *t.find("NIC0"), SmiPath::PXB, NcclPath::PIX);
}

TEST(NcclViewSwitches, Gen5ParentMustHaveParentLevelSubsystem) {
  // Both levels say 0x1xxx: NCCL does not take the top one for a parent switch.
  std::string xml = R"(<system version="1"><cpu numaid="0">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x1003">
      <pci busid="0000:11:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x1003">
        <pci busid="0000:12:00.0" class="0x030200"/>
      </pci>
      <pci busid="0000:13:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x1003">
        <pci busid="0000:14:00.0" class="0x020700"/>
      </pci>
    </pci></cpu></system>)";
  Topology t = read_nccl_xml(xml, "gen5.xml");
  expect_pair(t, nccl_view(t), *t.find("GPU0"), *t.find("NIC0"), SmiPath::PXB, NcclPath::PXB);
}

TEST(NcclViewPorts, UnknownNumaDevicesShareCpuMinusOne) {
  PortsTree p;
  p.gpu(p.bridge(p.host("pci0000:00", -1), "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(p.host("pci0000:80", -1), "0000:80:01.0"), "0000:81:00.0", "mlx5_0");
  // nvidia-smi's rule cannot tell NODE from SYS; NCCL puts both on CPU -1.
  expect_ports_pair(p.t, SmiPath::Unknown, NcclPath::PHB);
  Topology v = nccl_view(p.t);
  EXPECT_EQ(v.nodes[v.nodes[v.find("GPU0")->node].parent].label, "CPU-1");
  bool noted = false;
  for (const auto& n : v.notes) noted |= n.find("numa_node -1") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(NcclViewPorts, UnknownAgainstKnownNumaIsSysAndSaysSo) {
  PortsTree p;
  p.gpu(p.bridge(p.host("pci0000:00", -1), "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(p.host("pci0000:80", 1), "0000:80:01.0"), "0000:81:00.0", "mlx5_0");
  Topology v = nccl_view(p.t);
  NcclClass c = nccl_class(v, *v.find("GPU0"), *v.find("NIC0"));
  EXPECT_EQ(c.path, NcclPath::SYS);
  EXPECT_NE(c.why.find("CPU-1 (NUMA node unknown"), std::string::npos) << c.why;
}

TEST(NcclViewPorts, TwoHostBridgesOnOneNumaNodeArePhb) {
  PortsTree p;
  p.gpu(p.bridge(p.host("pci0000:00", 0), "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(p.host("pci0000:40", 0), "0000:40:01.0"), "0000:41:00.0", "mlx5_0");
  p.t.numa_count = 2;
  expect_ports_pair(p.t, SmiPath::NODE, NcclPath::PHB);
}

TEST(NcclViewPorts, DifferentNumaNodesAreSys) {
  PortsTree p;
  p.gpu(p.bridge(p.host("pci0000:00", 0), "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(p.host("pci0000:80", 1), "0000:80:01.0"), "0000:81:00.0", "mlx5_0");
  p.t.numa_count = 2;
  expect_ports_pair(p.t, SmiPath::SYS, NcclPath::SYS);
}

TEST(NcclViewPorts, NicFunctionsClassifyIdentically) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int usp = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.gpu(p.bridge(usp, "0000:02:00.0"), "0000:03:00.0");
  int dsp = p.bridge(usp, "0000:02:01.0");
  p.nic(dsp, "0000:04:00.1", "mlx5_1");
  p.nic(dsp, "0000:04:00.0", "mlx5_0");
  Topology v = nccl_view(p.t);
  const Endpoint& port1 = *v.find("NIC0");
  const Endpoint& port0 = *v.find("NIC1");
  EXPECT_EQ(port1.name, "mlx5_1");
  EXPECT_EQ(port1.node, port0.node);  // merged onto function 0, like NCCL
  EXPECT_EQ(v.nodes[port0.node].address->str(), "0000:04:00.0");
  EXPECT_EQ(port1.address->str(), "0000:04:00.1");  // endpoint keeps its own address
  EXPECT_EQ(nccl_class(v, port0, port1).path, NcclPath::LOC);
  const Endpoint& g = *v.find("GPU0");
  EXPECT_EQ(nccl_class(v, g, port0).path, NcclPath::PIX);
  EXPECT_EQ(nccl_class(v, g, port1).path, NcclPath::PIX);
}

TEST(NcclViewPorts, EndpointsKeepIdsAndFields) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  p.gpu(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.t.endpoints[0].attributes["driver"] = "nvidia";
  p.t.notes.push_back("from the reader");
  Topology v = nccl_view(p.t);
  ASSERT_EQ(v.endpoints.size(), 1u);
  EXPECT_EQ(v.endpoints[0].id, "GPU0");
  EXPECT_EQ(v.endpoints[0].attributes.at("driver"), "nvidia");
  EXPECT_EQ(v.nodes[v.endpoints[0].node].address->str(), "0000:01:00.0");
  EXPECT_EQ(v.kind, SourceKind::Sysfs);
  EXPECT_EQ(v.notes.front(), "from the reader");
}

TEST(NcclViewSwitches, SwitchTreeIsCopied) {
  Loaded l = load("azhpc-images/ndv5-topo.xml");
  EXPECT_EQ(l.v.nodes.size(), l.t.nodes.size());
  for (std::size_t i = 0; i < l.t.endpoints.size(); ++i) EXPECT_EQ(l.v.endpoints[i].node, l.t.endpoints[i].node);
}

TEST(NcclViewClass, SameEndpointIsLoc) {
  Loaded l = load("azhpc-images/ndv5-topo.xml");
  const Endpoint& g = *l.v.find("GPU0");
  EXPECT_EQ(nccl_class(l.v, g, g).path, NcclPath::LOC);
}

TEST(NcclViewClass, NoTreeIsUnknown) {
  Topology t;
  t.tree = TreeStyle::None;
  t.kind = SourceKind::SmiText;
  Endpoint a, b;
  a.id = "GPU0";
  a.role = DeviceRole::Gpu;
  b.id = "NIC0";
  b.role = DeviceRole::Nic;
  t.endpoints = {a, b};
  Topology v = nccl_view(t);
  EXPECT_EQ(v.tree, TreeStyle::None);
  EXPECT_EQ(nccl_class(v, v.endpoints[0], v.endpoints[1]).path, NcclPath::Unknown);
}

TEST(NcclViewClass, PortsTreeNeedsTheViewFirst) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  p.gpu(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.nic(p.bridge(h, "0000:00:02.0"), "0000:02:00.0", "mlx5_0");
  EXPECT_EQ(nccl_class(p.t, *p.t.find("GPU0"), *p.t.find("NIC0")).path, NcclPath::Unknown);
}

// An unproven endpoint keeps its reason through the view, and every PCIe
// pair with it is Unknown with that reason; proven pairs keep their type.
TEST(NcclViewClass, UnprovenPathIsUnknownWithTheReason) {
  PortsTree p;
  int h = p.host("pci0000:00", 0);
  int sw = p.bridge(p.bridge(h, "0000:00:01.0"), "0000:01:00.0");
  p.gpu(p.bridge(sw, "0000:02:00.0"), "0000:03:00.0");
  p.nic(p.bridge(sw, "0000:02:01.0"), "0000:04:00.0", "mlx5_0");
  p.nic(p.bridge(sw, "0000:02:02.0"), "0000:05:00.0", "mlx5_1");
  p.t.numa_count = 1;
  const std::string why =
      "PCIe path of NIC1 (0000:05:00.0) not proven: /sys/bus/pci/devices/0000:02:02.0/config: not found";
  p.t.endpoints[2].path_unproven = why;
  Topology v = nccl_view(p.t);
  EXPECT_EQ(v.find("NIC1")->path_unproven, why);
  NcclClass c = nccl_class(v, *v.find("GPU0"), *v.find("NIC1"));
  EXPECT_EQ(c.path, NcclPath::Unknown);
  EXPECT_EQ(c.why, why);
  EXPECT_EQ(nccl_class(v, *v.find("NIC1"), *v.find("NIC1")).path, NcclPath::LOC);
  EXPECT_EQ(nccl_class(v, *v.find("GPU0"), *v.find("NIC0")).path, NcclPath::PIX);
}

TEST(NcclViewClass, WhyNamesTheSwitchOrCpu) {
  Loaded l = load("oci-hpc/H100-topology.xml");
  NcclClass pix = nccl_class(l.v, *l.v.find("GPU0"), *l.v.find("NIC0"));
  EXPECT_NE(pix.why.find("0000:08:00.0"), std::string::npos) << pix.why;
  NcclClass phb = nccl_class(l.v, *l.v.find("GPU0"), *l.v.find("NIC2"));
  EXPECT_NE(phb.why.find("CPU0"), std::string::npos) << phb.why;
  NcclClass sys = nccl_class(l.v, *l.v.find("GPU0"), *l.v.find("NIC15"));
  EXPECT_NE(sys.why.find("CPU0 and CPU1"), std::string::npos) << sys.why;
}

}  // namespace
}  // namespace gdrcheck

// The NCCL topology XML reader on the recorded fixtures (tests/data/recorded,
// README section C) and on broken input.
#include "topology/nccl_xml_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "topology/input_error.h"

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

std::string recorded_text(const std::string& rel) {
  return testing::read_test_data("recorded/" + rel);
}

Topology load_nccl_xml(const std::string& rel) {
  return read_nccl_xml(recorded_text(rel), rel);
}

const Endpoint& endpoint_named(const Topology& t, const std::string& name) {
  for (const auto& e : t.endpoints)
    if (e.name == name) return e;
  ADD_FAILURE() << "no endpoint named " << name;
  static Endpoint none;
  return none;
}

// Runs the reader and returns the InputError's problem ("" if none thrown).
std::string nccl_xml_problem(const std::string& text, const std::string& source = "in.xml") {
  try {
    read_nccl_xml(text, source);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), source);
    EXPECT_NE(std::string(e.what()).find(source), std::string::npos);
    return e.problem();
  }
  return "";
}

TEST(NcclXmlReader, OciH100Structure) {
  Topology t = load_nccl_xml("oci-hpc/H100-topology.xml");
  EXPECT_EQ(t.kind, SourceKind::NcclXml);
  EXPECT_EQ(t.tree, TreeStyle::Switches);
  EXPECT_EQ(t.source, "oci-hpc/H100-topology.xml");
  EXPECT_EQ(t.numa_count, 2);
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 16u);
  EXPECT_TRUE(t.with_role(DeviceRole::NvSwitch).empty());
  // 2 CPUs + 8 × (USP + 2 sub-switches + GPU + NIC).
  EXPECT_EQ(t.nodes.size(), 2u + 8u * 5u);
}

TEST(NcclXmlReader, CpuNodesCarryNumaAndCpuList) {
  Topology t = load_nccl_xml("oci-hpc/H100-topology.xml");
  ASSERT_EQ(t.nodes[0].kind, PciNode::Kind::Cpu);
  EXPECT_EQ(t.nodes[0].label, "CPU0");
  EXPECT_EQ(t.nodes[0].parent, -1);
  EXPECT_EQ(t.nodes[0].locality.numa, 0);
  // words from the right: ffffffff, 00ffffff, 0, ffff0000, ffffffff, 000000ff
  EXPECT_EQ(t.nodes[0].locality.cpus, "0-55,112-167");
  Topology ndv2 = load_nccl_xml("azhpc-images/ndv2-topo.xml");
  EXPECT_EQ(ndv2.nodes[0].locality.cpus, "0-19");
  EXPECT_EQ(ndv2.find("GPU4")->locality.cpus, "20-39");
  EXPECT_EQ(ndv2.find("GPU4")->locality.numa, 1);
}

TEST(NcclXmlReader, ShortAffinityWordIsAccepted) {
  // topo-flattened-b4 numaid 7 writes "fff0000" (7 digits) for its top word.
  Topology t = load_nccl_xml("oci-hpc/topo-flattened-b4.xml");
  EXPECT_EQ(t.numa_count, 4);
  const PciNode* cpu7 = nullptr;
  for (const auto& n : t.nodes)
    if (n.label == "CPU7") cpu7 = &n;
  ASSERT_NE(cpu7, nullptr);
  EXPECT_EQ(cpu7->locality.cpus, "112-127,240-251");
}

TEST(NcclXmlReader, BroadcomSwitchNodesKeepTheirIds) {
  Topology t = load_nccl_xml("oci-hpc/H100-topology.xml");
  const PciNode& usp = t.nodes[1];
  EXPECT_EQ(usp.kind, PciNode::Kind::Bridge);
  EXPECT_EQ(usp.address->str(), "0000:08:00.0");
  EXPECT_TRUE(usp.ids_known);
  EXPECT_EQ(usp.vendor, 0x1000);
  EXPECT_EQ(usp.device, 0xc030);
  EXPECT_EQ(usp.subsystem_vendor, 0x1000);
  EXPECT_EQ(usp.subsystem_device, 0x0072);
  EXPECT_EQ(usp.pci_class, 0x060400u);
  EXPECT_DOUBLE_EQ(*usp.link.max_gts, 5.0);
  EXPECT_EQ(*usp.link.max_width, 16);
  EXPECT_EQ(t.nodes[2].subsystem_device, 0x1003);
}

TEST(NcclXmlReader, GpuAttributesAndNvlinks) {
  Topology t = load_nccl_xml("oci-hpc/H100-topology.xml");
  const Endpoint& g = *t.find("GPU0");
  EXPECT_EQ(g.address->str(), "0000:0f:00.0");
  EXPECT_EQ(g.attributes.at("dev"), "0");
  EXPECT_EQ(g.attributes.at("sm"), "90");
  EXPECT_EQ(g.attributes.at("rank"), "0");
  EXPECT_EQ(g.attributes.at("gdr"), "1");
  ASSERT_EQ(g.nvlinks.size(), 4u);
  EXPECT_EQ(g.nvlinks[0].target, "0000:1c:00.0");
  EXPECT_EQ(g.nvlinks[0].count, 5);
  EXPECT_EQ(g.nvlinks[0].target_class, 0x068000u);
  EXPECT_NE(g.model.find("H100"), std::string::npos);  // named from pci.ids
  EXPECT_EQ(t.nodes[g.node].device, 0x2330);
  EXPECT_EQ(t.find("GPU7")->address->str(), "0000:d8:00.0");
}

TEST(NcclXmlReader, OneNicEndpointPerNetInDevOrder) {
  Topology t = load_nccl_xml("oci-hpc/H100-topology.xml");
  const Endpoint& n0 = *t.find("NIC0");
  const Endpoint& n1 = *t.find("NIC1");
  EXPECT_EQ(n0.name, "mlx5_0");
  EXPECT_EQ(n1.name, "mlx5_1");
  EXPECT_EQ(n0.node, n1.node);  // two ports of one ConnectX-7
  EXPECT_EQ(n0.address->str(), "0000:0c:00.0");
  EXPECT_EQ(n1.attributes.at("port"), "2");
  EXPECT_EQ(n0.attributes.at("speed"), "180000");
  EXPECT_EQ(n0.attributes.at("guid"), "0x9a70500003ae6d94");
  EXPECT_EQ(n0.attributes.at("maxconn"), "131072");
  EXPECT_EQ(n0.attributes.at("latency"), "0.000000");
  EXPECT_EQ(n0.attributes.at("gdr"), "1");
  EXPECT_EQ(t.find("NIC15")->name, "mlx5_17");
  EXPECT_TRUE(n0.rdma_device);
}

TEST(NcclXmlReader, NicIdsFollowNcclDevNotFileOrder) {
  // The IBM dump lists mlx5_7 (dev 7) first.
  Topology t = load_nccl_xml("ibm-cloud-docs/gx3d-160x1792x8h100-topo.xml");
  EXPECT_EQ(t.find("NIC0")->name, "mlx5_0");
  EXPECT_EQ(t.find("NIC0")->address->str(), "0000:e9:00.0");
  EXPECT_EQ(t.find("NIC7")->name, "mlx5_7");
  EXPECT_EQ(t.find("GPU0")->address->str(), "0000:a4:00.0");
  // link_width="0" is NCCL's "unknown".
  EXPECT_FALSE(t.nodes[t.find("GPU0")->node].link.max_width.has_value());
  EXPECT_DOUBLE_EQ(*t.nodes[t.find("GPU0")->node].link.max_gts, 32.0);
}

TEST(NcclXmlReader, ClassOnlyDevicesBecomeEndpoints) {
  Topology t = load_nccl_xml("azhpc-images/ndv2-topo.xml");
  ASSERT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  ASSERT_EQ(t.with_role(DeviceRole::Nic).size(), 1u);
  EXPECT_EQ(t.find("GPU0")->address->str(), "0001:00:00.0");
  EXPECT_EQ(t.find("GPU7")->address->str(), "0008:00:00.0");
  const Endpoint& nic = *t.find("NIC0");
  EXPECT_EQ(nic.name, "0101:00:00.0");
  EXPECT_FALSE(t.nodes[nic.node].ids_known);
  EXPECT_EQ(t.nodes[nic.node].pci_class, 0x020700u);
  EXPECT_DOUBLE_EQ(*t.nodes[nic.node].link.max_gts, 16.0);
  EXPECT_TRUE(has_note(t, "found by PCI class"));
}

TEST(NcclXmlReader, AzureFakeBridgesAndDomains) {
  Topology t = load_nccl_xml("azhpc-images/ndv4-topo.xml");
  const Endpoint& g = *t.find("GPU0");
  EXPECT_EQ(g.address->str(), "0001:00:00.0");
  const PciNode& sw = t.nodes[t.nodes[g.node].parent];
  EXPECT_EQ(sw.kind, PciNode::Kind::Bridge);
  EXPECT_EQ(sw.address->str(), "ffff:ff:02.0");
  EXPECT_EQ(t.nodes[sw.parent].label, "CPU1");
  EXPECT_EQ(t.numa_count, 4);
  // NICs without <net> are numbered by bus id.
  EXPECT_EQ(t.find("NIC0")->name, "0101:00:00.0");
  EXPECT_EQ(t.find("NIC7")->name, "0108:00:00.0");
}

TEST(NcclXmlReader, Ncv4EthernetHangsOffTheCpu) {
  Topology t = load_nccl_xml("azhpc-images/ncv4-topo.xml");
  ASSERT_EQ(t.with_role(DeviceRole::Nic).size(), 1u);
  const Endpoint& eth = *t.find("NIC0");
  EXPECT_EQ(eth.name, "eth0");
  EXPECT_FALSE(eth.address.has_value());
  EXPECT_EQ(t.nodes[eth.node].kind, PciNode::Kind::Cpu);
  EXPECT_EQ(t.nodes[eth.node].label, "CPU0");
  EXPECT_FALSE(eth.rdma_device);
  EXPECT_EQ(eth.attributes.at("gdr"), "0");
  EXPECT_TRUE(has_note(t, "eth0 has no PCI device"));
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 4u);
  EXPECT_FALSE(t.nodes[t.find("GPU0")->node].link.max_gts.has_value());  // link_speed=""
}

TEST(NcclXmlReader, P5DevicesWithoutIdentity) {
  Topology t = load_nccl_xml("aws-ofi-nccl/p5.48xl-topo.xml");
  EXPECT_TRUE(t.endpoints.empty());
  EXPECT_EQ(t.numa_count, 2);
  EXPECT_TRUE(has_note(t, "32 PCI devices without class or vendor: identity unknown"));
  EXPECT_TRUE(has_note(t, "8 <pci> elements without class"));
  int bridges = 0, devices = 0;
  for (const auto& n : t.nodes) {
    bridges += n.kind == PciNode::Kind::Bridge;
    devices += n.kind == PciNode::Kind::Device;
  }
  EXPECT_EQ(bridges, 8);
  EXPECT_EQ(devices, 32);
  // "32 GT/s PCIe/s" still gives the rate.
  EXPECT_DOUBLE_EQ(*t.nodes[2].link.max_gts, 32.0);
}

TEST(NcclXmlReader, G5BarePciEntries) {
  Topology t = load_nccl_xml("aws-ofi-nccl/g5.48xl-topo.xml");
  EXPECT_TRUE(t.endpoints.empty());
  EXPECT_EQ(t.nodes.size(), 2u + 9u);
  EXPECT_TRUE(has_note(t, "9 PCI devices without class or vendor"));
}

TEST(NcclXmlReader, P4dEfaNics) {
  Topology t = load_nccl_xml("aws-ofi-nccl/p4d-24xl-topo.xml");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  ASSERT_EQ(t.with_role(DeviceRole::Nic).size(), 4u);
  const Endpoint& efa = *t.find("NIC0");
  EXPECT_EQ(efa.name, "0000:10:1b.0");
  EXPECT_EQ(t.nodes[efa.node].vendor, 0x1d0f);
  EXPECT_EQ(t.nodes[efa.node].device, 0xefa0);
  EXPECT_TRUE(t.nodes[efa.node].ids_known);
  EXPECT_DOUBLE_EQ(*t.nodes[efa.node].link.max_gts, 8.0);
}

TEST(NcclXmlReader, GdrAttributeIsKept) {
  std::string xml = R"(<system version="1"><cpu numaid="0">
    <pci busid="0000:17:00.0" class="0x030200" vendor="0x10de" device="0x2330"><gpu dev="0" sm="90" rank="0" gdr="0"/></pci>
    <pci busid="0000:18:00.0" class="0x020700"><nic><net name="mlx5_0" dev="0" gdr="0"/></nic></pci>
  </cpu></system>)";
  Topology t = read_nccl_xml(xml, "t.xml");
  EXPECT_EQ(t.find("GPU0")->attributes.at("gdr"), "0");
  EXPECT_EQ(endpoint_named(t, "mlx5_0").attributes.at("gdr"), "0");
}

TEST(NcclXmlReader, NvSwitchByClass) {
  std::string xml = R"(<system version="1"><cpu numaid="0">
    <pci busid="0000:05:00.0" class="0x068000" vendor="0x10de" device="0x22a3"/>
    <pci busid="0000:04:00.0" class="0x068000" vendor="0x10de" device="0x22a3"/>
  </cpu></system>)";
  Topology t = read_nccl_xml(xml, "t.xml");
  ASSERT_EQ(t.with_role(DeviceRole::NvSwitch).size(), 2u);
  EXPECT_EQ(t.find("NVS0")->address->str(), "0000:04:00.0");
}

TEST(NcclXmlReader, DataDirectClassIsASwitch) {
  std::string xml = R"(<system version="1"><cpu numaid="0">
    <pci busid="0000:17:00.0" class="0x080100">
      <pci busid="0000:18:00.0" class="0x020000"><nic><net name="mlx5_0" dev="0"/></nic></pci>
    </pci></cpu></system>)";
  Topology t = read_nccl_xml(xml, "t.xml");
  EXPECT_EQ(t.nodes[1].kind, PciNode::Kind::Bridge);
}

TEST(NcclXmlReader, OddAttributesDoNotThrow) {
  std::string xml = R"(<system version="1"><cpu numaid="x" affinity="zz,1">
    <pci busid="garbage" class="0xZZ" vendor="0x123456" link_speed="fast" link_width="-3">
      <gpu dev="a" sm=""><nvlink target="" count="-1" tclass="q"/></gpu>
    </pci>
    <nic><net/></nic>
    <foo/>
  </cpu><bar/></system>)";
  Topology t = read_nccl_xml(xml, "t.xml");
  EXPECT_EQ(t.nodes[0].locality.numa, -1);
  EXPECT_TRUE(t.nodes[0].locality.cpus.empty());
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 1u);
  EXPECT_EQ(t.find("GPU0")->nvlinks[0].count, 0);
  EXPECT_FALSE(t.nodes[1].address.has_value());
  EXPECT_FALSE(t.nodes[1].ids_known);
  EXPECT_TRUE(has_note(t, "not a PCI address"));
  EXPECT_TRUE(has_note(t, "ignored <bar> under <system>"));
  EXPECT_TRUE(has_note(t, "no usable numaid"));
}

TEST(NcclXmlReader, LooksLikeNcclXml) {
  EXPECT_TRUE(looks_like_nccl_xml(recorded_text("aws-ofi-nccl/p4d-24xl-topo.xml")));  // leading comment
  EXPECT_TRUE(looks_like_nccl_xml(recorded_text("oci-hpc/H100-topology.xml")));       // leading blank line
  EXPECT_TRUE(looks_like_nccl_xml("<?xml version=\"1.0\"?>\n<system version=\"1\"/>"));
  EXPECT_TRUE(looks_like_nccl_xml("<system>"));
  EXPECT_FALSE(looks_like_nccl_xml(recorded_text("hwloc/xml/24em64t-2n6c2t-pci.xml")));
  EXPECT_FALSE(looks_like_nccl_xml("<systemx version=\"1\">"));
  EXPECT_FALSE(looks_like_nccl_xml("<system"));
  EXPECT_FALSE(looks_like_nccl_xml(""));
  EXPECT_FALSE(looks_like_nccl_xml("<!-- never closed <system>"));
  EXPECT_FALSE(looks_like_nccl_xml("GPU0 X NV12"));
}

TEST(NcclXmlErrors, Truncated) {
  std::string text = recorded_text("oci-hpc/H100-topology.xml");
  std::string p = nccl_xml_problem(text.substr(0, text.size() / 2), "H100-half.xml");
  EXPECT_NE(p.find("malformed XML"), std::string::npos) << p;
  EXPECT_NE(p.find("at byte"), std::string::npos) << p;
  EXPECT_NE(p.find("truncated file?"), std::string::npos) << p;
}

TEST(NcclXmlErrors, HwlocXmlGivenToNcclReader) {
  std::string p = nccl_xml_problem(recorded_text("hwloc/xml/24em64t-2n6c2t-pci.xml"), "lstopo.xml");
  EXPECT_NE(p.find("this is hwloc XML (<topology>)"), std::string::npos) << p;
}

TEST(NcclXmlErrors, BinaryBytes) {
  std::string bin(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00<system>",
      17);
  std::string p = nccl_xml_problem(bin, "a.out");
  EXPECT_NE(p.find("binary data (NUL byte at offset 7)"), std::string::npos) << p;
  std::string high = "\xff\xfe\x80\x81<<<";
  EXPECT_FALSE(nccl_xml_problem(high, "junk.bin").empty());
}

TEST(NcclXmlErrors, Empty) {
  EXPECT_NE(nccl_xml_problem("", "empty.xml").find("empty file"), std::string::npos);
  EXPECT_NE(nccl_xml_problem("  \n\t ", "blank.xml").find("empty file"), std::string::npos);
}

TEST(NcclXmlErrors, WrongRootAndVersion) {
  EXPECT_NE(nccl_xml_problem("<graphs version=\"1\"/>").find("NCCL graph file"), std::string::npos);
  EXPECT_NE(nccl_xml_problem("<root/>").find("root element is <root>"), std::string::npos);
  EXPECT_NE(nccl_xml_problem("<system version=\"2\"/>").find("version 2 is RCCL's format"), std::string::npos);
  EXPECT_NE(nccl_xml_problem("<system/>").find("no version attribute"), std::string::npos);
  EXPECT_NE(nccl_xml_problem("<!-- only a comment -->").find("no XML element"), std::string::npos);
  EXPECT_EQ(nccl_xml_problem("<system version=\"1\"/>"), "");
}

TEST(NcclXmlErrors, DeepNestingIsRefused) {
  std::string xml = "<system version=\"1\"><cpu numaid=\"0\">";
  for (int i = 0; i < 200; ++i) xml += "<pci busid=\"0000:00:00.0\">";
  for (int i = 0; i < 200; ++i) xml += "</pci>";
  xml += "</cpu></system>";
  EXPECT_NE(nccl_xml_problem(xml).find("nested deeper"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

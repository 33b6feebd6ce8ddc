// The planner's summary of `node --topo`: per GPU, GDR or not, why, and the
// smallest change; a suggested move must really fix what it is for.
#include "checks/placement_plan.h"

#include <gtest/gtest.h>

#include "checks/host_assumptions.h"
#include "host/host_state.h"
#include "recorded_fixtures.h"
#include "topology/nccl_xml_source.h"
#include "topology/topology_edit.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

using testing::oci_h100_xml;
using testing::test_data;

NodeReport judge_topology(Topology t, const std::vector<std::string>& assume = {"all=ok"}) {
  NodeOptions no;
  no.topology_file_only = parse_host_assumptions(assume);
  return build_node_report(std::move(t), topology_file_host_state(t.source, {}), no);
}

const PlanStep& step(const NodeReport& r, const std::string& gpu) {
  for (const auto& s : r.plan)
    if (s.gpu == gpu) return s;
  throw std::runtime_error("no plan step for " + gpu);
}

// One socket, two switches: GPU0 under one, the only NIC under the other
// (NCCL's PHB: beyond the default GDR level).
const char* kApartXml = R"(<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc010" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="89" rank="0" gdr="1"/>
      </pci>
    </pci>
    <pci busid="0000:20:00.0" class="0x060400" vendor="0x1000" device="0xc010" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:21:00.0" class="0x020700" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="200000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

TEST(PlacementPlan, SuggestedMoveIsOneThatGivesTheGpuGdr) {
  NodeReport r = judge_topology(read_nccl_xml(kApartXml, "apart.xml"));
  const PlanStep& s = step(r, "GPU0");
  EXPECT_FALSE(s.gets_gdr);
  EXPECT_NE(s.why_not.find("too far"), std::string::npos) << s.why_not;
  EXPECT_EQ(s.what_if, "move 0000:21:00.0 under 0000:10:00.0");
  EXPECT_NE(s.change.find("move mlx5_0 under 0000:10:00.0 (GPU0's switch)"), std::string::npos) << s.change;
  EXPECT_NE(s.change.find("NCCL_NET_GDR_LEVEL=PHB"), std::string::npos) << s.change;
  Topology moved = read_nccl_xml(kApartXml, "apart.xml");
  apply_moves(moved, parse_what_if_text(s.what_if));
  NodeReport after = judge_topology(std::move(moved));
  EXPECT_TRUE(step(after, "GPU0").gets_gdr) << step(after, "GPU0").why_not;
  EXPECT_EQ(step(after, "GPU0").how, "mlx5_0, PIX");
}

// A NIC that gives another GPU GDR is not moved away from it: a NIC is added.
TEST(PlacementPlan, ANicServingAnotherGpuIsNotTakenAway) {
  std::string xml = kApartXml;
  xml.replace(xml.find("    </pci>\n  </cpu>"), 0,
              "      <pci busid=\"0000:22:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x26b9\" "
              "link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n        <gpu dev=\"1\" sm=\"89\" rank=\"1\" "
              "gdr=\"1\"/>\n      </pci>\n");
  NodeReport r = judge_topology(read_nccl_xml(xml, "apart2.xml"));
  EXPECT_TRUE(step(r, "GPU1").gets_gdr);
  const PlanStep& s = step(r, "GPU0");
  EXPECT_FALSE(s.gets_gdr);
  EXPECT_EQ(s.what_if, "");
  EXPECT_NE(s.change.find("add a NIC under 0000:10:00.0"), std::string::npos) << s.change;
}

TEST(PlacementPlan, GoodServerNeedsNoChangeAndSaysHowEachGpuIsServed) {
  NodeReport r = judge_topology(
      load_topology_file(test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"), TopologyFileKind::Auto));
  ASSERT_EQ(r.plan.size(), 4u);
  for (const auto& s : r.plan) {
    EXPECT_TRUE(s.gets_gdr) << s.gpu;
    EXPECT_EQ(s.change, "") << s.gpu;
  }
  EXPECT_EQ(step(r, "GPU0").how, "mlx5_0, PIX");
  EXPECT_EQ(step(r, "GPU2").how, "through GPU0's NIC mlx5_0 (PXN)");
}

TEST(PlacementPlan, HostFactsStatedBadNameTheirFix) {
  NodeReport r = judge_topology(load_topology_file(oci_h100_xml(), TopologyFileKind::Auto), {"peermem=missing"});
  for (const auto& s : r.plan) {
    EXPECT_FALSE(s.gets_gdr) << s.gpu;
    EXPECT_NE(s.change.find("nvidia_peermem"), std::string::npos) << s.gpu << ": " << s.change;
  }
}

// A pasted matrix has no tree: the change says where, not under which bridge.
TEST(PlacementPlan, MatrixWithoutTreeSaysWhereInWords) {
  NodeReport r = judge_topology(
      load_topology_file(test_data("pairs/horovod-288-v100-1nic-sys-2.4.7/topology.txt"), TopologyFileKind::Auto));
  const PlanStep& s = step(r, "GPU1");
  EXPECT_FALSE(s.gets_gdr);
  EXPECT_EQ(s.what_if, "");
  EXPECT_EQ(s.change, "add a NIC next to GPU1 (a NIC PIX to it)");
}

TEST(PlacementPlan, OnlyForTopologyFiles) {
  Topology t = read_nccl_xml(kApartXml, "apart.xml");
  HostState h = topology_file_host_state("apart.xml", {});
  EXPECT_TRUE(build_node_report(std::move(t), h, {}).plan.empty());
}

}  // namespace
}  // namespace gdrcheck

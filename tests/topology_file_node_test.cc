// `node --topo FILE`: the node report from a topology file alone, on real
// files (tests/data/recorded/README.md and tests/data/pairs/PROVENANCE.md
// say where each comes from). Expectations were read off each file by hand:
// which NIC sits under which GPU's switch, and what NCCL decides from that.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "checks/host_assumptions.h"
#include "checks/node_report.h"
#include "host/host_state.h"
#include "node_checks.h"
#include "recorded_fixtures.h"
#include "topology/nccl_xml_source.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

using testing::test_data;

NodeReport judge(const std::string& file, const std::vector<std::string>& assume = {}, NodeOptions no = {}) {
  no.topology_file_only = parse_host_assumptions(assume);
  Topology t = load_topology_file(test_data(file), TopologyFileKind::Auto);
  return build_node_report(std::move(t), topology_file_host_state(file, {}), no);
}

bool any_check(const NodeReport& r, const std::string& check) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.check == check; });
}

// OCI BM.GPU.H100.8, NCCL's own dump: every GPU has a ConnectX-7 under its
// Broadcom switch, which NCCL flattens (Gen5, 2.20.3+) to PIX.
TEST(TopologyFileNode, EveryGpuWithItsOwnNicGetsGdrAndTheHostFactsAreOneUnknown) {
  NodeReport r = judge("recorded/oci-hpc/H100-topology.xml");
  ASSERT_EQ(r.pairs.size(), 8u);
  for (const auto& p : r.pairs) {
    EXPECT_EQ(p.nccl_path, "PIX") << p.gpu;
    EXPECT_EQ(p.gdr_send, GdrUse::Yes) << p.gpu;
    EXPECT_EQ(p.gdr_recv, GdrUse::Yes) << p.gpu;
    EXPECT_EQ(p.status, Status::Unknown) << p.gpu;  // the host facts are not known
  }
  EXPECT_EQ(testing::pair(r, "GPU0").nic_name, "mlx5_0");
  EXPECT_EQ(testing::pair(r, "GPU7").nic_name, "mlx5_16");
  EXPECT_TRUE(r.from_topology_file);
  EXPECT_EQ(r.host, "H100-topology.xml");
  EXPECT_EQ(r.status, Status::Unknown);
  const Finding* host = testing::find(r, "host", "host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->status, Status::Unknown);
  EXPECT_EQ(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.check == "host"; }), 1);
  for (const char* live_only : {"port", "peermem", "acs", "iommu", "link", "driver"})
    EXPECT_FALSE(any_check(r, live_only)) << live_only;
  EXPECT_NE(r.nccl.origin.find("not in a topology file"), std::string::npos) << r.nccl.origin;
}

TEST(TopologyFileNode, StatedHostFactsLeaveTheTopologysVerdict) {
  NodeReport r = judge("recorded/oci-hpc/H100-topology.xml", {"all=ok"});
  EXPECT_EQ(r.status, Status::Ok);
  for (const auto& p : r.pairs) EXPECT_TRUE(p.ready()) << p.gpu << " " << p.reason;
}

TEST(TopologyFileNode, PeerMemoryStatedMissingTurnsEveryGpuOff) {
  NodeReport r = judge("recorded/oci-hpc/H100-topology.xml", {"peermem=missing"});
  EXPECT_EQ(r.status, Status::Critical);
  for (const auto& p : r.pairs) {
    EXPECT_EQ(p.gdr_send, GdrUse::No) << p.gpu;
    EXPECT_EQ(p.gdr_recv, GdrUse::No) << p.gpu;
  }
  const GdrPrediction& p = testing::prediction(r, "GPU3");
  EXPECT_NE(std::find(p.causes.begin(), p.causes.end(), GdrCause::PeerMemory), p.causes.end());
  EXPECT_TRUE(testing::has_rule(p, "--assume peermem=missing"));
}

// Dell XE8640 (hwloc XML from flux-core): GPU0, GPU1 and GPU3 each have a
// PIX NIC; GPU2 has none (SYS to every NIC), so NCCL sends its traffic
// through an NVLink peer's NIC (PXN).
TEST(TopologyFileNode, HwlocXmlOfAServerWhereOneGpuHasNoNic) {
  NodeReport r = judge("recorded/flux/ipa20-dell-xe8640-4xH100.xml", {"all=ok"});
  EXPECT_EQ(testing::pair(r, "GPU0").path, "PIX");
  EXPECT_EQ(testing::pair(r, "GPU1").nic_name, "mlx5_2");
  EXPECT_EQ(testing::pair(r, "GPU3").nic_name, "mlx5_3");
  const PairVerdict& gpu2 = testing::pair(r, "GPU2");
  EXPECT_EQ(gpu2.path, "SYS");
  EXPECT_EQ(gpu2.nccl_path, "PXN");
  EXPECT_FALSE(testing::prediction(r, "GPU2").pxn_peer.empty());
}

// A pasted matrix (horovod #288): four V100s and one ConnectX SYS to all of
// them. No model in a matrix: the GPU finding says so once.
TEST(TopologyFileNode, PastedMatrixWithTheOnlyNicAcrossTheSocketsGetsNoGdr) {
  NodeReport r = judge("pairs/horovod-288-v100-1nic-sys-2.4.7/topology.txt", {"all=ok"});
  ASSERT_EQ(r.pairs.size(), 4u);
  for (const auto& p : r.pairs) {
    EXPECT_EQ(p.nic_name, "mlx5_0") << p.gpu;
    EXPECT_EQ(p.path, "SYS") << p.gpu;
    EXPECT_EQ(p.gdr_send, GdrUse::No) << p.gpu;
    EXPECT_EQ(p.gdr_recv, GdrUse::No) << p.gpu;
  }
  EXPECT_EQ(r.status, Status::Critical);
  const Finding* gpus = testing::find(r, "gpu", "host");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(gpus->status, Status::Unknown);
  EXPECT_NE(gpus->summary.find("4 GPUs without a model"), std::string::npos);
  const Finding* nic = testing::find(r, "nic", "mlx5_0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->status, Status::Ok);
}

// A GDR level allowing the system path turns it on: the setting is what a
// planner can change without moving hardware.
TEST(TopologyFileNode, EnvironmentSettingsApply) {
  NodeReport r = judge("pairs/horovod-288-v100-1nic-sys-2.4.7/topology.txt", {"all=ok"});
  NodeOptions no;
  no.topology_file_only = parse_host_assumptions({"all=ok"});
  HostReadOptions ro;
  ro.environment.push_back({"NCCL_NET_GDR_LEVEL", "SYS", "--env"});
  std::string file = "pairs/horovod-288-v100-1nic-sys-2.4.7/topology.txt";
  NodeReport set = build_node_report(load_topology_file(test_data(file), TopologyFileKind::Auto),
                                     topology_file_host_state(file, ro), no);
  EXPECT_EQ(testing::pair(r, "GPU0").gdr_recv, GdrUse::No);
  EXPECT_EQ(testing::pair(set, "GPU0").gdr_recv, GdrUse::Yes);
}

// NCCL's dump records its own verdict per NIC (gdr="0": no peer memory on
// the machine it was taken on). That record outweighs the default a
// topology file is judged with; a planner's statement outweighs the record.
TEST(TopologyFileNode, RecordedNicVerdictOutweighsTheDefaultNotAStatement) {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:08:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:0f:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:0c:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="0"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";
  auto judged = [&](const std::vector<std::string>& assume) {
    NodeOptions no;
    no.topology_file_only = parse_host_assumptions(assume);
    return build_node_report(read_nccl_xml(xml, "gdr0.xml"), topology_file_host_state("gdr0.xml", {}), no);
  };
  NodeReport by_default = judged({});
  EXPECT_EQ(testing::pair(by_default, "GPU0").gdr_recv, GdrUse::No);
  EXPECT_TRUE(testing::has_rule(testing::prediction(by_default, "GPU0"), "records gdr=0 for mlx5_0"));
  NodeReport stated = judged({"peermem=ok"});
  EXPECT_EQ(testing::pair(stated, "GPU0").gdr_recv, GdrUse::Yes);
}

// A file taken without the RDMA driver loaded (the Dell XE8640's hwloc XML
// with its OpenFabrics objects, osdev_type 3, taken out) lists the
// ConnectX functions but no RDMA devices: the machine judged would have them.
TEST(TopologyFileNode, NicFunctionsWithoutRdmaDevicesAreJudgedAsRdmaNics) {
  std::ifstream in(test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"));
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at; (at = xml.find("osdev_type=\"3\"")) != std::string::npos;) {
    std::size_t start = xml.rfind("<object", at), end = xml.find("</object>", at);
    ASSERT_TRUE(start != std::string::npos && end != std::string::npos);
    xml.erase(start, end + 9 - start);
  }
  std::istringstream stripped(xml);
  NodeOptions no;
  no.topology_file_only = parse_host_assumptions({"all=ok"});
  NodeReport r = build_node_report(load_topology_stream(stripped, "no-rdma.xml", TopologyFileKind::Auto),
                                   topology_file_host_state("no-rdma.xml", {}), no);
  EXPECT_EQ(testing::pair(r, "GPU3").nic_name, "0000:da:00.0");
  for (const auto& p : r.pairs) EXPECT_EQ(p.gdr_recv, GdrUse::Yes) << p.gpu;
  bool noted = false;
  for (const auto& n : r.topology.notes) noted |= n.find("no RDMA device for 4 NIC function") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A cut matrix without its NIC Legend: NICs keep their labels as names.
TEST(TopologyFileNode, MatrixWithoutLegendNamesNicsByLabel) {
  NodeReport r = judge("smi/nccl-933-nv8-9nic.txt");
  EXPECT_EQ(testing::pair(r, "GPU0").nic_name, "NIC2");
  EXPECT_EQ(testing::pair(r, "GPU4").nic_name, "NIC1");
  EXPECT_EQ(testing::pair(r, "GPU0").gdr_recv, GdrUse::Yes);
}

// Every labelled GPU of the real pairs' topologies (tests/data/pairs/
// PROVENANCE.md, "expected conclusion"): the NIC NCCL would use and GDR.
// The #392 dump is cut mid-file and refused (CrosscheckPairs tests it).
TEST(TopologyFileNode, PairTopologiesPredictTheirLabelledGpus) {
  struct Label {
    const char* file;
    const char* gpu;
    const char* nic;  // one of the NICs NCCL would use
    GdrUse gdr;
  };
  for (const Label& l : std::vector<Label>{
           {"pairs/nccl-1453-h100-9nic-ibext-gdrdma/topology.txt", "GPU0", "NIC8", GdrUse::Yes},
           {"pairs/nccl-1737-h100-6nic-ibext-sharp-no-channels/topology.txt", "GPU0", "NIC0", GdrUse::Yes},
           {"pairs/nccl-1737-h100-6nic-ibext-sharp-no-channels/topology.txt", "GPU2", "NIC1", GdrUse::Yes},
           {"pairs/nccl-1657-1gpu-4nic-node-distance-disabled/topology.txt", "GPU0", "NIC2", GdrUse::Yes},
           {"pairs/nccl-tests-350-1gpu-4nic-node-gdrdma-dist6/topology.txt", "GPU0", "NIC2", GdrUse::No},
           {"pairs/nccl-tests-293-a100pcie-1nic-sys-no-channels/topology.txt", "GPU0", "mlx5_0", GdrUse::No},
           {"pairs/nccl-tests-293-a100pcie-1nic-sys-no-channels/topology.txt", "GPU1", "mlx5_0", GdrUse::No},
           {"pairs/nccl-707-a100-18nic-p2p-loc-gdrdma/topology.txt", "GPU0", "mlx5_4", GdrUse::Yes},
           {"pairs/nccl-707-a100-18nic-p2p-loc-gdrdma/topology.txt", "GPU2", "mlx5_0", GdrUse::Yes},
           // The column of NIC8 glued to NIC7's as posted must not shift NIC8/NIC9 onto GPUs.
           {"pairs/nccl-tests-311-a100-10nic-legend-pxn-ibext/topology.txt", "GPU4", "mlx5_4", GdrUse::Yes},
           {"pairs/nccl-tests-311-a100-10nic-legend-pxn-ibext/topology.txt", "GPU7", "mlx5_6", GdrUse::Yes},
           {"pairs/nccl-tests-321-h20-vm-8nic-pxn-rdma-plugin/topology.txt", "GPU1", "NIC6", GdrUse::Yes},
           {"pairs/nccl-tests-321-h20-vm-8nic-pxn-rdma-plugin/topology.txt", "GPU0", "NIC7", GdrUse::Yes},
       }) {
    NodeReport r = judge(l.file, {"all=ok"});
    const GdrPrediction& p = testing::prediction(r, l.gpu);
    std::vector<std::string> names;
    for (const auto& id : p.nics) names.push_back(r.topology.find(id)->name);
    EXPECT_NE(std::find(names.begin(), names.end(), l.nic), names.end()) << l.file << " " << l.gpu;
    EXPECT_EQ(testing::pair(r, l.gpu).gdr_recv, l.gdr) << l.file << " " << l.gpu;
  }
}

}  // namespace
}  // namespace gdrcheck

// Tests for the per-GPU NVLink facts: each kind of evidence on hand-built
// hosts modelled on the machines of tests/data/nvlink (same GPUs, same
// nvidia-smi output), their precedence, and what happens when the
// nvidia-smi numbering cannot be matched.
#include "topology/nvlink_facts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "evidence/nvidia_smi_nvlink.h"
#include "host/device_ids.h"
#include "topology/nccl_xml_source.h"
#include "topology/smi_text_source.h"

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::any_contains;
using testing::contains;

struct GpuSpec {
  std::string bus;
  uint16_t device = 0;
  std::string model;
};

// A host whose GPUs are endpoints GPU0.. in the order given (which need
// not be bus order), plus `nvswitches` NVSwitch functions.
Topology nvlink_topology(const std::vector<GpuSpec>& gpus, int nvswitches = 0) {
  Topology t;
  t.kind = SourceKind::Sysfs;
  t.tree = TreeStyle::Ports;
  auto add = [&t](const std::string& id, DeviceRole role, const std::string& bus, uint16_t device, uint32_t cls,
                  const std::string& model) {
    PciNode n;
    n.kind = PciNode::Kind::Device;
    n.address = PciAddress::parse(bus);
    n.ids_known = true;
    n.vendor = 0x10de;
    n.device = device;
    n.pci_class = cls;
    Endpoint e;
    e.id = id;
    e.role = role;
    e.address = n.address;
    e.node = t.add_node(n);
    e.model = model;
    t.endpoints.push_back(e);
  };
  for (std::size_t i = 0; i < gpus.size(); ++i)
    add("GPU" + std::to_string(i), DeviceRole::Gpu, gpus[i].bus, gpus[i].device, 0x030200, gpus[i].model);
  for (int i = 0; i < nvswitches; ++i)
    add("NVS" + std::to_string(i), DeviceRole::NvSwitch, "0000:c" + std::to_string(4 + i) + ":00.0", 0x1af1, 0x068000,
        "GA100 [A100 NVSwitch]");
  return t;
}

// n GPUs of one model on buses 0x18, 0x2a, ... (HGX-like spacing).
Topology same_gpus(int n, uint16_t device, const std::string& model, int nvswitches = 0) {
  static const char* kBus[] = {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"};
  std::vector<GpuSpec> gpus;
  for (int i = 0; i < n; ++i) gpus.push_back({std::string("0000:") + kBus[i % 8] + ":00.0", device, model});
  return nvlink_topology(gpus, nvswitches);
}

NvLinkStatus status_file(const std::string& name) {
  return parse_nvidia_smi_nvlink(testing::read_test_data("nvlink/" + name));
}

Topology matrix_file(const std::string& name) {
  return read_smi_text(testing::read_test_data("nvlink/" + name), name);
}

const GpuNvLink& fact(const NvLinkFacts& f, const std::string& gpu) {
  const GpuNvLink* g = f.find(gpu);
  if (!g) throw std::runtime_error("no fact for " + gpu);
  return *g;
}

using Peers = std::vector<std::string>;

// ------------------------------------------------- 1. the topology's links

TEST(NvLinkFactsTopology, DirectLinksNamePeersAndOthersAreNo) {
  Topology t = same_gpus(3, 0x1db5, "GV100GL [Tesla V100 SXM2 32GB]");
  t.endpoints[0].nvlinks.push_back({"0000:2a:00.0", 2, 0x030200});
  t.endpoints[1].nvlinks.push_back({"0000:18:00.0", 2, 0x030200});
  NvLinkFacts f = nvlink_facts(t);
  const GpuNvLink& g0 = fact(f, "GPU0");
  EXPECT_EQ(g0.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g0.source, NvLinkSource::Topology);
  EXPECT_EQ(g0.peers, Peers{"GPU1"});
  EXPECT_FALSE(g0.inferred);
  EXPECT_EQ(g0.evidence, "the sysfs topology records 2 NVLink(s) from GPU0 to GPU1");
  // GPU2 is an SXM2 module too, but the source records links and GPU2 has
  // none: observed beats inferred, and the disagreement is explained.
  const GpuNvLink& g2 = fact(f, "GPU2");
  EXPECT_EQ(g2.answer, NvLinkAnswer::No);
  EXPECT_EQ(g2.source, NvLinkSource::Topology);
  EXPECT_TRUE(any_contains(g2.notes, "its links are down")) << g2.notes.size();
}

TEST(NvLinkFactsTopology, OciH100NcclXmlLinksThroughNvSwitches) {
  Topology t = read_nccl_xml(testing::read_test_data("recorded/oci-hpc/H100-topology.xml"), "H100-topology.xml");
  NvLinkFacts f = nvlink_facts(t);
  ASSERT_EQ(f.gpus.size(), 8u);
  for (const auto& g : f.gpus) {
    EXPECT_EQ(g.answer, NvLinkAnswer::Yes) << g.gpu;
    EXPECT_EQ(g.source, NvLinkSource::Topology) << g.gpu;
    EXPECT_TRUE(g.via_nvswitch);
    EXPECT_EQ(g.peers.size(), 7u);
    EXPECT_TRUE(contains(g.evidence, "the NCCL topology records NVLinks from " + g.gpu + " to NVSwitches"));
  }
}

TEST(NvLinkFactsTopology, AzureNcv4LinksToItselfAreNotAPeer) {
  // Azure NC A100 v4 (VM): each GPU's <nvlink> targets its own bus id.
  Topology t = read_nccl_xml(testing::read_test_data("recorded/azhpc-images/ncv4-topo.xml"), "ncv4-topo.xml");
  NvLinkFacts f = nvlink_facts(t);
  ASSERT_EQ(f.gpus.size(), 4u);
  const GpuNvLink& g = f.gpus[0];
  EXPECT_EQ(g.answer, NvLinkAnswer::Unknown);
  EXPECT_TRUE(any_contains(g.notes, "to its own bus id: the peer GPU is not visible")) << g.evidence;
  // A100 PCIe 80GB: bridge-capable, so the device ID cannot settle it.
  EXPECT_TRUE(contains(g.evidence, "can take an NVLink bridge")) << g.evidence;
}

// ------------------------------------------------ 2a. nvidia-smi topo -m

TEST(NvLinkFactsSmiMatrix, SiboehmThreeA6000PairAndTheOddOneOut) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x2230, "GA102GL [RTX A6000]"},
                                {"0000:21:00.0", 0x2230, "GA102GL [RTX A6000]"},
                                {"0000:41:00.0", 0x2230, "GA102GL [RTX A6000]"}});
  Topology m = matrix_file("siboehm-bench-3xa6000-topo-m.txt");
  NvLinkStatus s = status_file("siboehm-bench-3xa6000-one-bridge.txt");
  NvLinkFacts f = nvlink_facts(t, {&m, &s});
  EXPECT_TRUE(f.notes.empty());
  const GpuNvLink& g0 = fact(f, "GPU0");
  EXPECT_EQ(g0.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g0.source, NvLinkSource::SmiMatrix);
  EXPECT_EQ(g0.peers, Peers{"GPU1"});
  EXPECT_EQ(g0.evidence, "nvidia-smi topo -m shows NV4 to GPU1");
  EXPECT_TRUE(g0.notes.empty());  // nvlink --status agrees
  const GpuNvLink& g2 = fact(f, "GPU2");
  EXPECT_EQ(g2.answer, NvLinkAnswer::No);
  EXPECT_EQ(g2.source, NvLinkSource::SmiMatrix);
  EXPECT_EQ(g2.evidence, "nvidia-smi topo -m shows no NV# between GPU2 and any other GPU");
  EXPECT_TRUE(g2.notes.empty());
}

TEST(NvLinkFactsSmiMatrix, SmiIndexFollowsBusOrderNotEndpointOrder) {
  // Endpoint GPU0 sits on the highest bus: nvidia-smi calls it GPU 2.
  Topology t =
      nvlink_topology({{"0000:41:00.0", 0x2230, ""}, {"0000:21:00.0", 0x2230, ""}, {"0000:01:00.0", 0x2230, ""}});
  std::vector<const Endpoint*> order = gpus_in_smi_order(t);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->id, "GPU2");
  EXPECT_EQ(order[2]->id, "GPU0");
  Topology m = matrix_file("siboehm-bench-3xa6000-topo-m.txt");
  NvLinkFacts f = nvlink_facts(t, {&m, nullptr});
  EXPECT_EQ(fact(f, "GPU2").peers, Peers{"GPU1"});  // smi GPU0 -> smi GPU1
  EXPECT_EQ(fact(f, "GPU1").peers, Peers{"GPU2"});
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::No);  // smi GPU2
}

TEST(NvLinkFactsSmiMatrix, PastedMatrixIsItsOwnEvidence) {
  Topology t = matrix_file("unige-3741-8xa6000-topo-m.txt");
  NvLinkFacts f = nvlink_facts(t);
  ASSERT_EQ(f.gpus.size(), 8u);
  EXPECT_TRUE(f.notes.empty());
  for (int i = 0; i < 8; ++i) {
    const GpuNvLink& g = fact(f, "GPU" + std::to_string(i));
    EXPECT_EQ(g.answer, NvLinkAnswer::Yes);
    EXPECT_EQ(g.source, NvLinkSource::SmiMatrix);
    EXPECT_EQ(g.peers, Peers{"GPU" + std::to_string(i ^ 1)});  // pairs 0-1, 2-3, 4-5, 6-7
  }
}

TEST(NvLinkFactsSmiMatrix, HpeH100PcieMatrixAndStatusAgree) {
  Topology t =
      nvlink_topology({{"0000:c2:00.0", 0x2331, "GH100 [H100 PCIe]"}, {"0000:d5:00.0", 0x2331, "GH100 [H100 PCIe]"}});
  Topology m = matrix_file("hpe-dl380a-2xh100-pcie-topo-m.txt");
  NvLinkStatus s = status_file("hpe-dl380a-2xh100-pcie-nvlink-s.txt");
  NvLinkFacts f = nvlink_facts(t, {&m, &s});
  EXPECT_EQ(fact(f, "GPU1").evidence, "nvidia-smi topo -m shows NV12 to GPU0");
  EXPECT_TRUE(fact(f, "GPU1").notes.empty());
}

TEST(NvLinkFactsSmiMatrix, MissingRowIsReadFromTheOtherRowsColumns) {
  // The paste lost GPU2's row; the matrix is symmetric, so GPU0's and
  // GPU1's rows still give every pair with GPU2.
  Topology m = read_smi_text("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV4\tSYS\nGPU1\tNV4\t X \tSYS\n", "cut.txt");
  Topology t =
      nvlink_topology({{"0000:01:00.0", 0x2230, ""}, {"0000:21:00.0", 0x2230, ""}, {"0000:41:00.0", 0x2230, ""}});
  NvLinkFacts f = nvlink_facts(t, {&m, nullptr});
  EXPECT_EQ(fact(f, "GPU0").peers, Peers{"GPU1"});
  EXPECT_EQ(fact(f, "GPU2").answer, NvLinkAnswer::No);
  EXPECT_EQ(fact(f, "GPU2").source, NvLinkSource::SmiMatrix);
}

TEST(NvLinkFactsSmiMatrix, UnreadableCellsAreNotANo) {
  Topology m = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tN/A\nGPU1\tN/A\t X \n", "na.txt");
  Topology t = nvlink_topology({{"0000:01:00.0", 0x2230, ""}, {"0000:21:00.0", 0x2230, ""}});
  NvLinkFacts f = nvlink_facts(t, {&m, nullptr});
  const GpuNvLink& g = fact(f, "GPU0");
  EXPECT_EQ(g.answer, NvLinkAnswer::Unknown);
  EXPECT_TRUE(any_contains(g.notes, "nvidia-smi topo -m has no code for some pairs with GPU0"));
  EXPECT_TRUE(contains(g.evidence, "can take an NVLink bridge"));
}

// ------------------------------------------- 2b. nvidia-smi nvlink --status

TEST(NvLinkFactsSmiStatus, HpeH100PcieBridgeSeenOnlyByNvlinkStatus) {
  Topology t =
      nvlink_topology({{"0000:c2:00.0", 0x2331, "GH100 [H100 PCIe]"}, {"0000:d5:00.0", 0x2331, "GH100 [H100 PCIe]"}});
  NvLinkFacts without = nvlink_facts(t);
  EXPECT_EQ(fact(without, "GPU0").answer, NvLinkAnswer::Unknown);
  EXPECT_EQ(fact(without, "GPU0").evidence,
            "GPU0, GH100 [H100 PCIe] (device 0x2331), is a PCIe card that can take an NVLink bridge; whether one is "
            "fitted shows in nvidia-smi nvlink --status");

  NvLinkStatus s = status_file("hpe-dl380a-2xh100-pcie-nvlink-s.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  const GpuNvLink& g0 = fact(f, "GPU0");
  EXPECT_EQ(g0.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g0.source, NvLinkSource::SmiLinkStatus);
  EXPECT_TRUE(g0.peers.empty());  // --status does not say to whom
  EXPECT_EQ(g0.evidence, "nvidia-smi nvlink --status GPU 0: 12 of 18 links active (26.562 GB/s)");
}

TEST(NvLinkFactsSmiStatus, RemoteLinkInfoNamesThePeer) {
  Topology t = nvlink_topology({{"0000:c2:00.0", 0x2331, ""}, {"0000:d5:00.0", 0x2331, ""}});
  NvLinkStatus r = status_file("hpe-dl380a-2xh100-pcie-nvlink-R.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &r});
  EXPECT_EQ(fact(f, "GPU0").peers, Peers{"GPU1"});
  EXPECT_EQ(fact(f, "GPU1").peers, Peers{"GPU0"});
  EXPECT_TRUE(contains(fact(f, "GPU0").evidence, "= GPU1"));
}

TEST(NvLinkFactsSmiStatus, A100PcieWithoutBridgeIsNo) {
  Topology t = nvlink_topology({{"0000:12:00.0", 0x20b1, "GA100 [A100 PCIe 40GB]"}, {"0000:8a:00.0", 0x20b1, ""}});
  NvLinkStatus s = status_file("hpe-dl380-2xa100-pcie-no-bridge.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  for (const auto& g : f.gpus) {
    EXPECT_EQ(g.answer, NvLinkAnswer::No);
    EXPECT_EQ(g.source, NvLinkSource::SmiLinkStatus);
    EXPECT_TRUE(contains(g.evidence, "all links inactive (NVML: Unable to retrieve NVLink information"));
    EXPECT_TRUE(g.notes.empty());
  }
}

TEST(NvLinkFactsSmiStatus, B200WithAllLinksDownIsNoAndExplained) {
  Topology t = same_gpus(8, 0x2901, "B200");
  NvLinkStatus s = status_file("gpud-1085-b200-all-inactive.txt");  // only GPU 2 posted
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  const GpuNvLink& g2 = fact(f, "GPU2");
  EXPECT_EQ(g2.answer, NvLinkAnswer::No);
  EXPECT_EQ(g2.source, NvLinkSource::SmiLinkStatus);
  ASSERT_EQ(g2.notes.size(), 1u);
  EXPECT_TRUE(contains(g2.notes[0], "fabric manager"));
  // The GPUs the paste left out fall back to the form factor.
  const GpuNvLink& g0 = fact(f, "GPU0");
  EXPECT_EQ(g0.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g0.source, NvLinkSource::DeviceId);
  EXPECT_TRUE(g0.inferred);
}

TEST(NvLinkFactsSmiStatus, CutA100Sxm4PasteCoversTheGpusItShows) {
  Topology t = same_gpus(8, 0x20b2, "GA100 [A100 SXM4 80GB]");
  NvLinkStatus s = status_file("nccl-tests-228-8xa100-sxm4-cut.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  EXPECT_EQ(fact(f, "GPU2").source, NvLinkSource::SmiLinkStatus);  // 1 link shown, rest elided
  EXPECT_EQ(fact(f, "GPU2").answer, NvLinkAnswer::Yes);
  EXPECT_EQ(fact(f, "GPU3").source, NvLinkSource::DeviceId);
}

TEST(NvLinkFactsSmiStatus, StatusThatCannotBeUsedIsSaidOnce) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x2230, ""}, {"0000:21:00.0", 0x2230, ""}});
  NvLinkStatus empty = parse_nvidia_smi_nvlink("");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &empty});
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_TRUE(contains(f.notes[0], "nvidia-smi nvlink --status: empty output"));
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Unknown);

  NvLinkStatus eight = status_file("unige-3741-8xa6000-four-bridges.txt");  // another host's 8 GPUs
  f = nvlink_facts(t, {nullptr, &eight});
  EXPECT_TRUE(any_contains(f.notes, "lists GPU 2 but the topology has 2 GPUs"));
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Unknown);

  Topology m = matrix_file("siboehm-bench-3xa6000-topo-m.txt");  // 3 GPUs
  f = nvlink_facts(t, {&m, nullptr});
  EXPECT_TRUE(any_contains(f.notes, "nvidia-smi topo -m lists 3 GPUs, the topology 2"));
}

TEST(NvLinkFactsSmiStatus, GpusWithoutBusIdCannotBeMatched) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x2230, ""}, {"0000:21:00.0", 0x2230, ""}});
  t.endpoints[1].address.reset();
  NvLinkStatus s = status_file("club3090-441-2x3090-bridge.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  EXPECT_TRUE(any_contains(f.notes, "no bus id"));
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Unknown);
  EXPECT_TRUE(gpus_in_smi_order(t).empty());
}

// ------------------------------------------------------ 3. NVSwitch devices

TEST(NvLinkFactsNvSwitch, HgxA100WithNvSwitchFunctions) {
  Topology t = same_gpus(8, 0x20b0, "GA100 [A100 SXM4 40GB]", 6);
  NvLinkFacts f = nvlink_facts(t);
  const GpuNvLink& g = fact(f, "GPU5");
  EXPECT_EQ(g.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g.source, NvLinkSource::NvSwitch);
  EXPECT_TRUE(g.via_nvswitch);
  EXPECT_FALSE(g.inferred);
  EXPECT_EQ(g.peers.size(), 7u);
  EXPECT_TRUE(contains(g.evidence, "6 NVSwitch function(s) (NVS0, NVS1"));
}

TEST(NvLinkFactsNvSwitch, NvSwitchNextToPcieCardsSaysNothing) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x20b5, ""}, {"0000:21:00.0", 0x20b5, ""}}, 1);
  NvLinkFacts f = nvlink_facts(t);
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Unknown);
}

// --------------------------------------------------------- 4. device IDs

TEST(NvLinkFactsDeviceId, HgxH100WithoutAnyOtherEvidenceIsInferred) {
  Topology t = same_gpus(8, 0x2330, "GH100[H100 SXM5 80GB]");
  NvLinkFacts f = nvlink_facts(t);
  const GpuNvLink& g = fact(f, "GPU0");
  EXPECT_EQ(g.answer, NvLinkAnswer::Yes);
  EXPECT_EQ(g.source, NvLinkSource::DeviceId);
  EXPECT_TRUE(g.inferred);
  EXPECT_TRUE(g.peers.empty());  // which ones is not known
  EXPECT_EQ(g.evidence,
            "GPU0, GH100[H100 SXM5 80GB] (device 0x2330), is an SXM module with 7 more on this host: NVLink inferred "
            "from the form factor (an HGX baseboard always links its GPUs)");
}

TEST(NvLinkFactsDeviceId, PartsWithoutNvLinkAreNo) {
  NvLinkFacts f = nvlink_facts(same_gpus(4, 0x26b9, ""));
  EXPECT_EQ(fact(f, "GPU3").answer, NvLinkAnswer::No);
  EXPECT_EQ(fact(f, "GPU3").evidence, "GPU3, L40S (device 0x26b9), has no NVLink");
  // A GeForce RTX 4090 D is not in the table; its pci.ids name decides.
  f = nvlink_facts(same_gpus(2, 0x2685, "AD102 [GeForce RTX 4090 D]"));
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::No);
  f = nvlink_facts(same_gpus(2, 0x1eb8, "TU104GL [Tesla T4]"));
  EXPECT_EQ(fact(f, "GPU1").answer, NvLinkAnswer::No);
}

TEST(NvLinkFactsDeviceId, UnknownModelsSayWhatWouldTell) {
  NvLinkFacts f = nvlink_facts(same_gpus(2, 0x1234, ""));
  const GpuNvLink& g = fact(f, "GPU0");
  EXPECT_EQ(g.answer, NvLinkAnswer::Unknown);
  EXPECT_EQ(g.source, NvLinkSource::None);
  EXPECT_EQ(g.evidence, "no NVLink evidence for GPU0, device 0x1234; what would tell: nvidia-smi nvlink --status");
  // A pasted matrix has no device IDs at all.
  Topology m = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tSYS\nGPU1\tSYS\t X \n", "p.txt");
  EXPECT_EQ(fact(nvlink_facts(m), "GPU1").answer, NvLinkAnswer::No);  // complete matrix, no NV#
}

TEST(NvLinkFactsDeviceId, LoneSxmAmongOtherGpusIsUnknown) {
  Topology t = nvlink_topology({{"0000:18:00.0", 0x2330, ""}, {"0000:2a:00.0", 0x27b8, ""}});
  NvLinkFacts f = nvlink_facts(t);
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Unknown);
  EXPECT_TRUE(contains(fact(f, "GPU0").evidence, "no other GPU here is one"));
  EXPECT_EQ(fact(f, "GPU1").answer, NvLinkAnswer::No);  // L4
}

TEST(NvLinkFactsDeviceId, FormFactorTableAddsToTheGpuTable) {
  EXPECT_EQ(nvlink_form_factor(0x2330), NvLinkFormFactor::Sxm);            // H100 SXM5
  EXPECT_EQ(nvlink_form_factor(0x1db5), NvLinkFormFactor::Sxm);            // V100 SXM2 32GB
  EXPECT_EQ(nvlink_form_factor(0x20b5), NvLinkFormFactor::BridgeCapable);  // A100 PCIe 80GB
  EXPECT_EQ(nvlink_form_factor(0x2204), NvLinkFormFactor::BridgeCapable);  // RTX 3090
  EXPECT_EQ(nvlink_form_factor(0x1db6), NvLinkFormFactor::None);           // V100 PCIe: no connector
  EXPECT_EQ(nvlink_form_factor(0x27b8), NvLinkFormFactor::None);           // L4
  EXPECT_EQ(nvlink_form_factor(0x2b85, "GB202 [GeForce RTX 5090]"), NvLinkFormFactor::None);
  EXPECT_EQ(nvlink_form_factor(0x2204, "GA102 [GeForce RTX 3090]"), NvLinkFormFactor::BridgeCapable);
  EXPECT_EQ(nvlink_form_factor(0x2337), NvLinkFormFactor::Unknown);  // an H100 whose form pci.ids does not say
  EXPECT_STREQ(nvlink_form_factor_name(NvLinkFormFactor::BridgeCapable), "pcie-bridge-capable");
  EXPECT_STREQ(nvlink_form_factor_name(NvLinkFormFactor::None), "no-nvlink");
  // The existing table is unchanged.
  ASSERT_TRUE(nvidia_gpu_info(0x2330).has_value());
  EXPECT_EQ(nvidia_gpu_info(0x2330)->family, "H100");
  EXPECT_EQ(nvidia_gpu_info(0x2330)->sm, 90);
}

// ---------------------------------------------------- single GPU, precedence

TEST(NvLinkFactsPrecedence, SingleGpuHasNoPeerWhateverItsLinks) {
  Topology t = same_gpus(1, 0x2330, "");
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n Link 0: 26.562 GB/s\n");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  const GpuNvLink& g = fact(f, "GPU0");
  EXPECT_EQ(g.answer, NvLinkAnswer::No);
  EXPECT_EQ(g.source, NvLinkSource::SingleGpu);
  EXPECT_EQ(g.evidence, "GPU0 is the only GPU on this host: there is no other GPU to link to");
  EXPECT_TRUE(any_contains(g.notes, "nvidia-smi nvlink --status says yes"));
}

TEST(NvLinkFactsPrecedence, TopologyBeatsSmiWhichBeatsDeviceId) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x26b9, "L40S"}, {"0000:21:00.0", 0x26b9, "L40S"}});
  Topology m = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n", "m.txt");
  NvLinkFacts f = nvlink_facts(t, {&m, nullptr});
  EXPECT_EQ(fact(f, "GPU0").source, NvLinkSource::SmiMatrix);
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Yes);
  EXPECT_TRUE(any_contains(fact(f, "GPU0").notes, "device id says no: GPU0, L40S (device 0x26b9), has no NVLink"));

  t.endpoints[0].nvlinks.push_back({"0000:21:00.0", 4, 0x030200});
  Topology none = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tSYS\nGPU1\tSYS\t X \n", "none.txt");
  f = nvlink_facts(t, {&none, nullptr});
  EXPECT_EQ(fact(f, "GPU0").source, NvLinkSource::Topology);
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Yes);
  EXPECT_TRUE(any_contains(fact(f, "GPU0").notes, "nvidia-smi topo -m says no"));
}

TEST(NvLinkFactsPrecedence, MatrixComesBeforeStatusAndDisagreementIsKept) {
  Topology t = nvlink_topology({{"0000:01:00.0", 0x2204, ""}, {"0000:21:00.0", 0x2204, ""}});
  Topology m = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n", "m.txt");
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: A\nNVML: all links are inActive\nGPU 1: A\n Link 0: 14 GB/s\n");
  NvLinkFacts f = nvlink_facts(t, {&m, &s});
  EXPECT_EQ(fact(f, "GPU0").answer, NvLinkAnswer::Yes);
  EXPECT_TRUE(any_contains(fact(f, "GPU0").notes, "nvidia-smi nvlink --status says no"));
  EXPECT_TRUE(fact(f, "GPU1").notes.empty());
}

TEST(NvLinkFactsPrecedence, NamesAreStable) {
  EXPECT_STREQ(nvlink_answer_name(NvLinkAnswer::Unknown), "unknown");
  EXPECT_STREQ(nvlink_source_name(NvLinkSource::SmiLinkStatus), "nvidia-smi nvlink --status");
  EXPECT_STREQ(nvlink_source_name(NvLinkSource::DeviceId), "device id");
}

TEST(NvLinkFactsPrecedence, NoGpusNoFacts) {
  Topology t;
  NvLinkStatus s = status_file("club3090-441-2x3090-bridge.txt");
  NvLinkFacts f = nvlink_facts(t, {nullptr, &s});
  EXPECT_TRUE(f.gpus.empty());
}

}  // namespace
}  // namespace gdrcheck

// `gdrcheck analyze` on the damaged pastes of tests/data/pastes (see its
// PROVENANCE.md for each file's source, damage and correct reading):
// `nvidia-smi topo -m` matrices (smi-topo/) and `ibstat` / `ibv_devinfo` /
// `ibstatus` output (ibstat/).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/artifact.h"
#include "evidence/ibv_text.h"
#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::any_contains;
using testing::read_test_data;
using testing::test_data;

Artifact analyze_paste(const std::string& name) {
  return analyze_file(test_data("pastes/" + name));
}

bool verdict_has(const Artifact& a, const std::string& text) {
  return a.verdict.find(text) != std::string::npos;
}

// The code printed in row `a`, column `b`; "" when the paste has none.
std::string matrix_cell(const Artifact& a, const std::string& row, const std::string& col) {
  auto it = a.topology->printed_matrix.find({row, col});
  return it == a.topology->printed_matrix.end() ? "" : it->second;
}

// "NIC0 NIC1 PXB": the GPU's closest NICs (by id) and their class.
std::string closest(const Artifact& a, const std::string& gpu) {
  for (const auto& c : a.paths->closest)
    if (c.gpu == gpu) {
      std::string out;
      for (const auto& n : c.nics) out += n + " ";
      return out + c.smi_code;
    }
  return "no such GPU";
}

// The RDMA device name of a NIC id.
std::string nic_name(const Artifact& a, const std::string& id) {
  const Endpoint* e = a.topology->find(id);
  return e ? e->name : "no such NIC";
}

const Locality& locality(const Artifact& a, const std::string& id) {
  static const Locality kNone;
  const Endpoint* e = a.topology->find(id);
  return e ? e->locality : kNone;
}

std::size_t role_count(const Artifact& a, DeviceRole role) {
  return a.topology->with_role(role).size();
}

// Every GPU's CPU and NUMA affinity unknown (never taken from altered or
// unreadable cells).
void expect_no_affinity(const Artifact& a) {
  for (const Endpoint* g : a.topology->with_role(DeviceRole::Gpu)) {
    EXPECT_EQ(g->locality.cpus, "") << g->id;
    EXPECT_EQ(g->locality.numa, -1) << g->id;
    EXPECT_EQ(g->attributes.count("CPU Affinity"), 0u) << g->id;
    EXPECT_EQ(g->attributes.count("NUMA Affinity"), 0u) << g->id;
  }
}

const IbvDevice* device(const IbvReport& r, const std::string& name) {
  for (const auto& d : r.devices)
    if (d.name == name) return &d;
  return nullptr;
}

// --- nvidia-smi topo -m ----------------------------------------------------

// A digest collapsed the whole matrix, with Markdown and a zsh prompt before
// it, into one line ending in "56-111,1...". Cut into rows again, the glued
// cells (NIC8NIC9, NODENODE, NODEPXB) split into exactly the header's 20
// columns, so every GPU reads PXB to its NIC; GPU7's affinity was cut and is
// not read.
TEST(AnalyzeDamagedSmi, Vllm13855OneLineDigestIsCutIntoRows) {
  Artifact a = analyze_paste("smi-topo/vllm-13855-digest-collapsed-one-line-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Gpu), 8u);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 12u);
  EXPECT_EQ(matrix_cell(a, "GPU0", "GPU7"), "NV18");
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 PXB");
  EXPECT_EQ(closest(a, "GPU1"), "NIC3 PXB");
  EXPECT_EQ(closest(a, "GPU2"), "NIC4 PXB");
  EXPECT_EQ(closest(a, "GPU3"), "NIC5 PXB");
  EXPECT_EQ(closest(a, "GPU4"), "NIC6 PXB");
  EXPECT_EQ(closest(a, "GPU5"), "NIC9 PXB");
  EXPECT_EQ(closest(a, "GPU6"), "NIC10 PXB");
  EXPECT_EQ(closest(a, "GPU7"), "NIC11 PXB");
  EXPECT_EQ(matrix_cell(a, "GPU5", "NIC8"), "NODE");
  EXPECT_EQ(locality(a, "GPU0").cpus, "0-55,112-167");
  EXPECT_EQ(locality(a, "GPU3").numa, 0);
  EXPECT_EQ(locality(a, "GPU6").numa, 1);
  EXPECT_EQ(locality(a, "GPU7").cpus, "");  // "56-111,1..." was cut
  EXPECT_EQ(locality(a, "GPU7").numa, -1);
  EXPECT_TRUE(any_contains(a.topology->notes, "lost its line breaks")) << a.topology->notes.size();
  EXPECT_TRUE(any_contains(a.topology->notes, "affinity cut short in rows GPU7"));
  EXPECT_TRUE(any_contains(a.topology->notes, "no NIC Legend entry"));
}

// `lsmod` output and prompts above the matrix; cut after GPU2's row. GPU0
// and GPU2 have a PIX NIC, GPU1 only NODE ones; GPU3-GPU7 are unknown by
// name, never counted.
TEST(AnalyzeDamagedSmi, Nccl1737LsmodAboveCutAfterGpu2) {
  Artifact a = analyze_paste("smi-topo/nccl-1737-lsmod-prompt-then-topo-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("1 of 8 GPUs have no NIC behind their PCIe switch: GPU1 (NODE)", 0), 0u) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "GPU3, GPU4, GPU5, GPU6, GPU7: no NIC class in the paste")) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 6u);
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 PIX");
  EXPECT_EQ(closest(a, "GPU1"), "NIC0 NIC1 NIC2 NIC3 NODE");
  EXPECT_EQ(closest(a, "GPU2"), "NIC1 PIX");
  EXPECT_EQ(matrix_cell(a, "GPU3", "NIC0"), "");
  EXPECT_EQ(locality(a, "GPU0").cpus, "0-31,64-95");
  EXPECT_EQ(locality(a, "GPU2").numa, 0);
  EXPECT_EQ(nic_name(a, "NIC0"), "NIC0");  // no legend: the name is unknown
}

// A scraped page: spaces collapsed, NIC columns in the order mlx5_0 mlx5_2
// mlx5_1 mlx5_3, and CPU lists the page altered ("11-39,60-59"). Each GPU
// pair has its own PIX NIC, named from the column; no affinity is used.
TEST(AnalyzeDamagedSmi, BrickHouseDgx1AlteredAffinityIsNotUsed) {
  Artifact a = analyze_paste("smi-topo/brick-house-page-collapsed-dgx1-mlx5-altered-affinity.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Gpu), 8u);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 4u);
  EXPECT_EQ(nic_name(a, "NIC1"), "mlx5_2");
  EXPECT_EQ(nic_name(a, closest(a, "GPU0").substr(0, 4)), "mlx5_0");
  EXPECT_EQ(nic_name(a, closest(a, "GPU2").substr(0, 4)), "mlx5_1");
  EXPECT_EQ(nic_name(a, closest(a, "GPU5").substr(0, 4)), "mlx5_2");
  EXPECT_EQ(nic_name(a, closest(a, "GPU7").substr(0, 4)), "mlx5_3");
  EXPECT_EQ(closest(a, "GPU3"), "NIC2 PIX");
  EXPECT_EQ(matrix_cell(a, "GPU0", "GPU3"), "NV2");
  EXPECT_EQ(matrix_cell(a, "GPU0", "GPU5"), "SYS");
  expect_no_affinity(a);
  EXPECT_TRUE(any_contains(a.topology->notes, "GPU5 11-39,60-59"));
}

// Collapsed page copy with impossible CPU ranges ("132-127,340-354") and
// NUMA ids that do not match them: NICs in PXB pairs, no affinity used.
TEST(AnalyzeDamagedSmi, BrickHouseNv12ImpossibleRangesAreNotUsed) {
  Artifact a = analyze_paste("smi-topo/brick-house-page-collapsed-nv12-12nic-impossible-ranges.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 12u);
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 NIC1 PXB");
  EXPECT_EQ(closest(a, "GPU1"), "NIC0 NIC1 PXB");
  EXPECT_EQ(closest(a, "GPU3"), "NIC2 NIC3 PXB");
  EXPECT_EQ(closest(a, "GPU4"), "NIC6 NIC7 PXB");
  EXPECT_EQ(closest(a, "GPU7"), "NIC8 NIC9 PXB");
  EXPECT_EQ(matrix_cell(a, "GPU2", "GPU6"), "NV12");
  expect_no_affinity(a);
  EXPECT_TRUE(any_contains(a.topology->notes, "GPU4 132-127,340-354"));
}

// The page author's own matrix: no NICs, so nothing about GPUDirect RDMA;
// the header says "NUMA" rather than "NUMA Affinity".
TEST(AnalyzeDamagedSmi, KubernetesRecipesNoNicsNumaHeader) {
  Artifact a = analyze_paste("smi-topo/kubernetes-recipes-dgx-h100-collapsed-glued-legend.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown);
  EXPECT_TRUE(verdict_has(a, "no GPU-NIC pair")) << a.verdict;
  ASSERT_TRUE(a.topology);
  EXPECT_EQ(role_count(a, DeviceRole::Gpu), 8u);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 0u);
  EXPECT_EQ(matrix_cell(a, "GPU3", "GPU4"), "NV18");
  EXPECT_EQ(locality(a, "GPU0").cpus, "0-51");
  EXPECT_EQ(locality(a, "GPU3").numa, 0);
  EXPECT_EQ(locality(a, "GPU4").cpus, "52-103");
  EXPECT_EQ(locality(a, "GPU7").numa, 1);
}

// HTML table extraction glued every cell ("GPU0XNODENODE0-310N/A"). The
// codes are read (all NODE); the affinity cells cannot be told apart
// ("0-310" is "0-31" + "0" or "0-3" + "10") and are not read.
TEST(AnalyzeDamagedSmi, ChatqaqGluedCellsCodesReadAffinityNot) {
  Artifact a = analyze_paste("smi-topo/chatqaq-page-cells-glued-3gpu-node.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown);
  EXPECT_TRUE(verdict_has(a, "no GPU-NIC pair")) << a.verdict;
  ASSERT_TRUE(a.topology);
  EXPECT_EQ(role_count(a, DeviceRole::Gpu), 3u);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 0u);
  EXPECT_EQ(matrix_cell(a, "GPU0", "GPU0"), "X");
  EXPECT_EQ(matrix_cell(a, "GPU0", "GPU1"), "NODE");
  EXPECT_EQ(matrix_cell(a, "GPU2", "GPU1"), "NODE");
  expect_no_affinity(a);
  EXPECT_TRUE(any_contains(a.topology->notes, "affinity cells had run together in rows GPU0, GPU1, GPU2"));
}

// Another page copy, collapsed, with NIC rows (no affinity cells in them):
// only GPU0/GPU1 have NICs behind their switch, the rest reach them SYS.
TEST(AnalyzeDamagedSmi, BrickHouseNv12TwoNicsWithNicRows) {
  Artifact a = analyze_paste("smi-topo/brick-house-page-collapsed-nv12-2nic-with-nic-rows.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("6 of 8 GPUs have no NIC behind their PCIe switch: GPU2 (SYS)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 2u);
  EXPECT_EQ(closest(a, "GPU1"), "NIC0 NIC1 PXB");
  EXPECT_EQ(closest(a, "GPU7"), "NIC0 NIC1 SYS");
  EXPECT_EQ(matrix_cell(a, "NIC0", "NIC1"), "PIX");
  EXPECT_EQ(locality(a, "GPU0").cpus, "48-63,176-191");
  EXPECT_EQ(locality(a, "GPU4").numa, 7);
  EXPECT_EQ(locality(a, "NIC0").cpus, "");
}

// A root prompt above the header, one header cell shifted by an extra space
// ("NIC7     NIC8"), 18 NICs; cut after GPU3's row.
TEST(AnalyzeDamagedSmi, Deepep145PromptShiftedHeaderCutAfterGpu3) {
  Artifact a = analyze_paste("smi-topo/deepep-145-prompt-18nic-shifted-header-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU4, GPU5, GPU6, GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "GPU0, GPU1, GPU2, GPU3 have a NIC behind their PCIe switch")) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 18u);
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 NIC1 NIC2 NIC3 PXB");
  EXPECT_EQ(closest(a, "GPU3"), "NIC6 NIC7 NIC8 NIC9 PXB");
  EXPECT_EQ(matrix_cell(a, "GPU2", "NIC17"), "SYS");
  EXPECT_EQ(locality(a, "GPU1").cpus, "0-55,112-167");
  EXPECT_EQ(locality(a, "GPU1").numa, 0);
}

// A ```txt fence above the matrix; three NUMA nodes; cut after GPU5's row.
TEST(AnalyzeDamagedSmi, Sglang13973FenceThreeNumaCutAfterGpu5) {
  Artifact a = analyze_paste("smi-topo/sglang-13973-txt-fence-3numa-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU6, GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 9u);
  EXPECT_EQ(closest(a, "GPU2"), "NIC2 PIX");
  EXPECT_EQ(closest(a, "GPU3"), "NIC4 PIX");
  EXPECT_EQ(closest(a, "GPU5"), "NIC6 PIX");
  EXPECT_EQ(locality(a, "GPU3").cpus, "24-47,120-143");
  EXPECT_EQ(locality(a, "GPU3").numa, 1);
  EXPECT_EQ(locality(a, "GPU4").numa, 2);
}

// A fence above, cut inside the NIC rows (NIC1's row lost). GPU2/3 and
// GPU6/7 have a PIX NIC; GPU0/1/4/5 reach theirs only through NODE.
TEST(AnalyzeDamagedSmi, Nccl1343CutInNicRowsHalfTheGpusNode) {
  Artifact a = analyze_paste("smi-topo/nccl-1343-a40-2nic-node-pix-cut-in-nic-rows.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("4 of 8 GPUs have no NIC behind their PCIe switch: GPU0 (NODE), GPU1 (NODE), GPU4 "
                            "(NODE), GPU5 (NODE)",
                            0),
            0u)
      << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(closest(a, "GPU3"), "NIC0 PIX");
  EXPECT_EQ(closest(a, "GPU6"), "NIC1 PIX");
  EXPECT_EQ(matrix_cell(a, "NIC0", "GPU2"), "PIX");
  EXPECT_EQ(matrix_cell(a, "NIC1", "GPU6"), "");
  EXPECT_EQ(locality(a, "GPU4").cpus, "96-191");
  EXPECT_TRUE(any_contains(a.topology->notes, "no matrix row for NIC1"));
}

// Header indented by seven spaces instead of a tab, two PIX NICs per GPU
// pair; cut after GPU5's row.
TEST(AnalyzeDamagedSmi, Uccl160SevenSpaceIndentCutAfterGpu5) {
  Artifact a = analyze_paste("smi-topo/uccl-160-seven-space-indent-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU6, GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.topology && a.paths);
  EXPECT_EQ(role_count(a, DeviceRole::Nic), 8u);
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 NIC1 PIX");
  EXPECT_EQ(closest(a, "GPU3"), "NIC2 NIC3 PIX");
  EXPECT_EQ(closest(a, "GPU5"), "NIC4 NIC5 PIX");
  EXPECT_EQ(locality(a, "GPU4").numa, 1);
}

// --- ibstat / ibv_devinfo / ibstatus ---------------------------------------

// Every line flush left, and the page's "CODE" widget label as a last line:
// one ACTIVE QDR port, and no device called CODE.
TEST(AnalyzeDamagedIbstat, AdvancedClusteringFlushLeftCodeDebris) {
  Artifact a = analyze_paste("ibstat/advancedclustering-kb-ibstat-flush-left-code-debris.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_TRUE(a.ibv);
  EXPECT_EQ(a.ibv->kind, IbvKind::Ibstat);
  ASSERT_EQ(a.ibv->devices.size(), 1u);
  const IbvDevice& d = a.ibv->devices[0];
  EXPECT_EQ(d.name, "mlx4_0");
  EXPECT_EQ(d.ca_type, "MT4099");
  EXPECT_EQ(d.fw, "2.10.0");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].port, 1);
  EXPECT_EQ(d.ports[0].state, "ACTIVE");
  EXPECT_EQ(d.ports[0].physical_state, "LinkUp");
  EXPECT_EQ(d.ports[0].rate_gbps, 40.0);
  EXPECT_EQ(d.ports[0].link_layer, "InfiniBand");
}

// Two pastes in one block: an elided `ibstat` (mlx5_5, NDR, ACTIVE), then a
// prompt and a matrix cut after GPU2's row. The file is judged as the
// matrix, with a note that it also holds ibstat output; that text reads on
// its own.
TEST(AnalyzeDamagedIbstat, Nccl1591IbstatThenMatrix) {
  Artifact a = analyze_paste("ibstat/nccl-1591-ibstat-elided-then-topo-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("1 of 8 GPUs have no NIC behind their PCIe switch: GPU1 (NODE)", 0), 0u) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "GPU3, GPU4, GPU5, GPU6, GPU7: no NIC class in the paste")) << a.verdict;
  EXPECT_TRUE(any_contains(a.notes, "also holds ibstat/ibv_devinfo output: gdrcheck analyze --kind ibv"));
  ASSERT_TRUE(a.paths);
  EXPECT_EQ(closest(a, "GPU0"), "NIC0 PIX");
  EXPECT_EQ(closest(a, "GPU2"), "NIC1 PIX");

  std::string text = read_test_data("pastes/ibstat/nccl-1591-ibstat-elided-then-topo-cut.txt");
  EXPECT_TRUE(looks_like_ibv_text(text));
  IbvReport r = parse_ibv_text(text);
  EXPECT_EQ(r.kind, IbvKind::Ibstat);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "mlx5_5");
  EXPECT_EQ(r.devices[0].ca_type, "MT4129");
  ASSERT_EQ(r.devices[0].ports.size(), 1u);
  EXPECT_EQ(r.devices[0].ports[0].state, "ACTIVE");
  EXPECT_EQ(r.devices[0].ports[0].physical_state, "LinkUp");
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 400.0);
  EXPECT_EQ(r.devices[0].ports[0].link_layer, "InfiniBand");

  // `--kind ibv` judges the ibstat part: its one port is ACTIVE.
  Artifact ibv = analyze_file(test_data("pastes/ibstat/nccl-1591-ibstat-elided-then-topo-cut.txt"), ArtifactKind::Ibv);
  EXPECT_EQ(ibv.status, Status::Ok) << ibv.verdict;
  EXPECT_EQ(ibv.verdict, "all 1 ports ACTIVE");
}

// Spaces for tabs; mlx5_1 administratively disabled; cut after mlx5_2's
// physical state (its rate is not invented).
TEST(AnalyzeDamagedIbstat, NcclTests128DisabledPortIsCritical) {
  Artifact a = analyze_paste("ibstat/nccl-tests-128-ibstat-mixed-down-disabled-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "1 of 3 ports not ACTIVE")) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_1 port 1 DOWN (physical Disabled)")) << a.verdict;
  EXPECT_TRUE(any_contains(a.notes, "administratively disabled"));
  ASSERT_TRUE(a.ibv);
  ASSERT_EQ(a.ibv->devices.size(), 3u);
  EXPECT_EQ(a.ibv->devices[0].ports[0].rate_gbps, 200.0);
  const IbvDevice* cx4 = device(*a.ibv, "mlx5_2");
  ASSERT_NE(cx4, nullptr);
  EXPECT_EQ(cx4->ca_type, "MT4117");
  ASSERT_EQ(cx4->ports.size(), 1u);
  EXPECT_EQ(cx4->ports[0].state, "ACTIVE");
  EXPECT_FALSE(cx4->ports[0].rate_gbps.has_value());
  EXPECT_EQ(cx4->ports[0].link_layer, "");
}

// A pod prompt above `ibstat mlx5_7`: an SR-IOV VF whose link is up but
// whose port is Down (LID 65535, unassigned).
TEST(AnalyzeDamagedIbstat, NetworkOperator249DownWithLinkUp) {
  Artifact a = analyze_paste("ibstat/network-operator-249-ibstat-down-linkup-prompt.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_7 port 1 DOWN (physical LinkUp)")) << a.verdict;
  // The link is up: the advice is the subnet manager / VF configuration, not the cable.
  EXPECT_TRUE(any_contains(a.notes, "subnet manager")) << a.notes.front();
  EXPECT_FALSE(any_contains(a.notes, "check the cable"));
  ASSERT_TRUE(a.ibv);
  ASSERT_EQ(a.ibv->devices.size(), 1u);
  const IbvPort& p = a.ibv->devices[0].ports.at(0);
  EXPECT_EQ(a.ibv->devices[0].ca_type, "MT4124");
  EXPECT_EQ(p.lid, 65535);
  EXPECT_EQ(p.link_layer, "InfiniBand");
}

// Inline-code backticks around a flush-left paste ("`~$ ls ..." and
// "Link layer: InfiniBand`"), an ibpanic line, then an `ibstatus` paste:
// mlx5_ib0 Initializing with the link up (no subnet manager has configured
// it), mlx5_an0 ACTIVE.
TEST(AnalyzeDamagedIbstat, Azhpc59BackticksIbpanicAndIbstatus) {
  Artifact a = analyze_paste("ibstat/azhpc-diagnostics-59-inline-backticks-flush-left-ibpanic-ibstatus.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "1 of 2 ports not ACTIVE")) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_ib0 port 1 INIT (physical LinkUp)")) << a.verdict;
  EXPECT_TRUE(any_contains(a.notes, "subnet manager"));
  ASSERT_TRUE(a.ibv);
  EXPECT_EQ(a.ibv->kind, IbvKind::Ibstat);
  EXPECT_TRUE(any_contains(a.ibv->notes, "ibpanic"));
  EXPECT_TRUE(any_contains(a.ibv->notes, "also holds ibstatus output"));
  ASSERT_EQ(a.ibv->devices.size(), 2u);
  const IbvDevice* ib0 = device(*a.ibv, "mlx5_ib0");
  ASSERT_NE(ib0, nullptr);
  EXPECT_EQ(ib0->ca_type, "MT4124");
  ASSERT_EQ(ib0->ports.size(), 1u);
  EXPECT_EQ(ib0->ports[0].link_layer, "InfiniBand");  // not "InfiniBand`"
  EXPECT_EQ(ib0->ports[0].rate_gbps, 200.0);
  const IbvDevice* an0 = device(*a.ibv, "mlx5_an0");
  ASSERT_NE(an0, nullptr);
  ASSERT_EQ(an0->ports.size(), 1u);
  EXPECT_EQ(an0->ports[0].port, 1);
  EXPECT_EQ(an0->ports[0].state, "ACTIVE");
  EXPECT_EQ(an0->ports[0].physical_state, "LinkUp");
  EXPECT_EQ(an0->ports[0].lid, 0);
  EXPECT_FALSE(an0->ports[0].rate_gbps.has_value());  // the rate line was cut
}

// A fragment between two "...": a port Down and Polling (no cable or no
// peer), the device not named.
TEST(AnalyzeDamagedIbstat, Azhpc76FragmentDownPolling) {
  Artifact a = analyze_paste("ibstat/azhpc-diagnostics-76-fragment-elided-down-polling.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "port 1 DOWN (physical Polling)")) << a.verdict;
  ASSERT_TRUE(a.ibv);
  ASSERT_EQ(a.ibv->devices.size(), 1u);
  EXPECT_EQ(a.ibv->devices[0].name, "");
  ASSERT_EQ(a.ibv->devices[0].ports.size(), 1u);
  EXPECT_FALSE(a.ibv->devices[0].ports[0].rate_gbps.has_value());
  EXPECT_TRUE(any_contains(a.ibv->notes, "device name unknown"));
}

// `ibv_devinfo` after a container prompt: mlx5_0 PORT_DOWN on InfiniBand;
// cut inside mlx5_1, whose ports are not invented.
TEST(AnalyzeDamagedIbstat, Deepep38IbvDevinfoPortDownCut) {
  Artifact a = analyze_paste("ibstat/deepep-38-ibv-devinfo-container-prompt-port-down-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "1 of 1 ports not ACTIVE")) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_0 port 1 DOWN")) << a.verdict;
  ASSERT_TRUE(a.ibv);
  EXPECT_EQ(a.ibv->kind, IbvKind::IbvDevinfo);
  ASSERT_EQ(a.ibv->devices.size(), 2u);
  const IbvPort& p = a.ibv->devices[0].ports.at(0);
  EXPECT_EQ(a.ibv->devices[0].board_id, "MT_0000000838");
  EXPECT_EQ(p.lid, 65535);
  EXPECT_EQ(p.active_mtu, 4096);
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_EQ(a.ibv->devices[1].name, "mlx5_1");
  EXPECT_EQ(a.ibv->devices[1].fw, "28.39.2048");
  EXPECT_TRUE(a.ibv->devices[1].ports.empty());
  EXPECT_TRUE(any_contains(a.ibv->notes, "mlx5_1: no port lines"));
}

// A sentence and a prompt above `ibv_devinfo` on a Hyper-V VM (device
// names rdmaP23800p0s2 / ibP57247p0s2): one ACTIVE Ethernet (RoCE) port,
// then cut inside the second device.
TEST(AnalyzeDamagedIbstat, AzhpcImages44IbvDevinfoHyperVNamesCut) {
  Artifact a = analyze_paste("ibstat/azhpc-images-44-ibv-devinfo-prose-prompt-hyperv-names-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  ASSERT_TRUE(a.ibv);
  ASSERT_EQ(a.ibv->devices.size(), 2u);
  const IbvDevice& eth = a.ibv->devices[0];
  EXPECT_EQ(eth.name, "rdmaP23800p0s2");
  EXPECT_EQ(eth.fw, "14.25.8102");
  ASSERT_EQ(eth.ports.size(), 1u);
  EXPECT_EQ(eth.ports[0].state, "ACTIVE");
  EXPECT_EQ(eth.ports[0].link_layer, "Ethernet");
  EXPECT_EQ(eth.ports[0].active_mtu, 1024);
  EXPECT_EQ(a.ibv->devices[1].name, "ibP57247p0s2");
  EXPECT_TRUE(a.ibv->devices[1].ports.empty());
  EXPECT_TRUE(any_contains(a.ibv->notes, "ibP57247p0s2: no port lines"));
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;  // a device cut off: not all ACTIVE
  EXPECT_TRUE(verdict_has(a, "ibP57247p0s2 (no port lines in the paste)")) << a.verdict;
}

// A prompt above `ibstat` of bonded RoCE devices: two ACTIVE Ethernet
// ports; cut inside mlx5_bond_2.
TEST(AnalyzeDamagedIbstat, PplxGarden2BondRoceCut) {
  Artifact a = analyze_paste("ibstat/pplx-garden-2-ibstat-prompt-bond-roce-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  ASSERT_TRUE(a.ibv);
  ASSERT_EQ(a.ibv->devices.size(), 3u);
  for (const char* name : {"mlx5_bond_0", "mlx5_bond_1"}) {
    const IbvDevice* d = device(*a.ibv, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->ca_type, "MT41692");
    ASSERT_EQ(d->ports.size(), 1u);
    EXPECT_EQ(d->ports[0].state, "ACTIVE");
    EXPECT_EQ(d->ports[0].rate_gbps, 200.0);
    EXPECT_EQ(d->ports[0].link_layer, "Ethernet");
  }
  EXPECT_TRUE(a.ibv->devices[2].ports.empty());
  EXPECT_EQ(a.ibv->devices[2].node_guid, "c470:bd03:0072:2baa");
  EXPECT_TRUE(any_contains(a.ibv->notes, "mlx5_bond_2: no port lines"));
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_bond_2 (no port lines in the paste)")) << a.verdict;
}

// The end of a matrix paste (its legend and NIC Legend), then `ibstatus`:
// mlx5_0/mlx5_1 ACTIVE 100 Gb/s RoCE; cut inside mlx5_2, whose state is
// unknown.
TEST(AnalyzeDamagedIbstat, Nccl1866LegendThenIbstatusCut) {
  Artifact a = analyze_paste("ibstat/nccl-1866-smi-legend-then-ibstatus-roce-cut.txt");
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.kind, ArtifactKind::Ibv);
  ASSERT_TRUE(a.ibv);
  EXPECT_EQ(a.ibv->kind, IbvKind::Ibstatus);
  ASSERT_EQ(a.ibv->devices.size(), 3u);
  for (const char* name : {"mlx5_0", "mlx5_1"}) {
    const IbvDevice* d = device(*a.ibv, name);
    ASSERT_NE(d, nullptr) << name;
    ASSERT_EQ(d->ports.size(), 1u);
    EXPECT_EQ(d->ports[0].port, 1);
    EXPECT_EQ(d->ports[0].state, "ACTIVE");
    EXPECT_EQ(d->ports[0].physical_state, "LinkUp");
    EXPECT_EQ(d->ports[0].rate_gbps, 100.0);
    EXPECT_EQ(d->ports[0].link_layer, "Ethernet");
    EXPECT_EQ(d->ports[0].lid, 0);
  }
  const IbvDevice* cut = device(*a.ibv, "mlx5_2");
  ASSERT_NE(cut, nullptr);
  ASSERT_EQ(cut->ports.size(), 1u);
  EXPECT_EQ(cut->ports[0].state, "");
  EXPECT_TRUE(any_contains(a.ibv->notes, "mlx5_2 port 1: no State line"));
  EXPECT_FALSE(any_contains(a.ibv->notes, "also holds ibv_devinfo output"));
}

// The status of the paste above: two ports ACTIVE and mlx5_2's state cut
// off is UNKNOWN naming mlx5_2, not CRITICAL (a port without a State line
// is unknown, never "not ACTIVE").
TEST(AnalyzeDamagedIbstat, Nccl1866CutPortIsUnknownNotDown) {
  Artifact a = analyze_paste("ibstat/nccl-1866-smi-legend-then-ibstatus-roce-cut.txt");
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "mlx5_2 port 1 (no State line in the paste)")) << a.verdict;
  EXPECT_TRUE(verdict_has(a, "the other ports listed are ACTIVE")) << a.verdict;
}

}  // namespace
}  // namespace gdrcheck

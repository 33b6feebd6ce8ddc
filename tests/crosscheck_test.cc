// `analyze TOPOLOGY LOG`: predicted vs observed per GPU. Real pairs from
// public threads (tests/data/pairs/PROVENANCE.md: each test asserts that
// file's "expected conclusion"), and small logs written here against a
// real topology (OCI BM.GPU.H100.8, NCCL's own dump) for each verdict.
#include "analyze/crosscheck.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analyze/artifact.h"
#include "analyze/crosscheck_prediction.h"
#include "recorded_fixtures.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

using testing::oci_h100_xml;
using testing::test_data;

Crosscheck pair_check(const std::string& dir, const CrosscheckUser& user = {}) {
  std::string base = test_data("pairs/" + dir + "/");
  std::string topo = base + "topology.txt";
  if (!std::ifstream(topo)) topo = base + "topology.xml";
  Artifact t = analyze_file(topo), log = analyze_file(base + "nccl.log");
  if (!t.error.empty() || !t.topology) throw std::runtime_error(topo + ": " + t.error);
  return crosscheck_topology_file(*t.topology, topo, *log.nccl_log, log.file, user);
}

const CrosscheckRow* crosscheck_row(const Crosscheck& c, const std::string& host, int rank) {
  for (const auto& r : c.rows)
    if (r.host == host && r.rank == rank) return &r;
  return nullptr;
}

// nccl #1453: rank 0 sends and receives via NET/IBext_v8/7/GDRDMA; GPU0's
// PIX NIC gives GDR: agree, the NIC unnamed (no NET/IB : Using list).
TEST(CrosscheckPairs, H100NineNicsGdrAgreesNicUnnamed) {
  Crosscheck c = pair_check("nccl-1453-h100-9nic-ibext-gdrdma");
  const CrosscheckRow* r = crosscheck_row(c, "h100clust-worker-1", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->gpu, "GPU0");
  EXPECT_EQ(r->agree, "yes");
  EXPECT_EQ(r->observed.gdr_send, "yes");
  EXPECT_EQ(r->observed.gdr_recv, "yes");
  EXPECT_EQ(r->observed.nic, "NET/IBext_v8/7");
  EXPECT_NE(r->cause.find("NIC is not named"), std::string::npos) << r->cause;
}

// nccl #1657: no channel lines; "GPU Direct RDMA Disabled for GPU 42000 /
// HCA 0 (distance 6 > 4)": HCA 0 is at PHB, where the matrix has NIC0 and
// NIC1 (NODE), and the default level gives no GDR there: agree.
TEST(CrosscheckPairs, GdrDisabledLineAgreesWithThePathClass) {
  Crosscheck c = pair_check("nccl-1657-1gpu-4nic-node-distance-disabled");
  ASSERT_EQ(c.rows.size(), 1u);
  const CrosscheckRow& r = c.rows[0];
  EXPECT_EQ(r.gpu, "GPU0");
  EXPECT_EQ(r.observed.gdr_recv, "no");
  EXPECT_EQ(r.agree, "yes") << r.cause;
  EXPECT_NE(r.cause.find("HCA 0 at PHB"), std::string::npos) << r.cause;
  EXPECT_NE(r.cause.find("one of NIC0, NIC1"), std::string::npos) << r.cause;
}

// nccl-tests #350: GDR used at distance 6 <= 7 where the matrix puts the
// NICs at NODE (NCCL's PHB): differs, the level was raised; net 1 is NIC2
// or NIC3, not NIC1.
TEST(CrosscheckPairs, RaisedGdrLevelNotEchoedIsTheCause) {
  Crosscheck c = pair_check("nccl-tests-350-1gpu-4nic-node-gdrdma-dist6");
  const CrosscheckRow* r = crosscheck_row(c, "n013", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->agree, "no");
  EXPECT_EQ(r->predicted.gdr_send, "no");
  EXPECT_EQ(r->observed.gdr_send, "yes");
  EXPECT_NE(r->cause.find("GDR level on that host was SYS"), std::string::npos) << r->cause;
  EXPECT_NE(r->cause.find("HCA 1 at PHB is one of NIC2, NIC3"), std::string::npos) << r->cause;
  EXPECT_EQ(c.rows.size(), 1u);  // the GDR line is the same GPU as rank 0, not another row
}

// nccl #707: the log's GPUs are named by bus id (87, 8d, c7, ca), the
// matrix has no bus ids and its rows for those GPUs are cut: placing them
// by CUDA index is not proof, so nothing is called a difference.
TEST(CrosscheckPairs, GpusPlacedByIndexOnlyAreInconclusive) {
  Crosscheck c = pair_check("nccl-707-a100-18nic-p2p-loc-gdrdma");
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_NE(r.agree, "no") << r.gpu << ": " << r.cause;
    if (r.observed_by.empty()) continue;
    EXPECT_EQ(r.agree, "inconclusive");
    EXPECT_NE(r.mapped_by.find("index only"), std::string::npos) << r.mapped_by;
    EXPECT_NE(r.cause.find("not in the log's NET/IB list"), std::string::npos) << r.cause;
  }
}

// Logs cut before any channel line: nothing to compare, said once.
TEST(CrosscheckPairs, LogsWithoutChannelLinesAreInconclusive) {
  for (const char* dir : {"nccl-1737-h100-6nic-ibext-sharp-no-channels", "nccl-tests-293-a100pcie-1nic-sys-no-channels",
                          "horovod-288-v100-1nic-sys-2.4.7"}) {
    Crosscheck c = pair_check(dir);
    ASSERT_FALSE(c.notes.empty()) << dir;
    EXPECT_NE(c.notes.front().find("no NET channel lines"), std::string::npos) << dir;
    for (const auto& r : c.rows) EXPECT_EQ(r.agree, "inconclusive") << dir << " " << r.gpu;
  }
  // #1737: the prompt's NCCL_NET_GDR_LEVEL=0 is not an echoed setting.
  Crosscheck c = pair_check("nccl-1737-h100-6nic-ibext-sharp-no-channels");
  EXPECT_NE(c.predicted_with.find("no NCCL setting echoed"), std::string::npos) << c.predicted_with;
  const CrosscheckRow* r = crosscheck_row(c, "gh-3714u06", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->gpu, "GPU0");
  EXPECT_EQ(r->predicted.gdr_recv, "yes");
}

// nccl #392: the NCCL dump in the thread is cut mid-file: not a topology
// gdrcheck loads (the test says so rather than predicting from half a tree).
TEST(CrosscheckPairs, CutTopologyXmlIsRefusedByName) {
  Artifact t = analyze_file(test_data("pairs/nccl-392-v100-roce-xml-gdr0/topology.xml"));
  EXPECT_FALSE(t.topology);
  EXPECT_NE(t.error.find("malformed XML"), std::string::npos) << t.error;
}

// nccl-tests #311: 8×A100 with its NIC Legend, NCCL 2.23.4 with the HPC-X
// plugin, PXN sends (`5(2)`, `0(4)`, `1(6)`). Each host runs 2 GPUs whose
// NVML numbering restarts at 0 (nvmlDev 0 is 7000 on gpu34, 88000 on
// gpu36): an index is no row of the matrix, so nothing may differ.
TEST(CrosscheckPairs, PxnRanksAndContainerNumberingNeverDiffer) {
  Crosscheck c = pair_check("nccl-tests-311-a100-10nic-legend-pxn-ibext");
  ASSERT_EQ(c.rows.size(), 8u);
  for (const auto& r : c.rows) {
    EXPECT_NE(r.agree, "no") << r.host << " rank " << r.rank << ": " << r.cause;
    EXPECT_NE(r.mapped_by.find("index only"), std::string::npos) << r.mapped_by;
    EXPECT_EQ(r.observed.gdr_send, "yes") << r.host << " rank " << r.rank;
  }
  // The device list (printed as NET/IB by the plugin) names the channel lines' NET/IBext_v8 devices.
  const CrosscheckRow* r0 = crosscheck_row(c, "gpu34", 0);
  ASSERT_NE(r0, nullptr);
  EXPECT_EQ(r0->observed.nic, "mlx5_0");
  EXPECT_EQ(r0->agree, "yes");
  const CrosscheckRow* r3 = crosscheck_row(c, "gpu36", 3);  // PXN through rank 2's mlx5_4
  ASSERT_NE(r3, nullptr);
  EXPECT_EQ(r3->observed.nic, "mlx5_4");
}

// nccl-tests #321: H20 VMs, each GPU on its own NIC, the other NIC through
// the neighbour (PXN), every line GDRDMA; the matrix has no NIC Legend.
TEST(CrosscheckPairs, PxnThroughTheNeighbourAgreesNicsUnnamedInTheMatrix) {
  Crosscheck c = pair_check("nccl-tests-321-h20-vm-8nic-pxn-rdma-plugin");
  ASSERT_EQ(c.rows.size(), 4u);
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.agree, "yes") << r.host << " rank " << r.rank << ": " << r.cause;
    EXPECT_EQ(r.observed.nic, "mlx5_bond_6, mlx5_bond_7");
    EXPECT_NE(r.cause.find("by label only"), std::string::npos) << r.cause;
  }
  // cudaDev is not nvmlDev here (CUDA_VISIBLE_DEVICES=1,0): rank 0 is GPU1.
  EXPECT_EQ(crosscheck_row(c, "vm-host40", 0)->gpu, "GPU1");
  EXPECT_EQ(crosscheck_row(c, "vm-host40", 1)->gpu, "GPU0");
  EXPECT_NE(c.predicted_with.find("NCCL_NET_GDR_LEVEL=PIX (the log's)"), std::string::npos);
}

// nccl-tests #293, the run at the default level: SYS, no GDR predicted,
// none observed, the NIC named by the list: a full agreement.
TEST(CrosscheckPairs, NoGdrPredictedAndObserved) {
  Crosscheck c = pair_check("nccl-tests-293-a100pcie-1nic-sys-default-no-gdr");
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.agree, "yes") << r.cause;
    EXPECT_EQ(r.predicted.gdr_recv, "no");
    EXPECT_EQ(r.observed.gdr_recv, "no");
    EXPECT_EQ(r.observed.nic, "mlx5_0");
  }
}

// ---- small logs against a real topology ----

Crosscheck against_oci(const std::string& log_text, const CrosscheckUser& user = {}) {
  Topology t = load_topology_file(oci_h100_xml(), TopologyFileKind::Auto);
  return crosscheck_topology_file(t, oci_h100_xml(), parse_nccl_log(log_text), "job.log", user);
}

std::string job_log(const std::string& extra, const std::string& via, const std::string& bus = "f000") {
  return "node1:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
         "node1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.0.0.1<0>\n" +
         extra + "node1:100:100 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId " +
         bus + " commId 0x1 - Init START\n" + "node1:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via " +
         via + "\n" + "node1:100:200 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via " + via + "\n";
}

TEST(Crosscheck, AgreeWhenTheLogShowsWhatTheTopologyGives) {
  Crosscheck c = against_oci(job_log("", "NET/IB/0/GDRDMA"));
  ASSERT_EQ(c.rows.size(), 1u);
  const CrosscheckRow& r = c.rows[0];
  EXPECT_EQ(r.gpu, "GPU0");
  EXPECT_EQ(r.mapped_by, "busId 0000:0f:00.0");
  EXPECT_EQ(r.predicted.nic, "mlx5_0");
  EXPECT_EQ(r.observed.nic, "mlx5_0");
  EXPECT_EQ(r.agree, "yes");
  EXPECT_EQ(crosscheck_status({c}), Status::Ok);
  EXPECT_NE(c.predicted_with.find("NCCL 2.21.5 (the log's)"), std::string::npos) << c.predicted_with;
}

TEST(Crosscheck, NoGdrWhereTheTopologyGivesItPointsAtPeerMemory) {
  Crosscheck c = against_oci(job_log("", "NET/IB/0"));
  const CrosscheckRow& r = c.rows.at(0);
  EXPECT_EQ(r.agree, "no");
  EXPECT_EQ(r.observed.gdr_recv, "no");
  EXPECT_NE(r.cause.find("peer memory"), std::string::npos) << r.cause;
  EXPECT_EQ(crosscheck_status({c}), Status::Warning);
}

// The log's own settings are predicted with; the user's --env wins over
// them, and then the log's setting is the cause of the difference.
TEST(Crosscheck, TheLogsSettingsAreUsedUnlessTheUserSaysOtherwise) {
  std::string echo = "node1:100:100 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to LOC\n";
  Crosscheck with_log = against_oci(job_log(echo, "NET/IB/0"));
  EXPECT_EQ(with_log.rows.at(0).predicted.gdr_recv, "no");
  EXPECT_EQ(with_log.rows.at(0).agree, "yes");
  CrosscheckUser user;
  user.env.push_back({"NCCL_NET_GDR_LEVEL", "PXB", "--env"});
  Crosscheck overridden = against_oci(job_log(echo, "NET/IB/0"), user);
  const CrosscheckRow& r = overridden.rows.at(0);
  EXPECT_EQ(r.predicted.gdr_recv, "yes");
  EXPECT_EQ(r.agree, "no");
  EXPECT_NE(r.cause.find("NCCL_NET_GDR_LEVEL=LOC in the log's environment (line 3)"), std::string::npos) << r.cause;
}

// The log's NCCL_IB_HCA is predicted with: the NIC it leaves agrees;
// without it, another NIC is a difference.
TEST(Crosscheck, AnotherNicIsADifferenceUnlessTheLogsHcaFilterExplainsIt) {
  std::string echo = "node1:100:100 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_3\n";
  Crosscheck filtered = against_oci(job_log(echo, "NET/IB/1/GDRDMA"));
  EXPECT_EQ(filtered.rows.at(0).predicted.nic, "mlx5_3");
  EXPECT_EQ(filtered.rows.at(0).agree, "yes") << filtered.rows.at(0).cause;
  Crosscheck c = against_oci(job_log("", "NET/IB/1/GDRDMA"));
  const CrosscheckRow& r = c.rows.at(0);
  EXPECT_EQ(r.observed.nic, "mlx5_3");
  EXPECT_EQ(r.agree, "no");
  EXPECT_NE(r.cause.find("NCCL used another NIC than the topology's nearest"), std::string::npos) << r.cause;
}

TEST(Crosscheck, AnotherReleaseThanTheLogsIsNoted) {
  CrosscheckUser user;
  user.nccl_version = NcclVersion{2, 18, 3};
  Crosscheck c = against_oci(job_log("", "NET/IB/0/GDRDMA"), user);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("predicted for NCCL 2.18.3 (--nccl-version), the log ran NCCL 2.21.5"), std::string::npos);
  EXPECT_TRUE(against_oci(job_log("", "NET/IB/0/GDRDMA")).notes.empty());
}

TEST(Crosscheck, AGpuTheTopologyDoesNotHaveIsNotCompared) {
  Crosscheck c = against_oci(job_log("", "NET/IB/0/GDRDMA", "e1000"));
  const CrosscheckRow& r = c.rows.at(0);
  EXPECT_EQ(r.gpu, "");
  EXPECT_EQ(r.agree, "inconclusive");
  EXPECT_NE(r.cause.find("0000:e1:00.0 is not a GPU of the topology"), std::string::npos) << r.cause;
}

}  // namespace
}  // namespace gdrcheck

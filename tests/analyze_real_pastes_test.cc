// `gdrcheck analyze` on pastes users posted publicly (tests/data/smi,
// tests/data/nccl-tests, tests/data/nccl-logs; each folder's PROVENANCE.md
// names the source). Each expectation was read off the paste by hand.
#include <gtest/gtest.h>

#include <string>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::test_data;

bool verdict_says(const Artifact& a, const std::string& text) {
  return a.verdict.find(text) != std::string::npos;
}

// --- nvidia-smi topo -m ---------------------------------------------------

// Shell prompt above the header, tabs expanded; GPU7's row is cut, so GPU7
// is unknown while GPU0-GPU6 are PIX to NIC0/NIC1 or NIC2/NIC3.
TEST(AnalyzeRealPastesSmi, Sglang4655CutGpu7IsUnknown) {
  Artifact a = analyze_file(test_data("smi/sglang-4655-8gpu-pix-6nic-prompt-cut.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  EXPECT_TRUE(verdict_says(a, "GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6 have a NIC behind their PCIe switch"))
      << a.verdict;
}

// Header without its leading tab, NIC rows with empty trailing cells, legend
// cut. Every GPU reaches its nearest NIC through NODE only: no GDR by default.
TEST(AnalyzeRealPastesSmi, Sglang7783NodeOnlyIsCritical) {
  Artifact a = analyze_file(test_data("smi/sglang-7783-4gpu-9nic-node-only-no-indent-cut.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_TRUE(verdict_says(a, "4 of 4 GPUs have no NIC behind their PCIe switch")) << a.verdict;
  ASSERT_TRUE(a.topology);
  EXPECT_EQ(a.topology->with_role(DeviceRole::Gpu).size(), 4u);
  EXPECT_EQ(a.topology->with_role(DeviceRole::Nic).size(), 9u);
}

// One PIX NIC per GPU (GPUi-NICi); cut after GPU5's row.
TEST(AnalyzeRealPastesSmi, Deepep128CutAfterGpu5) {
  Artifact a = analyze_file(test_data("smi/deepep-128-8gpu-10nic-pix-each-cut.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU6, GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  EXPECT_TRUE(verdict_says(a, "GPU0, GPU1, GPU2, GPU3, GPU4, GPU5 have a NIC behind their PCIe switch")) << a.verdict;
}

// --- nccl-tests ------------------------------------------------------------

// Command line above the output, 8 RTX 4090 on one host; cut after the
// units line, so no row survived.
TEST(AnalyzeRealPastesNcclTests, Nccl1530CommandAboveNoRows) {
  Artifact a = analyze_file(test_data("nccl-tests/nccl-1530-tree-4090-command-above-cut.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclTests);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_TRUE(a.nccl_tests);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts.size(), 1u);
  EXPECT_TRUE(run.rows.empty());
  EXPECT_FALSE(run.complete);
}

// Four hosts, one row, a blank line between the header and the row. The
// busbw/algbw ratio 1.5 = 2(n-1)/n with n = 4 is all_reduce's.
TEST(AnalyzeRealPastesNcclTests, Nccl908OneRowFourHosts) {
  Artifact a = analyze_file(test_data("nccl-tests/nccl-908-gdrcopy-t600-4-hosts-blank-after-header.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclTests);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;  // no NCCL INFO lines: the data path is not shown
  ASSERT_TRUE(a.nccl_tests);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_EQ(run.ranks.size(), 4u);
  EXPECT_EQ(run.hosts.size(), 4u);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].size, 4194304u);
  ASSERT_TRUE(run.rows[0].out_of_place);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->busbw, 2.44);
  ASSERT_TRUE(run.avg_busbw);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 2.44268);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_FALSE(run.failed);
}

// Every line behind Open MPI's "[1,0]<stdout>:" tag; the table prints
// in-place before out-of-place, without type/redop/root columns, and the
// one row has one half only: 4089446400 B, 16710 us, algbw 244.74, busbw
// 229.44, 0 wrong; "Out of bounds values : 0 OK".
// The header has no type column and names in-place first; both are read
// from the header, not assumed.
TEST(AnalyzeRealPastesNcclTests, MscclppPr108TaggedRowIsRead) {
  Artifact a = analyze_file(test_data("nccl-tests/mscclpp-pr108-openmpi-tag-in-place-first-one-row.txt"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclTests);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_TRUE(a.nccl_tests);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].size, 4089446400u);
  ASSERT_TRUE(run.rows[0].in_place);
  EXPECT_DOUBLE_EQ(run.rows[0].in_place->busbw, 229.44);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_FALSE(run.failed);
}

// --- NCCL logs --------------------------------------------------------------

// The WARN line wrapped after "len": "with error 12, opcode 0, len" / "0,
// vendor err 129 (Recv)". Error 12 is on the first half, so it is found.
TEST(AnalyzeRealPastesNcclLog, MlEngineeringWrappedError12IsCritical) {
  Artifact a = analyze_file(test_data("nccl-logs/ml-engineering-zh-azure-error12-wrapped-warn.log"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  EXPECT_NE(a.nccl_log->reason("ib_completion_error"), nullptr);
  EXPECT_EQ(a.nccl_log->net_transport, "IB");
  EXPECT_EQ(a.nccl_log->net_connections, 0u);
}

// The WARN split over three lines by the writer: "... NCCL WARN NET/IB:" /
// "Got completion from peer 10.77.0.1<35162> with status=12 ... (Recv)" /
// "localGid ... hca roceP2p1s0f0", then "Abort COMPLETE" and nccl-tests'
// "Test NCCL failure ... network error". The job failed on IB completion
// status 12 (transport retry counter exceeded) on roceP2p1s0f0: CRITICAL.
// (The status on the continuation line is read as a bare line.)
TEST(AnalyzeRealPastesNcclLog, DgxSparkSplitStatus12IsCritical) {
  Artifact a = analyze_file(test_data("nccl-logs/dgx-spark-bond-status12-warn-split-3-lines.log"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  EXPECT_NE(a.nccl_log->reason("ib_completion_error"), nullptr);
}

// Two hosts: status=5 (work request flushed, vendor err 249) on
// atl1g3r4u9gpu/mlx5_9, then status=12 (retry counter exceeded, vendor err
// 129) on atl1g3r1u16gpu/mlx5_10. A flush is always the consequence of an
// earlier error; the error that explains the failure here is 12.
TEST(AnalyzeRealPastesNcclLog, RunbookStatus12LeadsOverFlush) {
  Artifact a = analyze_file(test_data("nccl-logs/runbook-roce-status5-then-status12-hca.log"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  EXPECT_EQ(a.nccl_log->hosts.size(), 2u);
}

// RoCE with an Intel iWARP device (i40iw0) in the list; three receive
// channels via NET/IB/0 and /1, none with GDRDMA. Cut before the WARN the
// issue title quotes.
TEST(AnalyzeRealPastesNcclLog, Pytorch81628ReceivesWithoutGdr) {
  Artifact a = analyze_file(test_data("nccl-logs/pytorch-81628-roce-i40iw-receive-no-gdr-cut.log"));
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  EXPECT_EQ(a.nccl_log->net_transport, "IB");
  EXPECT_EQ(a.nccl_log->net_devices.size(), 3u);
  EXPECT_EQ(a.nccl_log->net_connections, 3u);
  EXPECT_EQ(a.nccl_log->gdr_connections, 0u);
  EXPECT_EQ(a.nccl_log->verdict, GdrVerdict::No);
}

}  // namespace
}  // namespace gdrcheck

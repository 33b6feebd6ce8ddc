// `gdrcheck analyze` on the damaged pastes of tests/data/pastes (see its
// PROVENANCE.md for each file's source, damage and correct reading).
#include <gtest/gtest.h>

#include <string>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::contains;
using testing::test_data;

Artifact analyze_perftest_paste(const std::string& name) {
  return analyze_file(test_data("pastes/perftest/" + name));
}

bool run_note(const PerftestRun& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (contains(n, part)) return true;
  return false;
}

// Every run of the paste, with no figure the paste does not hold.
void expect_no_port_rate(const Artifact& a) {
  for (const auto& r : a.perftest->runs) {
    EXPECT_FALSE(r.port_rate_gbps) << r.verdict;
    EXPECT_FALSE(r.vs_port) << r.verdict;
  }
}

// Starts after the Device and Number-of-qps lines; 4 local and 4 remote
// address lines; a closing fence. 64 KiB, BW average 111.71 Gb/s, 0.213
// Mpps. The CUDA lines would be above the cut: the memory is not shown.
TEST(AnalyzeDamagedPerftest, DgxSparkFourQpsCutAboveTheDevice) {
  Artifact a = analyze_perftest_paste("dgx-spark-notes-write-bw-4qp-rdma-cm-cut.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.device, "");  // named only in the prose around it
  EXPECT_EQ(r.report.link_type, "IB");
  EXPECT_EQ(r.report.qps, 4);  // one "local address" line per QP
  EXPECT_EQ(r.report.unit, PerftestUnit::Gbits);
  ASSERT_EQ(r.report.rows.size(), 1u);
  EXPECT_EQ(r.report.rows[0].bytes, 65536u);
  EXPECT_DOUBLE_EQ(r.report.rows[0].bw_peak, 111.72);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 111.71);
  EXPECT_DOUBLE_EQ(*r.report.rows[0].msg_rate_mpps, 0.213070);
  EXPECT_FALSE(r.start_shown);
  EXPECT_TRUE(contains(a.verdict, "memory not shown")) << a.verdict;
  EXPECT_FALSE(contains(a.verdict, "host memory only")) << a.verdict;
  EXPECT_FALSE(r.peak_not_measured);
  expect_no_port_rate(a);
}

// RST code block: every line indented 6 spaces, the dash rules 5; starts
// at the banner. Sweep 2 B to 8 MiB; ~92.4 Gb/s from 16 KiB up; host
// memory (the command in the document has no --use_cuda).
TEST(AnalyzeDamagedPerftest, GpuOperatorDocsIndentedSweep) {
  Artifact a = analyze_perftest_paste("gpu-operator-docs-rst-indented-write-bw-sweep.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.test, "RDMA_Write BW Test");
  EXPECT_EQ(r.report.device, "mlx5_0");
  EXPECT_EQ(r.report.link_type, "Ethernet");
  EXPECT_EQ(r.report.qps, 1);
  ASSERT_EQ(r.report.rows.size(), 23u);
  EXPECT_EQ(r.report.rows.front().bytes, 2u);
  EXPECT_EQ(r.report.rows.back().bytes, 8388608u);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 92.39);
  EXPECT_TRUE(contains(a.verdict, "92.39 Gb/s at 8 MiB")) << a.verdict;
  EXPECT_TRUE(contains(a.verdict, "host memory only")) << a.verdict;
  EXPECT_TRUE(run_note(r, "best average is 92.46 Gb/s at 16 KiB"));
  expect_no_port_rate(a);
}

// Two tables in one post, unfenced, with the poster's labels; the header
// without its leading space; Markdown bold glued to the average
// ("**5544.28**"). MB/sec: 5544.28 MB/s = 46.51 Gb/s and 920.13 MB/s =
// 7.72 Gb/s at 1 KiB; BW peak 0.00 is "not measured".
TEST(AnalyzeDamagedPerftest, Perftest65MarkdownBoldTwoTables) {
  Artifact a = analyze_perftest_paste("perftest-65-send-bw-markdown-bold-two-cases.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 2u);
  const double mb = 1048576.0 * 8 / 1e9;
  const double averages[] = {5544.28, 920.13};
  const double rates[] = {5.677340, 0.942218};
  for (std::size_t i = 0; i < 2; ++i) {
    const PerftestRun& r = a.perftest->runs[i];
    EXPECT_EQ(r.report.unit, PerftestUnit::MBytes);
    ASSERT_EQ(r.report.rows.size(), 1u) << i;
    EXPECT_EQ(r.report.rows[0].bytes, 1024u);
    EXPECT_EQ(r.report.rows[0].iterations, 1000u);
    EXPECT_DOUBLE_EQ(r.report.rows[0].bw_average, averages[i]);
    EXPECT_DOUBLE_EQ(*r.report.rows[0].msg_rate_mpps, rates[i]);
    EXPECT_NEAR(*r.average_gbits, averages[i] * mb, 1e-9);
    EXPECT_TRUE(r.peak_not_measured);
    EXPECT_EQ(r.status, Status::Unknown);
    EXPECT_TRUE(contains(r.verdict, "memory not shown")) << r.verdict;
  }
  EXPECT_EQ(a.perftest->runs[1].first_line, 6u);
  expect_no_port_rate(a);
}

// A date line and a `set -x` trace (`+ taskset -c 17 ib_send_bw ...`) above
// the header; cut after the header block: no result row.
TEST(AnalyzeDamagedPerftest, Perftest82TasksetTraceNoResult) {
  Artifact a = analyze_perftest_paste("perftest-82-send-bw-taskset-command-bond-cut.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.program, "ib_send_bw");
  EXPECT_EQ(r.command.line, 3u);
  EXPECT_TRUE(r.command_gbits);
  EXPECT_FALSE(r.command_cuda);
  EXPECT_EQ(r.report.test, "Send BW Test");
  EXPECT_EQ(r.report.device, "mlx5_bond_0");
  EXPECT_EQ(r.report.link_type, "Ethernet");
  EXPECT_TRUE(r.report.rows.empty());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(contains(a.verdict, "no result row")) << a.verdict;
}

// Server side with --use_cuda (2018 CUDA lines), prompt line above; cut
// before the results: the GPU buffer was allocated, nothing measured.
TEST(AnalyzeDamagedPerftest, PerftestPr21UseCudaServerNoResult) {
  Artifact a = analyze_perftest_paste("perftest-pr21-use-cuda-v100-roce-server-cut.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;  // not OK: no result, no proof
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.program, "ib_write_bw");
  EXPECT_TRUE(r.command_cuda);
  EXPECT_TRUE(r.report.gpu_buffer);
  EXPECT_EQ(r.report.gpu_name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(r.report.device, "mlx5_2");
  EXPECT_EQ(r.report.link_type, "Ethernet");
  EXPECT_TRUE(r.report.rows.empty());
  EXPECT_TRUE(contains(a.verdict, "GPU memory (Tesla V100-SXM2-32GB)")) << a.verdict;
  EXPECT_TRUE(contains(a.verdict, "no result row")) << a.verdict;
  EXPECT_TRUE(run_note(r, "GPU buffer was allocated"));
}

// 4-space indented, tabs turned into spaces; cut before the results table.
TEST(AnalyzeDamagedPerftest, PerftestPr214IndentedNoResult) {
  Artifact a = analyze_perftest_paste("perftest-pr214-indented-report-gbits-ibp5-cut.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.test, "RDMA_Write BW Test");
  EXPECT_EQ(r.report.device, "ibp5");
  EXPECT_EQ(r.report.link_type, "IB");
  EXPECT_EQ(r.report.qps, 1);
  EXPECT_TRUE(r.report.rows.empty());
  EXPECT_EQ(r.report.unit, PerftestUnit::Unknown);  // the command with --report_gbits is not in the file
  EXPECT_TRUE(contains(a.verdict, "no result row")) << a.verdict;
}

// Starts at `Dual-port`, closed by a four-backtick fence. 64 KiB, 9.81
// Gb/s on rocep18s0f0 over RoCE; the memory is not shown.
TEST(AnalyzeDamagedPerftest, ProxmoxQuadFenceOneRow) {
  Artifact a = analyze_perftest_paste("proxmox-notes-send-bw-roce-quad-fence.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.device, "rocep18s0f0");
  EXPECT_EQ(r.report.link_type, "Ethernet");
  ASSERT_EQ(r.report.rows.size(), 1u);
  EXPECT_EQ(r.report.rows[0].bytes, 65536u);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 9.81);
  EXPECT_TRUE(contains(a.verdict, "memory not shown")) << a.verdict;
  expect_no_port_rate(a);
}

// 3 QPs with a GID line each; duration mode: BW peak 0.00, 4159603
// iterations. 64 KiB, 363.47 Gb/s average, 0.693 Mpps.
TEST(AnalyzeDamagedPerftest, Scc24DurationModePeakZero) {
  Artifact a = analyze_perftest_paste("scc24-blog-write-bw-3qp-duration-peak-zero-cut.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.link_type, "Ethernet");
  EXPECT_EQ(r.report.qps, 3);
  ASSERT_EQ(r.report.rows.size(), 1u);
  EXPECT_EQ(r.report.rows[0].iterations, 4159603u);
  EXPECT_DOUBLE_EQ(r.report.rows[0].bw_peak, 0);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 363.47);
  EXPECT_DOUBLE_EQ(*r.report.rows[0].msg_rate_mpps, 0.693268);
  EXPECT_TRUE(r.peak_not_measured);
  EXPECT_TRUE(run_note(r, "BW peak was not measured"));
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(contains(a.verdict, "memory not shown")) << a.verdict;
  expect_no_port_rate(a);
}

// Chinese prose between fences, a kubectl command in its own fence, `ip a`
// output and the prompt glued above the server command; server (one row)
// then client (sweep) of the same --use_cuda run on A100s over IB, 2 QPs.
// Both sides GPU memory: 80.96 Gb/s at 8 MiB, best 81.24 at 64 KiB.
TEST(AnalyzeDamagedPerftest, K8sDocA100ServerAndClientWithProse) {
  Artifact a = analyze_perftest_paste("k8s-doc-a100-pods-write-bw-cuda-server-client-chinese-prose.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 2u);
  const PerftestRun& server = a.perftest->runs[0];
  const PerftestRun& client = a.perftest->runs[1];
  EXPECT_EQ(server.first_line, 15u);  // the command, not the prose above it
  for (const PerftestRun* r : {&server, &client}) {
    EXPECT_EQ(r->program, "ib_write_bw");
    EXPECT_TRUE(r->command_cuda);
    EXPECT_TRUE(r->report.gpu_buffer);
    EXPECT_EQ(r->report.gpu_name, "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(r->report.device, "mlx5_0");
    EXPECT_EQ(r->report.link_type, "IB");
    EXPECT_EQ(r->report.qps, 2);
    EXPECT_EQ(r->status, Status::Ok);
    EXPECT_DOUBLE_EQ(*r->average_gbits, 80.96);
  }
  ASSERT_EQ(server.report.rows.size(), 1u);
  EXPECT_EQ(server.report.rows[0].bytes, 8388608u);
  ASSERT_EQ(client.report.rows.size(), 23u);
  EXPECT_DOUBLE_EQ(client.report.rows[0].bw_average, 0.060962);
  EXPECT_TRUE(run_note(client, "best average is 81.24 Gb/s at 64 KiB"));
  EXPECT_TRUE(contains(a.verdict, "GPUDirect RDMA works on this side")) << a.verdict;
  expect_no_port_rate(a);
}

// `oc logs` with `...` for the lines it skipped, then the client's CUDA
// lines on a Tesla T4; 2 QPs over RoCE rdma_cm; sweep 2 B to 8 MiB,
// 22.99 Gb/s at 8 MiB (best 23.22 at 128 KiB).
TEST(AnalyzeDamagedPerftest, OpenshiftDocT4OcLogsSweep) {
  Artifact a = analyze_perftest_paste("openshift-doc-t4-write-bw-cuda-oc-logs-ellipsis-2qp-sweep.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.program, "");  // `oc logs` is no perftest command
  EXPECT_TRUE(r.report.gpu_buffer);
  EXPECT_EQ(r.report.gpu_name, "Tesla T4");
  EXPECT_EQ(r.report.device, "mlx5_0");
  EXPECT_EQ(r.report.link_type, "Ethernet");
  EXPECT_EQ(r.report.qps, 2);
  ASSERT_EQ(r.report.rows.size(), 23u);
  EXPECT_DOUBLE_EQ(r.report.rows[1].bw_average, 0.089067);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 22.99);
  EXPECT_TRUE(run_note(r, "best average is 23.22 Gb/s at 128 KiB"));
  EXPECT_TRUE(contains(a.verdict, "GPU memory (Tesla T4)")) << a.verdict;
  expect_no_port_rate(a);
}

// ```yaml fences around shell output, `# server example` / `#client
// example` comments above the commands, WARNING lines inside the header
// block, rdma_cm's waiting lines, tab debris in the rows. Server mlx5_5
// and client mlx5_4, both --use_cuda=0 on a Tesla T4: 10.50 Gb/s at 64 KiB.
TEST(AnalyzeDamagedPerftest, SriovDocT4YamlFencesServerAndClient) {
  Artifact a = analyze_perftest_paste("sriov-doc-t4-write-bw-cuda-yaml-fence-pcie-ro-warnings.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 2u);
  const char* devices[] = {"mlx5_5", "mlx5_4"};
  for (std::size_t i = 0; i < 2; ++i) {
    const PerftestRun& r = a.perftest->runs[i];
    EXPECT_EQ(r.program, "ib_write_bw");
    EXPECT_TRUE(r.command_cuda);
    EXPECT_TRUE(r.command_gbits);
    EXPECT_EQ(r.report.device, devices[i]);
    EXPECT_EQ(r.report.gpu_name, "Tesla T4");
    EXPECT_EQ(r.report.link_type, "Ethernet");
    ASSERT_EQ(r.report.rows.size(), 1u);
    EXPECT_EQ(r.report.rows[0].bytes, 65536u);
    EXPECT_DOUBLE_EQ(r.report.rows[0].bw_peak, 10.68);
    EXPECT_DOUBLE_EQ(*r.average_gbits, 10.50);
    EXPECT_TRUE(r.errors.empty()) << r.errors.front().text;  // the PCIe RO WARNINGs are no failure
    EXPECT_EQ(r.status, Status::Ok);
  }
  EXPECT_EQ(a.perftest->runs[1].command.line, 54u);
  expect_no_port_rate(a);
}

// Two fenced runs with the poster's sentence between: the first rejected
// by perftest's parser (--use_cuda_dmabuf before --use_cuda), the second
// a server waiting for its client, stopped with ^C. Nothing measured; the
// failure is a command-line one, not GPUDirect RDMA's.
TEST(AnalyzeDamagedPerftest, Perftest336ParserErrorThenInterrupted) {
  Artifact a = analyze_perftest_paste("perftest-336-dmabuf-flag-order-parser-error-then-ctrl-c.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;  // a failed run, not CRITICAL: no GPU buffer was tried
  ASSERT_EQ(a.perftest->runs.size(), 2u);
  const PerftestRun& rejected = a.perftest->runs[0];
  EXPECT_EQ(rejected.command.line, 2u);
  EXPECT_TRUE(rejected.command_dmabuf);
  ASSERT_EQ(rejected.errors.size(), 2u);
  EXPECT_EQ(rejected.errors[0].text, "CUDA DMA-BUF cannot be used without CUDA");
  EXPECT_TRUE(run_note(rejected, "rejected its command line"));
  EXPECT_FALSE(contains(rejected.verdict, "GPUDirect RDMA does not work")) << rejected.verdict;
  EXPECT_FALSE(contains(rejected.verdict, "with GPU memory")) << rejected.verdict;
  const PerftestRun& waiting = a.perftest->runs[1];
  EXPECT_EQ(waiting.command.line, 10u);
  EXPECT_TRUE(waiting.command_cuda);
  EXPECT_TRUE(waiting.command_dmabuf);
  EXPECT_TRUE(waiting.errors.empty());
  EXPECT_TRUE(waiting.report.rows.empty());
  EXPECT_FALSE(waiting.report.gpu_buffer);
  EXPECT_TRUE(waiting.interrupted);
  EXPECT_EQ(waiting.status, Status::Unknown);
  EXPECT_TRUE(run_note(waiting, "before perftest allocated it"));
}

// soft-iWARP (Transport type IW, `Gid index` in the old spelling): host
// memory registration fails, then a segfault. A failed host-memory run.
TEST(AnalyzeDamagedPerftest, Softiwarp23HostMrFailure) {
  Artifact a = analyze_perftest_paste("softiwarp-23-send-bw-siw-iwarp-allocate-mr-segfault.txt");
  ASSERT_EQ(a.kind, ArtifactKind::Perftest) << a.error;
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.program, "ib_send_bw");
  EXPECT_FALSE(r.command_cuda);
  EXPECT_EQ(r.report.device, "siw_ens33");
  EXPECT_EQ(r.report.test, "Send BW Test");
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].text, "Couldn't allocate MR");
  EXPECT_EQ(r.errors[3].text, "Segmentation fault (core dumped)");
  EXPECT_TRUE(contains(a.verdict, "failed (line 18: Couldn't allocate MR)")) << a.verdict;
  EXPECT_FALSE(contains(a.verdict, "GPU")) << a.verdict;
}

}  // namespace
}  // namespace gdrcheck

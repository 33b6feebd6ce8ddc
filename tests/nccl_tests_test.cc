// Tests for the nccl-tests / rccl-tests output reader. The real outputs in
// tests/data/nccl-tests were posted publicly (see PROVENANCE.md); each test
// checks facts read off that paste by eye, not just that it parses.
#include "evidence/nccl_tests.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

std::string nccl_tests_output(const std::string& name) {
  return testing::read_test_data("nccl-tests/" + name);
}

NcclTestsReport load_nccl_tests(const std::string& name) {
  return parse_nccl_tests(nccl_tests_output(name));
}

// A copy of the only run of a report (so it outlives the report); fails
// the test when there is not exactly one.
NcclTestsRun only_run(const NcclTestsReport& r) {
  EXPECT_EQ(r.runs.size(), 1u);
  return r.runs.empty() ? NcclTestsRun{} : r.runs.front();
}

const NcclTestsRow* row_of(const NcclTestsRun& run, uint64_t size) {
  for (const auto& r : run.rows)
    if (r.size == size) return &r;
  return nullptr;
}

std::string param(const NcclTestsRun& run, const std::string& key) {
  for (const auto& [k, v] : run.params)
    if (k == key) return v;
  return "<none>";
}

// ---------------------------------------------------------- real outputs

TEST(NcclTestsReal, EksEfaMpiTagPrefixAndInfoLines) {
  auto report = load_nccl_tests("eks-efa-all-reduce-mpi-tag-info.txt");
  const auto& run = only_run(report);
  EXPECT_EQ(report.info_lines, 47u);  // grep -c 'NCCL INFO'
  EXPECT_EQ(run.rows.size(), 31u);    // 0, 0, 4 .. 1073741824
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_TRUE(run.test_name_inferred);  // v2.12-era output has no "Collective test starting"
  EXPECT_TRUE(run.version_line.empty());
  EXPECT_EQ(run.nccl_version, "2.12.7+cuda11.4");
  EXPECT_EQ(param(run, "nThread"), "1");
  EXPECT_EQ(param(run, "maxBytes"), "1073741824");
  EXPECT_EQ(param(run, "warmup iters"), "5");
  EXPECT_EQ(param(run, "iters"), "100");
  EXPECT_EQ(param(run, "step"), "2(factor)");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[1].rank, 1);
  EXPECT_EQ(run.ranks[1].group, 0);
  EXPECT_EQ(run.ranks[1].pid, 21);
  EXPECT_EQ(run.ranks[1].host, "test-nccl-efa-worker-1");
  EXPECT_EQ(run.ranks[1].pci, "0xf5");
  EXPECT_EQ(run.ranks[1].gpu, "Tesla T4");
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"test-nccl-efa-worker-0", "test-nccl-efa-worker-1"}));
  EXPECT_EQ(run.rows[0].size, 0u);
  const NcclTestsRow* big = row_of(run, 1073741824);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->count, 268435456u);
  EXPECT_EQ(big->type, "float");
  EXPECT_EQ(big->redop, "sum");
  EXPECT_EQ(big->root, -1);
  ASSERT_TRUE(big->out_of_place && big->in_place);
  EXPECT_DOUBLE_EQ(big->out_of_place->time_us, 344981);
  EXPECT_DOUBLE_EQ(big->out_of_place->busbw, 3.11);
  EXPECT_DOUBLE_EQ(big->in_place->busbw, 3.12);
  EXPECT_EQ(big->in_place->wrong, 0.0);
  ASSERT_TRUE(run.max_busbw && run.max_busbw_size);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 3.15);
  EXPECT_EQ(*run.max_busbw_size, 268435456u);
  EXPECT_DOUBLE_EQ(run.avg_busbw.value_or(-1), 1.15327);
  EXPECT_FALSE(run.avg_busbw_ok.has_value());
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_EQ(run.wrong_column, "#wrong");
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_TRUE(run.complete);
  EXPECT_FALSE(run.failed);
  EXPECT_FALSE(has_note(run, "differs from the mean"));  // the rows account for the average
}

TEST(NcclTestsReal, NcclEbpfVersionLineAndTagOutput) {
  auto report = load_nccl_tests("nccl-ebpf-all-reduce-2.18-tag-output.txt");
  const auto& run = only_run(report);
  EXPECT_EQ(run.tool, "nccl-tests");
  EXPECT_EQ(run.version_line, "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907");
  EXPECT_EQ(run.test_name, "all_reduce_perf_mpi");
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_EQ(run.rows.size(), 8u);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"lab"});
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].pci, "0000:02:00");
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA GeForce RTX 5090");
  const NcclTestsRow* r = row_of(run, 33554432);
  ASSERT_TRUE(r && r->out_of_place && r->in_place);
  EXPECT_DOUBLE_EQ(r->out_of_place->time_us, 14977.1);  // squeezed to %.1f
  EXPECT_DOUBLE_EQ(r->out_of_place->busbw, 2.24);
  EXPECT_DOUBLE_EQ(r->in_place->busbw, 2.26);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 1.57614);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 2.30);
  EXPECT_TRUE(run.complete);
  EXPECT_FALSE(run.failed);
}

TEST(NcclTestsReal, AlibabaRcclTestsAlltoallInPlaceUnchecked) {
  const auto& run = only_run(load_nccl_tests("alibaba-rccl-tests-alltoall-mi355x.txt"));
  EXPECT_EQ(run.tool, "rccl-tests");
  EXPECT_EQ(run.test_name, "alltoall_perf");
  EXPECT_EQ(run.rows.size(), 25u);
  EXPECT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"Aliyun3"});
  EXPECT_EQ(run.ranks[6].pci, "0000:e5:00");
  EXPECT_EQ(run.ranks[6].gpu, "AMD Radeon Graphics");
  for (const auto& r : run.rows) {
    EXPECT_EQ(r.redop, "none");
    ASSERT_TRUE(r.in_place);
    EXPECT_FALSE(r.in_place->wrong.has_value()) << "in-place #wrong is N/A for alltoall";
    EXPECT_EQ(r.out_of_place->wrong, 0.0);
  }
  const NcclTestsRow* r = row_of(run, 4194304);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->out_of_place->algbw, 116.17);
  EXPECT_DOUBLE_EQ(r->out_of_place->busbw, 101.65);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 322.22);
  EXPECT_EQ(*run.max_busbw_size, 134217728u);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 58.3947);
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_FALSE(run.failed);
}

TEST(NcclTestsReal, Issue355RowCutByCudaFailure) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-355-alltoall-cuda-failure.txt"));
  EXPECT_EQ(run.test_name, "alltoall_perf");
  EXPECT_EQ(run.version_line.rfind("# nccl-tests version 2.17.6", 0), 0u);
  EXPECT_EQ(run.nccl_version, "2.28.7+cuda13.0");
  EXPECT_EQ(run.ranks.size(), 16u);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"node0", "node1"}));
  EXPECT_TRUE(run.rows.empty());  // the only row was cut by the error
  ASSERT_EQ(run.errors.size(), 7u);
  EXPECT_NE(run.errors[0].find("'an illegal memory access was encountered'"), std::string::npos);
  EXPECT_NE(run.errors[6].find("Test failure common.cu:1368"), std::string::npos);
  EXPECT_FALSE(run.complete);
  EXPECT_TRUE(run.failed);
  EXPECT_TRUE(has_note(run, "no footer"));
}

TEST(NcclTestsReal, Issue287AlltoallOneGpuAverageZero) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-287-alltoall-5090-avg-zero.txt"));
  ASSERT_EQ(run.rows.size(), 1u);
  const auto& r = run.rows[0];
  EXPECT_EQ(r.size, 33554432u);
  EXPECT_DOUBLE_EQ(r.out_of_place->algbw, 1715.44);
  EXPECT_DOUBLE_EQ(r.in_place->algbw, 43046.10);  // 8-character field: the table shifts, tokens do not
  EXPECT_DOUBLE_EQ(r.in_place->busbw, 0.0);
  EXPECT_FALSE(r.in_place->wrong.has_value());
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 0.0);
  EXPECT_EQ(run.test_name, "alltoall_perf");  // "sudo ./build/./alltoall_perf" above the table
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_TRUE(has_note(run, "from the command line"));
  EXPECT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].pci, "0x01");
  EXPECT_FALSE(run.failed);
}

TEST(NcclTestsReal, Issue37OldAllGatherWithoutHashFailed) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-37-all-gather-old-no-hash-failed.txt"));
  ASSERT_EQ(run.rows.size(), 1u);
  const auto& r = run.rows[0];
  EXPECT_EQ(r.size, 4294967296u);
  EXPECT_EQ(r.count, 134217728u);
  EXPECT_EQ(r.redop, "");
  EXPECT_FALSE(r.root.has_value());
  EXPECT_DOUBLE_EQ(r.out_of_place->busbw, 129.05);
  EXPECT_DOUBLE_EQ(r.in_place->busbw, 128.84);
  EXPECT_EQ(r.in_place->wrong, 1.0);  // "1e+00" in the old error column
  EXPECT_EQ(run.wrong_column, "error");
  EXPECT_EQ(run.rows_with_wrong, 0u);  // an error value is not a wrong-element count
  EXPECT_EQ(run.out_of_bounds, 2);
  EXPECT_TRUE(run.out_of_bounds_failed);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 128.942);
  EXPECT_TRUE(run.failed);
  // size/count = 8 ranks, no redop, error era: all_gather or alltoall by the
  // table; the command line above it says which.
  EXPECT_EQ(run.test_name, "all_gather_perf");
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_TRUE(has_note(run, "from the command line above the table: all_gather_perf"));
}

// A table cut above its header, each row behind a rank tag, one tag glued
// to the size: still nccl-tests output, every row read.
TEST(NcclTestsParse, HeadlessRowsBehindRankTags) {
  const std::string text =
      "[0]      1048576        262144     float     sum      -1    45.12   23.24   43.58      0    44.90   23.35   "
      "43.79      0\n"
      "[0]      2097152        524288     float     sum      -1    60.71   34.54   64.77      0    60.22   34.83   "
      "65.30      0\n"
      "[rank0]:4194304       1048576     float     sum      -1    95.01   44.15   82.78      0    94.66   44.31   "
      "83.08      0\n";
  EXPECT_TRUE(looks_like_nccl_tests(text));
  auto report = parse_nccl_tests(text);
  ASSERT_EQ(report.runs.size(), 1u);
  ASSERT_EQ(report.runs[0].rows.size(), 3u);
  EXPECT_EQ(report.runs[0].rows[2].size, 4194304u);
  EXPECT_DOUBLE_EQ(report.runs[0].rows[2].out_of_place->busbw, 82.78);
  EXPECT_FALSE(looks_like_nccl_tests("[0] 1 2 float sum -1 1 1 1 0 1 1 1 0\nsomething else\n"));
}

TEST(NcclTestsParse, CommandLinesNameTheirOwnRuns) {
  auto report = parse_nccl_tests(
      "$ mpirun -np 2 /opt/nccl-tests/build/all_reduce_perf_mpi -b 8 -e 8 -g 1\n"
      "#  nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00   "
      "   0\n"
      "# Avg bus bandwidth    : 0.00\n"
      "$ ./build/sendrecv_perf -b 8 -e 8\n"
      "#  nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00   "
      "   0\n");
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].test_name, "all_reduce_perf");
  EXPECT_EQ(report.runs[1].test_name, "sendrecv_perf");
  // A word that only ends in _perf inside prose is not a command.
  EXPECT_EQ(parse_nccl_tests("see docs/Perf and my_Perf notes\n").runs.size(), 0u);
}

TEST(NcclTestsReal, Issue78TwoTablesWithErrorColumnAndBlankRedop) {
  auto report = load_nccl_tests("nccl-tests-78-error-column-two-tables.txt");
  ASSERT_EQ(report.runs.size(), 2u);
  const auto& ar = report.runs[0];
  EXPECT_EQ(ar.rows.size(), 2u);
  EXPECT_EQ(ar.test_name, "all_reduce_perf");
  EXPECT_EQ(ar.wrong_column, "error");
  EXPECT_EQ(ar.rows[0].redop, "sum");
  EXPECT_FALSE(ar.rows[0].root.has_value());
  EXPECT_DOUBLE_EQ(ar.rows[0].out_of_place->time_us, 122131);
  EXPECT_DOUBLE_EQ(ar.rows[0].out_of_place->wrong.value_or(-1), 2e-06);
  EXPECT_DOUBLE_EQ(*ar.avg_busbw, 4.32178);
  const auto& a2a = report.runs[1];
  ASSERT_EQ(a2a.rows.size(), 2u);
  EXPECT_EQ(a2a.rows[0].redop, "");  // early alltoall printed an empty redop
  EXPECT_EQ(a2a.rows[1].count, 2097152u);
  EXPECT_DOUBLE_EQ(a2a.rows[1].out_of_place->time_us, 1041974);
  EXPECT_DOUBLE_EQ(a2a.rows[1].in_place->busbw, 0.51);
  EXPECT_EQ(a2a.rows[1].in_place->wrong, 1.0);
  EXPECT_DOUBLE_EQ(*a2a.avg_busbw, 0.507636);
  EXPECT_FALSE(a2a.failed);
}

TEST(NcclTestsReal, Issue82OldBroadcastRootColumnNoValidation) {
  auto report = load_nccl_tests("nccl-tests-82-broadcast-old-root-na-cut.txt");
  const auto& run = only_run(report);
  EXPECT_EQ(report.info_lines, 2u);  // the two NCCL WARN lines
  EXPECT_EQ(run.nccl_version, "2.9.6+cuda11.2");
  EXPECT_EQ(param(run, "validation"), "0");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_FALSE(run.ranks[0].group.has_value());  // "#   Rank  0 Pid ..." before v2.13.9
  EXPECT_EQ(run.ranks[1].host, "v100-gpu-5");
  EXPECT_EQ(run.ranks[1].pci, "0x00");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].root, 0);
  EXPECT_EQ(run.rows[0].redop, "");
  EXPECT_FALSE(run.rows[0].out_of_place->wrong.has_value());
  EXPECT_FALSE(run.rows[0].in_place->wrong.has_value());
  EXPECT_DOUBLE_EQ(run.rows[0].in_place->time_us, 38.17);
  EXPECT_EQ(run.test_name, "broadcast_perf");
  EXPECT_FALSE(run.complete);
}

TEST(NcclTestsReal, Issue104OldSendrecvTwoRunsSecondCut) {
  auto report = load_nccl_tests("nccl-tests-104-sendrecv-old-cut.txt");
  ASSERT_EQ(report.runs.size(), 2u);
  const auto& first = report.runs[0];
  ASSERT_EQ(first.rows.size(), 1u);
  EXPECT_EQ(first.rows[0].type, "uint8");
  EXPECT_EQ(first.rows[0].size, 37748744u);
  EXPECT_DOUBLE_EQ(first.rows[0].in_place->busbw, 3.23);
  EXPECT_DOUBLE_EQ(first.rows[0].in_place->wrong.value_or(-1), 300.0);  // "3e+02"
  EXPECT_EQ(first.test_name, "sendrecv_perf");
  const auto& second = report.runs[1];
  EXPECT_TRUE(second.rows.empty());
  EXPECT_EQ(param(second, "nGpus"), "2");
  EXPECT_EQ(second.hosts, std::vector<std::string>{"x0"});
  EXPECT_EQ(second.ranks[1].gpu, "NVIDIA GeForce GTX 1080");
}

TEST(NcclTestsReal, Issue214SendrecvInPlaceNotChecked) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-214-sendrecv-a40-cut.txt"));
  EXPECT_EQ(run.rows.size(), 5u);
  EXPECT_EQ(run.test_name, "sendrecv_perf");
  EXPECT_TRUE(run.test_name_inferred);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"gpu23", "gpu24"}));
  const NcclTestsRow* r = row_of(run, 4096);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->out_of_place->busbw, 0.13);
  EXPECT_FALSE(r->in_place->wrong.has_value());
  EXPECT_FALSE(run.complete);
}

TEST(NcclTestsReal, Issue128ReduceScatterZeroSizeRows) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-128-reduce-scatter-cut.txt"));
  EXPECT_EQ(run.rows.size(), 7u);
  EXPECT_EQ(std::count_if(run.rows.begin(), run.rows.end(), [](auto& r) { return r.size == 0; }), 5);
  EXPECT_EQ(run.test_name, "reduce_scatter_perf");  // size 128 / count 4 floats = 8 ranks, redop sum
  EXPECT_DOUBLE_EQ(row_of(run, 128)->in_place->algbw, 0.01);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 0.01);
  EXPECT_EQ(*run.max_busbw_size, 256u);
}

TEST(NcclTestsReal, Nccl583OldHeaderWithoutHashMarks) {
  const auto& run = only_run(load_nccl_tests("nccl-583-all-reduce-no-hash-cut.txt"));
  EXPECT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"AI-A100-Beethoven01"});
  EXPECT_FALSE(run.ranks[3].group.has_value());
  EXPECT_EQ(run.ranks[3].pid, 1821216);
  EXPECT_EQ(param(run, "test_buffer_kind"), "2");
  EXPECT_EQ(param(run, "warmup iters"), "5");
  EXPECT_EQ(run.wrong_column, "error");
  EXPECT_TRUE(run.rows.empty());
}

TEST(NcclTestsReal, Issue232AllReduceTreeCut) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-232-tree-all-reduce-cut.txt"));
  EXPECT_EQ(run.rows.size(), 5u);
  EXPECT_DOUBLE_EQ(row_of(run, 2097152)->out_of_place->time_us, 113.2);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 41.31);
  EXPECT_EQ(*run.max_busbw_size, 33554432u);
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_FALSE(run.complete);
  EXPECT_TRUE(has_note(run, "no footer"));
}

TEST(NcclTestsReal, Nccl1435AllGatherBfloat16) {
  const auto& run = only_run(load_nccl_tests("nccl-1435-all-gather-bfloat16-cut.txt"));
  EXPECT_EQ(run.rows.size(), 7u);
  EXPECT_EQ(run.rows[0].type, "bfloat16");
  EXPECT_EQ(run.test_name, "all_gather_perf");  // 16777216 / (4194304 × 2 B) = 2 ranks, no redop
  EXPECT_DOUBLE_EQ(row_of(run, 50331648)->in_place->busbw, 125.81);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 125.56);
  EXPECT_EQ(*run.max_busbw_size, 100663296u);
}

TEST(NcclTestsReal, Issue176ErrorColumnWithoutRoot) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-176-error-column-128gpu-cut.txt"));
  EXPECT_EQ(run.rows.size(), 6u);
  EXPECT_EQ(run.wrong_column, "error");
  EXPECT_DOUBLE_EQ(run.rows.back().out_of_place->busbw, 2.15);
  EXPECT_DOUBLE_EQ(run.rows.back().in_place->wrong.value_or(-1), 1e-06);
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_FALSE(run.failed);
  EXPECT_EQ(run.test_name, "all_reduce_perf");
}

TEST(NcclTestsReal, Nccl841EmptyHostnames) {
  const auto& run = only_run(load_nccl_tests("nccl-841-all-reduce-empty-hostname-cut.txt"));
  ASSERT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.ranks[5].host, "");
  EXPECT_EQ(run.ranks[5].device, 5);
  EXPECT_EQ(run.ranks[5].pci, "0xa1");
  EXPECT_EQ(run.ranks[5].gpu, "NVIDIA A100 80GB PCIe");
  EXPECT_TRUE(run.hosts.empty());
  EXPECT_EQ(param(run, "nGpus"), "8");
}

TEST(NcclTestsReal, Issue249LinesWithoutHashAndBlockingLine) {
  const auto& run = only_run(load_nccl_tests("nccl-tests-249-no-hash-blocking-cut.txt"));
  EXPECT_EQ(param(run, "iters"), "5");
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].host, "nccl-846b9d30a6bb6b529fb3c170f4809fea-1725464730-worker-0");
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA A10G");
  EXPECT_EQ(run.wrong_column, "#wrong");
  EXPECT_TRUE(run.rows.empty());
}

TEST(NcclTestsReal, NcclEbpfAbridgedReduceScatterAverageWithUnit) {
  const auto& run = only_run(load_nccl_tests("nccl-ebpf-reduce-scatter-abridged.txt"));
  EXPECT_EQ(run.test_name, "reduce_scatter_perf_mpi");
  EXPECT_EQ(run.rows.size(), 8u);
  EXPECT_EQ(run.ranks[1].host, "lab");
  EXPECT_EQ(run.ranks[1].device, 0);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 1.73537);  // "1.73537 GB/s"
  EXPECT_FALSE(run.out_of_bounds.has_value());
  EXPECT_DOUBLE_EQ(*run.max_busbw, 2.73);
  EXPECT_TRUE(run.complete);
}

TEST(NcclTestsReal, EveryRealFileIsDetected) {
  for (const char* name :
       {"eks-efa-all-reduce-mpi-tag-info.txt", "nccl-ebpf-all-reduce-2.18-tag-output.txt",
        "alibaba-rccl-tests-alltoall-mi355x.txt", "nccl-tests-355-alltoall-cuda-failure.txt",
        "nccl-tests-287-alltoall-5090-avg-zero.txt", "nccl-tests-37-all-gather-old-no-hash-failed.txt",
        "nccl-tests-78-error-column-two-tables.txt", "nccl-tests-82-broadcast-old-root-na-cut.txt",
        "nccl-tests-104-sendrecv-old-cut.txt", "nccl-tests-214-sendrecv-a40-cut.txt",
        "nccl-tests-128-reduce-scatter-cut.txt", "nccl-583-all-reduce-no-hash-cut.txt",
        "nccl-tests-232-tree-all-reduce-cut.txt", "nccl-1435-all-gather-bfloat16-cut.txt",
        "nccl-tests-176-error-column-128gpu-cut.txt", "nccl-841-all-reduce-empty-hostname-cut.txt",
        "nccl-tests-249-no-hash-blocking-cut.txt", "nccl-ebpf-reduce-scatter-abridged.txt"})
    EXPECT_TRUE(looks_like_nccl_tests(nccl_tests_output(name))) << name;
}

// ------------------------------------------------------------- quirks

const char* kHeader =
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

TEST(NcclTestsQuirks, NonZeroWrongFailsTheRun) {
  std::string text = std::string(kHeader) +
                     "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
                     "20.20   37.88     128\n"
                     "# Out of bounds values : 1 FAILED\n# Avg bus bandwidth    : 37.7321\n";
  const auto& run = only_run(parse_nccl_tests(text));
  EXPECT_EQ(run.rows_with_wrong, 1u);
  EXPECT_EQ(run.rows[0].in_place->wrong, 128.0);
  EXPECT_TRUE(run.out_of_bounds_failed);
  EXPECT_TRUE(run.failed);
}

TEST(NcclTestsQuirks, AverageOkFailedFromMinBw) {
  const char* row =
      "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
      "20.20   37.88       0\n";
  auto ok = parse_nccl_tests(std::string(kHeader) + row + "# Avg bus bandwidth    : 37.7321 OK\n");
  EXPECT_EQ(only_run(ok).avg_busbw_ok, true);
  EXPECT_FALSE(only_run(ok).failed);
  auto bad = parse_nccl_tests(std::string(kHeader) + row + "# Avg bus bandwidth    : 37.7321 FAILED\n");
  EXPECT_EQ(only_run(bad).avg_busbw_ok, false);
  EXPECT_TRUE(only_run(bad).failed);
}

TEST(NcclTestsQuirks, ExponentFormsFromSqueezedFields) {
  // getFloatStr falls back to %.1e when a value does not fit its field.
  std::string text = std::string(kHeader) +
                     "  8589934592    2147483648     float     sum      -1  1.2e+07  712.50  1.1e+03       0  1.2e+07  "
                     "712.00  1247.0       0\n";
  const auto& run = only_run(parse_nccl_tests(text));
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->time_us, 1.2e7);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->busbw, 1.1e3);
  EXPECT_EQ(run.wrong_column, "#wrong");
  EXPECT_EQ(run.rows_with_wrong, 0u);
}

TEST(NcclTestsQuirks, LauncherPrefixes) {
  const char* row =
      "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
      "20.20   37.88       0";
  for (std::string prefix : {"[1,0]<stdout>:", "[1,0]<stdout>: ", "0: ", "  12: ", "[1,12]<stdout>:"}) {
    std::string text = prefix + "# Collective test starting: all_reduce_perf\n" + prefix + row + "\n" + prefix +
                       "# Avg bus bandwidth    : 37.7321\n";
    const auto& run = only_run(parse_nccl_tests(text));
    EXPECT_EQ(run.test_name, "all_reduce_perf") << prefix;
    EXPECT_EQ(run.rows.size(), 1u) << prefix;
    EXPECT_DOUBLE_EQ(run.avg_busbw.value_or(-1), 37.7321) << prefix;
  }
  // pdsh puts "host: " before every line; taken off '#' lines.
  auto pdsh = parse_nccl_tests("node07: # Avg bus bandwidth    : 12.5\n");
  EXPECT_DOUBLE_EQ(only_run(pdsh).avg_busbw.value_or(-1), 12.5);
}

// Ray's worker prefix (SkyPilot, Ray jobs) before Open MPI's tag.
TEST(NcclTestsQuirks, RayPrefixBeforeMpiTag) {
  std::string text =
      "(head, rank=0, pid=3808) [1,0]<stdout>:# Collective test starting: all_gather_perf\n"
      "(worker1, rank=1, pid=2769, ip=10.0.0.2) [1,0]<stdout>:        1024            16     float    none      -1"
      "    28.39    0.04    0.03      0    28.07    0.04    0.03      0\n"
      "(pid=12) # Avg bus bandwidth    : 0.03\n";
  const auto& run = only_run(parse_nccl_tests(text));
  EXPECT_EQ(run.test_name, "all_gather_perf");
  EXPECT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.avg_busbw.value_or(-1), 0.03);
  EXPECT_TRUE(looks_like_nccl_tests(text));
}

// Two outputs side by side with one '|' between: two runs, never one row
// of both; a shell pipe or a Markdown table does not split.
TEST(NcclTestsQuirks, SideBySideOutputsAreTwoRuns) {
  std::string row =
      "     1048576        262144     float     sum      -1    28.15   37.25   65.19      0    27.52   "
      "38.10   66.67      0";
  std::string other =
      "     1048576        262144     float     sum      -1    27.84   37.66   65.91      0    27.41   "
      "38.26   66.95      0";
  std::string header = std::string(kHeader);
  std::string text;
  for (std::size_t start = 0; start < header.size();) {
    std::size_t end = header.find('\n', start);
    std::string line = header.substr(start, end - start);
    text += line + "  |  " + line + "\n";
    start = end + 1;
  }
  text += row + "  |  " + other + "\n";
  auto report = parse_nccl_tests(text);
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(report.runs[0].max_busbw.value_or(-1), 65.19);
  EXPECT_DOUBLE_EQ(report.runs[1].max_busbw.value_or(-1), 65.91);
  EXPECT_TRUE(has_note(report.runs[1], "right-hand"));
  EXPECT_TRUE(looks_like_nccl_tests(text));
  auto piped = parse_nccl_tests("./build/all_reduce_perf -b 8 -e 1G | tee out.txt\n" + header + row + "\n");
  EXPECT_EQ(only_run(piped).test_name, "all_reduce_perf");
}

// nccl-tests without MPI under a launcher: each process prints its own
// header, interleaved, each as rank 0. One run per process.
TEST(NcclTestsQuirks, InterleavedProcessesAreSeparateRuns) {
  std::string params = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n";
  std::string text = "mpirun -np 3 ./build/sendrecv_perf -b 8 -e 8\n" + params + "# Using devices\n" + params +
                     "# Using devices\n" + params + "# Using devices\n" +
                     "#   Rank  0 Pid   11 on hostA device  0 [0x00] Tesla V100\n"
                     "#   Rank  0 Pid   22 on hostB device  0 [0x00] Tesla V100\n"
                     "#   Rank  0 Pid   33 on hostC device  0 [0x00] Tesla V100\n";
  auto report = parse_nccl_tests(text);
  ASSERT_EQ(report.runs.size(), 3u);
  std::vector<std::string> hosts;
  for (const auto& run : report.runs) {
    EXPECT_EQ(run.test_name, "sendrecv_perf");
    ASSERT_EQ(run.ranks.size(), 1u);
    hosts.push_back(run.hosts.at(0));
    EXPECT_TRUE(has_note(run, "printed by more than one process"));
  }
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"hostA", "hostB", "hostC"}));
}

// A rank line after a footer begins the next run; a list that starts
// above rank 0 or ends with the output is marked cut.
TEST(NcclTestsQuirks, RankListsAfterFootersAndCutLists) {
  std::string text = "#  Rank 71 Group  0 Pid  1 on h1 device  3 [0x01] GPU\n" + std::string(kHeader) +
                     "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
                     "20.20   37.88       0\n"
                     "# Out of bounds values : 0 OK\n"
                     "#  Rank  0 Group  0 Pid  2 on h2 device  0 [0x01] GPU\n";
  auto report = parse_nccl_tests(text);
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_TRUE(report.runs[0].rank_list_cut);
  EXPECT_TRUE(has_note(report.runs[0], "the list is cut"));
  EXPECT_EQ(report.runs[1].ranks.at(0).host, "h2");
  EXPECT_TRUE(report.runs[1].rank_list_cut);  // the output ends inside it
  EXPECT_TRUE(has_note(report.runs[1], "ends inside the rank list"));
  auto whole = parse_nccl_tests("#  Rank  0 Group  0 Pid  2 on h2 device  0 [0x01] GPU\n" + std::string(kHeader));
  EXPECT_FALSE(only_run(whole).rank_list_cut);
}

// A redacted hostname of several words; the NCCL release from the version
// line's library code (2.30.7 from 23007, 2.7.8 from the pre-2.9 2708).
TEST(NcclTestsQuirks, RedactedHostnamesAndLibraryVersion) {
  auto ranks = parse_nccl_tests("#  Rank  2 Group  0 Pid 1976151 on NODE A  device  2 [0000:44:00] NVIDIA H100\n");
  const auto& run = only_run(ranks);
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].host, "NODE A");
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA H100");
  auto v = parse_nccl_tests("# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007\n");
  EXPECT_EQ(only_run(v).nccl_version, "2.30.7");
  auto old = parse_nccl_tests("# nccl-tests version 2.13.0 nccl-headers=2708 nccl-library=2708\n");
  EXPECT_EQ(only_run(old).nccl_version, "2.7.8");
}

TEST(NcclTestsQuirks, InfoLinesBetweenRowsAreSkipped) {
  std::string text = std::string(kHeader) +
                     "node1:1234:1250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
                     "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
                     "20.20   37.88       0\n"
                     "node1:1234:1250 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                     "     2097152        524288     float     sum      -1    60.00   34.95   65.53       0    59.00   "
                     "35.54   66.64       0\n";
  auto report = parse_nccl_tests(text);
  const auto& run = only_run(report);
  EXPECT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(report.info_lines, 2u);
  EXPECT_EQ(run.nccl_version, "2.21.5+cuda12.4");
}

TEST(NcclTestsQuirks, RowWithOneResultGroup) {
  std::string text =
      std::string(kHeader) + "     1048576        262144     float    none      -1    52.31   20.05   17.59       0\n";
  const auto& run = only_run(parse_nccl_tests(text));
  ASSERT_EQ(run.rows.size(), 1u);
  ASSERT_TRUE(run.rows[0].out_of_place);
  EXPECT_FALSE(run.rows[0].in_place);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->busbw, 17.59);
  EXPECT_TRUE(has_note(run, "one result group"));
}

TEST(NcclTestsQuirks, PerIterationAndTimestampColumns) {
  // writeResultHeader with -I 1 and -S 1 (src/util.cu).
  std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%           timestamp\n"
      "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    50.10    60.20    "
      "59.90     3.21    51.90   20.20   37.88       0    50.00    58.00    57.90     2.80  2025-03-01 12:00:01\n";
  const auto& run = only_run(parse_nccl_tests(text));
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->busbw, 37.59);
  EXPECT_DOUBLE_EQ(run.rows[0].in_place->busbw, 37.88);
  EXPECT_EQ(run.rows[0].in_place->wrong, 0.0);
}

TEST(NcclTestsQuirks, RcclAsteriskMarksErrorOverThreshold) {
  std::string text = std::string(kHeader) +
                     "     1048576        262144      half     sum      -1    52.31   20.05   37.59      3*    51.90   "
                     "20.20   37.88       0\n";
  const auto& run = only_run(parse_nccl_tests(text));
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].out_of_place->wrong, 3.0);
  EXPECT_TRUE(run.failed);
}

TEST(NcclTestsQuirks, HeaderAfterFooterStartsANewRun) {
  std::string one = std::string(kHeader) +
                    "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
                    "20.20   37.88       0\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 37.7\n";
  auto report = parse_nccl_tests(one + one);
  EXPECT_EQ(report.runs.size(), 2u);
  EXPECT_FALSE(report.notes.empty());
}

TEST(NcclTestsQuirks, VersionAndStartLinesBelongToOneRun) {
  auto report = parse_nccl_tests(
      "# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007\n"
      "# Collective test starting: all_gather_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0 unalign: 0\n"
      "#\n# Using devices\n"
      "#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
      "# Collective test concluded: all_gather_perf\n"
      "# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007\n"
      "# Collective test starting: alltoall_perf\n");
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].test_name, "all_gather_perf");
  EXPECT_EQ(param(report.runs[0], "unalign"), "0");
  EXPECT_TRUE(report.runs[0].complete);
  EXPECT_EQ(report.runs[1].test_name, "alltoall_perf");
  EXPECT_FALSE(report.runs[1].complete);
}

TEST(NcclTestsQuirks, FooterAverageThatRowsDoNotExplain) {
  // Write-ups often keep only the last rows under a footer that averaged
  // every size (one MI355X README found while collecting data did); the
  // reader says the rows do not account for it.
  std::string text = std::string(kHeader) +
                     "  8589934592    2147483648     float     sum      -1    36956  232.43  406.76      0    36911  "
                     "232.72  407.26      0\n# Avg bus bandwidth    : 273.886 \n";
  const auto& run = only_run(parse_nccl_tests(text));
  EXPECT_TRUE(has_note(run, "rows are missing"));
}

TEST(NcclTestsQuirks, StreamingKeepsOnlyRows) {
  NcclTestsParser p;
  p.feed("# Collective test starting: all_reduce_perf");
  for (int i = 0; i < 200000; ++i) p.feed("host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/0/GDRDMA");
  p.feed("# Avg bus bandwidth    : 1.5");
  auto report = p.finish();
  EXPECT_EQ(report.info_lines, 200000u);
  EXPECT_EQ(report.lines, 200002u);
  EXPECT_EQ(only_run(report).avg_busbw, 1.5);
}

TEST(NcclTestsQuirks, RowCapIsEnforced) {
  NcclTestsParser p;
  p.feed(std::string(kHeader).substr(0, std::string(kHeader).find('\n')));
  const std::string row =
      "     1048576        262144     float     sum      -1    52.31   20.05   37.59       0    51.90   "
      "20.20   37.88       0";
  for (std::size_t i = 0; i < NcclTestsParser::kMaxRows + 10; ++i) p.feed(row);
  auto report = p.finish();
  EXPECT_EQ(only_run(report).rows.size(), NcclTestsParser::kMaxRows);
  EXPECT_TRUE(has_note(only_run(report), "counted, not kept"));
}

TEST(NcclTestsQuirks, CrlfAndTrailingNewlinesAreIgnored) {
  auto report = parse_nccl_tests("# Collective test starting: broadcast_perf\r\n# Avg bus bandwidth    : 2.5 \r\n");
  EXPECT_EQ(only_run(report).test_name, "broadcast_perf");
  EXPECT_EQ(only_run(report).avg_busbw, 2.5);
}

// ------------------------------------------------------ garbage, limits

TEST(NcclTestsGarbage, EmptyAndUnrelatedText) {
  EXPECT_TRUE(parse_nccl_tests("").runs.empty());
  auto r = parse_nccl_tests("hello\nworld\n\x01\x02\x03\n");
  EXPECT_TRUE(r.runs.empty());
  EXPECT_FALSE(r.notes.empty());
  EXPECT_FALSE(looks_like_nccl_tests(""));
  EXPECT_FALSE(looks_like_nccl_tests("\tGPU0\tGPU1\nGPU0\t X \tNV12\n"));
  EXPECT_FALSE(looks_like_nccl_tests("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"));
  EXPECT_FALSE(looks_like_nccl_tests("1 2 3 4 5 6 7 8 9 10 11 12 13\n"));
}

TEST(NcclTestsGarbage, HostileNumbersAreRejected) {
  std::string text = std::string(kHeader) +
                     "  99999999999999999999999 1 float sum -1 1 1 1 0 1 1 1 0\n"  // size overflows uint64
                     "     1048576        262144     float     sum      -1      nan     inf   37.59       0    51.90   "
                     "20.20   37.88       0\n"
                     "     1048576        262144     float     sum      -1    1e999   20.05   37.59       0    51.90   "
                     "20.20   37.88       0\n"
                     "# Avg bus bandwidth    : 1e999\n# Out of bounds values : 99999999999999999999 OK\n";
  const auto& run = only_run(parse_nccl_tests(text));
  EXPECT_TRUE(run.rows.empty());
  EXPECT_FALSE(run.avg_busbw.has_value());
  EXPECT_FALSE(run.out_of_bounds.has_value());
}

TEST(NcclTestsGarbage, CountTimesTypeSizeOverflow) {
  // count × 4 bytes wraps to 0 in 64 bits; the name guess must not divide by it.
  std::string text = std::string(kHeader) +
                     "           8  4611686018427387904     float     sum      -1     5.70    2.00    3.00       0     "
                     "5.54    2.00    3.00       0\n";
  const auto& run = only_run(parse_nccl_tests(text));
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.test_name, "");
}

TEST(NcclTestsGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  std::string alphabet = "0123456789 .#-e+:NA/\n[]<>,\tRankGroupPidondevice sumnone float*";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += alphabet[rng() % alphabet.size()];
    auto report = parse_nccl_tests(text);
    for (const auto& run : report.runs) EXPECT_LE(run.notes.size(), 60u);
  }
}

TEST(NcclTestsGarbage, VeryLongLineIsCut) {
  std::string text = "# Collective test starting: " + std::string(1 << 20, 'x') + "\n";
  const auto& run = only_run(parse_nccl_tests(text));
  EXPECT_LT(run.test_name.size(), 70000u);
}

TEST(NcclTestsGarbage, FinishTwiceIsHarmless) {
  NcclTestsParser p;
  p.feed("# Avg bus bandwidth    : 3");
  auto first = p.finish();
  p.feed("# Avg bus bandwidth    : 4");
  auto second = p.finish();
  EXPECT_EQ(first.runs.size(), 1u);
  EXPECT_TRUE(second.runs.empty());
}

}  // namespace
}  // namespace gdrcheck

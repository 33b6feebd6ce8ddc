// `gdrcheck analyze` on the damaged pastes of tests/data/pastes (see its
// PROVENANCE.md for each file's source, damage and correct reading).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"
#include "report/analyze_json.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;
using testing::test_data;

Artifact analyze_nccl_tests_paste(const std::string& file) {
  return analyze_file(test_data("pastes/nccl-tests/" + file));
}

std::string notes_of(const NcclTestsRun& run) {
  std::string all;
  for (const auto& n : run.notes) all += n + "\n";
  return all;
}

// Every paste here shows no NCCL INFO line about the network, so what it
// proves about GPUDirect RDMA is UNKNOWN, with that reason.
void expect_tests_without_network_lines(const Artifact& a) {
  EXPECT_EQ(a.kind, ArtifactKind::NcclTests) << a.error;
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_NE(a.verdict.find("no NCCL INFO lines about the network"), std::string::npos) << a.verdict;
  ASSERT_TRUE(a.nccl_tests);
}

// Open MPI's `[1,0]<stdout>:` on every line, NCCL INFO lines between the
// rank list and the table, one rank on one A10G: busbw 0.00 everywhere,
// in-place algbw absurd and wider than its field. No footer.
TEST(AnalyzeDamagedNcclTests, AwstipOneRankBehindMpiTags) {
  Artifact a = analyze_nccl_tests_paste("awstip-blog-eks-a10g-mpi-tag-1rank-joined.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_TRUE(run.test_name_inferred);
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA A10G");
  EXPECT_EQ(run.hosts, std::vector<std::string>{"test-nccl-worker-0"});
  EXPECT_FALSE(run.rank_list_cut);
  ASSERT_EQ(run.rows.size(), 32u);
  EXPECT_EQ(run.rows.back().size, 2147483648u);
  ASSERT_TRUE(run.rows.back().in_place);
  EXPECT_DOUBLE_EQ(run.rows.back().in_place->algbw, 18401745.06);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_EQ(*run.max_busbw, 0.0);  // one rank: nothing crosses a bus
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_FALSE(run.complete);
  EXPECT_FALSE(run.failed);
  ASSERT_TRUE(a.nccl_log);
  EXPECT_EQ(a.nccl_log->nccl_version, "2.22.3+cuda12.2");
  ASSERT_EQ(a.busbw_vs_nics.size(), 1u);
  EXPECT_EQ(a.busbw_vs_nics[0].judgement.status, Status::Unknown);
}

// Result rows only, the header left in an earlier part of the post:
// all_reduce (sum, float), busbw/algbw 1.75 = 2(n-1)/n for 8 ranks, up to
// 300.51 GB/s at 32 MiB; no wrong results.
TEST(AnalyzeDamagedNcclTests, MooncakeRowsWithoutHeader) {
  Artifact a = analyze_nccl_tests_paste("mooncake-pr3484-rows-only-no-header-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_TRUE(run.test_name_inferred);
  ASSERT_EQ(run.rows.size(), 11u);
  EXPECT_EQ(run.rows[0].size, 32768u);
  EXPECT_EQ(run.rows[0].redop, "sum");
  EXPECT_EQ(run.rows[0].root, -1);
  EXPECT_EQ(run.wrong_column, "#wrong");
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 300.51);
  EXPECT_EQ(run.max_busbw_size, 33554432u);
  EXPECT_TRUE(run.ranks.empty());  // no rank list: nothing about hosts is invented
  EXPECT_TRUE(run.hosts.empty());
  EXPECT_FALSE(run.failed);
}

// A backtick glued before "# Using devices"; 2019 layout: redop but no
// root, float `error` column. 1e-07 / 3e-08 are rounding, not failures.
TEST(AnalyzeDamagedNcclTests, Nccl258BacktickAndFloatErrors) {
  Artifact a = analyze_nccl_tests_paste("nccl-258-backtick-glued-float-error-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  ASSERT_EQ(run.ranks.size(), 4u);
  EXPECT_EQ(run.ranks[3].gpu, "Tesla V100-SXM3-32GB");
  EXPECT_EQ(run.ranks[3].pid, 71327);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"51e6e7896958"});
  EXPECT_EQ(run.wrong_column, "error");
  ASSERT_EQ(run.rows.size(), 4u);
  EXPECT_EQ(run.rows[0].size, 8u);
  EXPECT_EQ(run.rows[3].size, 64u);
  EXPECT_FALSE(run.rows[0].root);
  ASSERT_TRUE(run.rows[0].out_of_place);
  EXPECT_DOUBLE_EQ(*run.rows[0].out_of_place->wrong, 1e-07);
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_FALSE(run.failed);
  EXPECT_TRUE(has_note(run, "old 'error' column")) << notes_of(run);
  // The JSON says the same: a deviation of 1e-07 is not a wrong result.
  nlohmann::json j = analyze_json({a}, false)["artifacts"][0]["runs"][0];
  EXPECT_EQ(j["wrong"], false) << j.dump();
  EXPECT_EQ(j["wrong_column"], "error") << j.dump();
}

// Rows only, oldest layout: type then time, no redop, `0e+00` errors.
// busbw/algbw 0.875 fits all_reduce over 16 ranks and all_gather over 8:
// the rows cannot tell which, so no name is given.
TEST(AnalyzeDamagedNcclTests, Nccl644RowsWithoutRedopNameUndecided) {
  Artifact a = analyze_nccl_tests_paste("nccl-644-rows-only-no-redop-float-error-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "");
  EXPECT_TRUE(has_note(run, "not decided by the table")) << notes_of(run);
  ASSERT_EQ(run.rows.size(), 13u);
  EXPECT_EQ(run.rows[0].redop, "");
  EXPECT_EQ(run.wrong_column, "error");
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 7.32);
  EXPECT_EQ(run.max_busbw_size, 268435456u);
  EXPECT_FALSE(run.failed);
  ASSERT_EQ(a.busbw_vs_nics.size(), 1u);
  EXPECT_EQ(a.busbw_vs_nics[0].judgement.status, Status::Unknown);
}

// nccl-tests without MPI under `mpirun -np 2`: two processes print their
// own headers interleaved, both as Rank 0, on two hosts. Two independent
// one-rank all_reduce runs, not one two-rank job; no rows.
TEST(AnalyzeDamagedNcclTests, NcclTests107InterleavedProcessesAreTwoRuns) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-107-two-processes-interleaved-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 2u);
  std::vector<std::string> hosts;
  for (const auto& run : a.nccl_tests->runs) {
    EXPECT_EQ(run.test_name, "all_reduce_perf");
    ASSERT_EQ(run.ranks.size(), 1u);
    EXPECT_EQ(run.ranks[0].rank, 0);
    ASSERT_EQ(run.hosts.size(), 1u);
    hosts.push_back(run.hosts[0]);
    EXPECT_TRUE(run.rows.empty());
    EXPECT_TRUE(has_note(run, "printed by more than one process")) << notes_of(run);
  }
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"ip-172-31-20-228", "ip-172-31-22-230"}));
}

// Pasted without a fence; cut inside the rank list: 14 A100-SXM4-40GB
// ranks on dgx-work01 and dgx-work02, 10 GiB to 20 GiB, no table.
TEST(AnalyzeDamagedNcclTests, NcclTests118RankListCut) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-118-unfenced-header-2-nodes-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.ranks.size(), 14u);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"dgx-work01", "dgx-work02"}));
  EXPECT_EQ(run.ranks[13].gpu, "NVIDIA A100-SXM4-40GB");
  EXPECT_FALSE(run.ranks[0].group);  // the old form without Group
  EXPECT_TRUE(run.rank_list_cut);    // 16 ranks ran; the paste ends at 14
  EXPECT_TRUE(run.rows.empty());
  EXPECT_EQ(run.test_name, "");  // nothing names it
  auto min_bytes =
      std::find(run.params.begin(), run.params.end(), std::pair<std::string, std::string>{"minBytes", "10737418240"});
  EXPECT_NE(min_bytes, run.params.end());
}

// Rows only, non-power-of-two sizes; the redop changes from max to min in
// mid-table and the sizes restart. all_reduce rows, #wrong 0, ~3 GB/s.
TEST(AnalyzeDamagedNcclTests, NcclTests167MaxThenMin) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-167-rows-only-max-min-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  ASSERT_EQ(run.rows.size(), 11u);
  EXPECT_EQ(run.rows[5].redop, "max");
  EXPECT_EQ(run.rows[6].redop, "min");
  EXPECT_EQ(run.rows[6].size, 196608u);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 3.06);
  EXPECT_EQ(run.rows_with_wrong, 0u);
  EXPECT_FALSE(run.failed);
}

// A multi-line `srun \` command, fences and "Output:" above nccl-tests
// 2.19.6 output; cut after rank 7 of 16 (node1's eight B200).
TEST(AnalyzeDamagedNcclTests, NcclTests389SrunCommandVersionLine) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-389-srun-multiline-command-b200-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_EQ(run.tool, "nccl-tests");
  EXPECT_EQ(run.nccl_version, "2.30.7");  // nccl-library=23007
  ASSERT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.ranks[7].pci, "0000:00:0c");
  EXPECT_EQ(run.ranks[7].gpu, "NVIDIA B200");
  EXPECT_EQ(run.hosts, std::vector<std::string>{"node1"});
  EXPECT_TRUE(run.rank_list_cut);  // node2's ranks are not in the paste
  EXPECT_TRUE(run.rows.empty());
}

// Two rccl-tests tables side by side, joined by " | " (before/after).
// Each half is its own run: left 104.21 GB/s in-place at 2 MiB, right
// 105.43 out-of-place; no row mixes the two.
TEST(AnalyzeDamagedNcclTests, Rccl1352SideBySideTablesAreTwoRuns) {
  Artifact a = analyze_nccl_tests_paste("rccl-pr1352-two-tables-side-by-side-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 2u);
  const auto& left = a.nccl_tests->runs[0];
  const auto& right = a.nccl_tests->runs[1];
  for (const auto* run : {&left, &right}) {
    EXPECT_EQ(run->test_name, "all_reduce_perf");
    ASSERT_EQ(run->rows.size(), 2u);
    EXPECT_EQ(run->rows[0].size, 1048576u);
    EXPECT_EQ(run->rows[1].size, 2097152u);
    EXPECT_EQ(run->rows[1].redop, "sum");
    EXPECT_EQ(run->wrong_column, "#wrong");
    EXPECT_FALSE(run->failed);
  }
  ASSERT_TRUE(left.rows[1].in_place);
  EXPECT_DOUBLE_EQ(left.rows[1].in_place->busbw, 104.21);
  EXPECT_DOUBLE_EQ(*left.max_busbw, 99.11);
  EXPECT_DOUBLE_EQ(*right.max_busbw, 105.43);
  EXPECT_TRUE(has_note(right, "right-hand")) << notes_of(right);
}

// SkyPilot's Ray prefix and Open MPI's tag on every line, a `sky launch`
// prompt above. all_gather (redop none) on 2 nodes x 8 H200, busbw up to
// 325.72 out-of-place at 8 GiB, average 122.073, out of bounds 0 OK.
TEST(AnalyzeDamagedNcclTests, SkypilotRayAndMpiPrefixes) {
  Artifact a = analyze_nccl_tests_paste("skypilot-gke-h200-ray-and-mpi-prefix-all-gather.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_gather_perf");
  EXPECT_TRUE(run.test_name_inferred);
  EXPECT_EQ(run.ranks.size(), 16u);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"nc-d87e1263-head", "nc-d87e1263-worker1"}));
  EXPECT_EQ(run.ranks[15].gpu, "NVIDIA H200");
  EXPECT_FALSE(run.rank_list_cut);
  ASSERT_EQ(run.rows.size(), 24u);
  EXPECT_EQ(run.rows[0].redop, "none");
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 325.72);
  EXPECT_EQ(run.max_busbw_size, 8589934592u);
  EXPECT_DOUBLE_EQ(run.rows.back().in_place->busbw, 332.58);
  ASSERT_TRUE(run.avg_busbw);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 122.073);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_TRUE(run.complete);
  EXPECT_FALSE(run.failed);
}

// The srun command in inline code above the fence; host names right-
// aligned (`on   worker-1`). all_reduce_perf_mpi, 12 of 16 H100 ranks.
TEST(AnalyzeDamagedNcclTests, SoperatorSrunCommandAbove) {
  Artifact a = analyze_nccl_tests_paste("soperator-pr428-srun-command-above-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_TRUE(has_note(run, "from the command line")) << notes_of(run);
  EXPECT_EQ(run.ranks.size(), 12u);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"worker-1", "worker-0"}));
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(run.rank_list_cut);
  EXPECT_TRUE(run.rows.empty());
}

// GB200 NVL72 example: the first paste starts at rank 71 (the rest of the
// list was left out) and holds a complete all_reduce table; a second paste
// below, after prose and a new fence, holds only rank 143's line. Two runs;
// the rank list of the first is cut, so its rank and node counts are not
// known (72 GPUs over 18 trays ran it).
TEST(AnalyzeDamagedNcclTests, CoreweavePr43TwoPastesRankListCut) {
  Artifact a = analyze_nccl_tests_paste("coreweave-nccl-tests-pr43-gb200-two-runs-rank-list-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 2u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].rank, 71);
  EXPECT_EQ(run.ranks[0].gpu, "NVIDIA Graphics Device");
  EXPECT_TRUE(run.rank_list_cut);
  EXPECT_TRUE(has_note(run, "the list is cut")) << notes_of(run);
  // Only rank 71's line survives: the job's node count is unknown, never "one node".
  ASSERT_FALSE(a.busbw_vs_nics.empty());
  EXPECT_EQ(a.busbw_vs_nics[0].scenario.nodes, 0);
  EXPECT_NE(a.busbw_vs_nics[0].judgement.status, Status::Ok);
  ASSERT_EQ(run.rows.size(), 5u);
  EXPECT_EQ(run.rows[0].size, 536870912u);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 839.16);
  EXPECT_EQ(run.max_busbw_size, 4294967296u);
  ASSERT_TRUE(run.avg_busbw);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 745.53);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_TRUE(run.complete);
  EXPECT_FALSE(run.failed);
  const auto& second = a.nccl_tests->runs[1];
  ASSERT_EQ(second.ranks.size(), 1u);
  EXPECT_EQ(second.ranks[0].rank, 143);
  EXPECT_TRUE(second.rank_list_cut);
  EXPECT_TRUE(second.rows.empty());
  EXPECT_FALSE(second.complete);
}

// The mpirun command as a Markdown blockquote (`> ` on each line, `\`
// continuations) above a complete all_reduce table: 16 H100 ranks on two
// hosts, busbw up to 338.82 GB/s at 8 GiB, average 70.742, 0 OK.
TEST(AnalyzeDamagedNcclTests, A3megaBlockquoteCommand) {
  Artifact a = analyze_nccl_tests_paste("a3mega-fork-blockquote-mpirun-command-h100.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_EQ(run.ranks.size(), 16u);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"ztan-mig-235z", "ztan-mig-gq73"}));
  EXPECT_FALSE(run.rank_list_cut);
  ASSERT_EQ(run.rows.size(), 31u);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 338.82);
  EXPECT_EQ(run.max_busbw_size, 8589934592u);
  ASSERT_TRUE(run.avg_busbw);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 70.742);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_TRUE(run.complete);
  EXPECT_FALSE(run.failed);
}

// `./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8` inside the fence above a
// table with no parameter or rank lines: sendrecv on 8 GPUs of one process,
// busbw up to 195.10 GB/s at 1 GiB, in-place not checked (N/A), no footer.
TEST(AnalyzeDamagedNcclTests, LiPlusSendrecvCommandInFence) {
  Artifact a = analyze_nccl_tests_paste("li-plus-playground-sendrecv-command-in-fence-no-footer.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "sendrecv_perf");
  EXPECT_FALSE(run.test_name_inferred);
  EXPECT_TRUE(run.ranks.empty());
  ASSERT_EQ(run.rows.size(), 4u);
  ASSERT_TRUE(run.rows[3].in_place);
  EXPECT_FALSE(run.rows[3].in_place->wrong);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 195.10);
  EXPECT_EQ(run.max_busbw_size, 1073741824u);
  EXPECT_FALSE(run.complete);
  EXPECT_FALSE(run.failed);
}

// Two pastes of one post: a single-node run (8 GPUs in one process, 473.60
// GB/s at 4 GiB, average 439.369), then "using two H100 nodes:" and a
// Slurm run with srun's ` 0: ` label on every line (and a last ` 0:` with
// nothing after it): 16 ranks on node005 and node007, -c 0 so every #wrong
// is N/A, busbw up to 166.22 at 256 MiB, average 142.735, 0 OK.
TEST(AnalyzeDamagedNcclTests, NcclTests290SingleNodeThenSrunLabels) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-290-single-then-srun-label-two-nodes.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 2u);
  const auto& single = a.nccl_tests->runs[0];
  EXPECT_EQ(single.test_name, "all_reduce_perf");
  EXPECT_EQ(single.ranks.size(), 8u);
  EXPECT_EQ(single.hosts, std::vector<std::string>{"node005"});
  ASSERT_EQ(single.rows.size(), 6u);
  EXPECT_DOUBLE_EQ(*single.max_busbw, 473.60);
  EXPECT_DOUBLE_EQ(*single.avg_busbw, 439.369);
  EXPECT_TRUE(single.complete);
  const auto& two = a.nccl_tests->runs[1];
  EXPECT_EQ(two.test_name, "all_reduce_perf");
  EXPECT_EQ(two.ranks.size(), 16u);
  EXPECT_EQ(two.hosts, (std::vector<std::string>{"node005", "node007"}));
  EXPECT_FALSE(two.rank_list_cut);
  ASSERT_EQ(two.rows.size(), 11u);
  ASSERT_TRUE(two.rows[0].out_of_place);
  EXPECT_FALSE(two.rows[0].out_of_place->wrong);  // N/A: not checked, not 0
  ASSERT_TRUE(two.max_busbw);
  EXPECT_DOUBLE_EQ(*two.max_busbw, 166.22);
  EXPECT_EQ(two.max_busbw_size, 268435456u);
  EXPECT_DOUBLE_EQ(*two.avg_busbw, 142.735);
  EXPECT_EQ(two.out_of_bounds, 0);
  EXPECT_FALSE(two.failed);
  for (const auto& run : a.nccl_tests->runs) EXPECT_TRUE(run.errors.empty());
}

// The poster redacted the hostname to "NODE A" (two words, one or two
// spaces before "device"), under a Markdown setext heading, no fence.
// 8 H100 ranks of one host, one 8 GiB all_reduce row, busbw 479.41, out of
// bounds 0 OK; the average line is cut off.
TEST(AnalyzeDamagedNcclTests, NcclTests347RedactedTwoWordHostname) {
  Artifact a = analyze_nccl_tests_paste("nccl-tests-347-redacted-two-word-hostname-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  ASSERT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"NODE A"});
  EXPECT_EQ(run.ranks[2].device, 2);
  EXPECT_EQ(run.ranks[7].pci, "0000:e4:00");
  EXPECT_FALSE(run.rank_list_cut);
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 479.41);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_FALSE(run.avg_busbw);
  EXPECT_FALSE(run.failed);
}

// rccl-tests on 8 MI300X of one node; an extra "rccl-tests: Version" line;
// cut after the first row: 8 MiB, busbw 161.14 GB/s; no footer.
TEST(AnalyzeDamagedNcclTests, HpcAiEnvsPr30RcclTestsOneRow) {
  Artifact a = analyze_nccl_tests_paste("hpc-ai-envs-pr30-rccl-tests-version-line-mi300x-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts.size(), 1u);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].size, 8388608u);
  ASSERT_TRUE(run.max_busbw);
  EXPECT_DOUBLE_EQ(*run.max_busbw, 161.14);
  EXPECT_FALSE(run.complete);
  EXPECT_FALSE(run.failed);
  // AMD GPUs in one node are linked by xGMI: the single-node note must not
  // name NVLink.
  ASSERT_EQ(a.busbw_vs_nics.size(), 1u);
  const std::string& why = a.busbw_vs_nics[0].judgement.summary;
  EXPECT_NE(why.find("xGMI/PCIe"), std::string::npos) << why;
  EXPECT_EQ(why.find("NVLink"), std::string::npos) << why;
}

// Unfenced, so Markdown ate every leading '#': the parameters, rank list
// and headers without it. 8 ranks of all_reduce_perf (mpirun -np 8) on
// AI-A100-Beethoven01, old float 'error' header; cut before any row.
TEST(AnalyzeDamagedNcclTests, Nccl583HashMarksLostNoRows) {
  Artifact a = analyze_nccl_tests_paste("nccl-583-hash-marks-lost-unfenced-mpirun-cut.txt");
  expect_tests_without_network_lines(a);
  ASSERT_EQ(a.nccl_tests->runs.size(), 1u);
  const auto& run = a.nccl_tests->runs[0];
  EXPECT_EQ(run.test_name, "all_reduce_perf");
  EXPECT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"AI-A100-Beethoven01"});
  EXPECT_EQ(run.wrong_column, "error");
  EXPECT_TRUE(run.rows.empty());
  EXPECT_FALSE(run.max_busbw);
  EXPECT_FALSE(run.complete);
}

}  // namespace
}  // namespace gdrcheck

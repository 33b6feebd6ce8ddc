// nccl-tests busbw related to the NICs the same output's NCCL log shows.
// The two-node logs here are written by the test from the line forms NCCL
// prints (format strings in src/evidence/nccl_net_speed.h and the
// connection lines of nccl-spec.md); the public logs with nccl-tests tables
// (tests/data/nccl-tests) predate the NIC speed lines and test the UNKNOWN path.
#include "analyze/busbw_vs_nics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

// An all_reduce_perf output on 2 nodes x 8 GPUs with 8 NICs of `gbps` each,
// every rank's NET connection on its own NIC, GPUDirect RDMA on. The last
// row's out-of-place busbw is `busbw` GB/s at `max_size` bytes.
std::string two_node_output(int gbps, double busbw, uint64_t max_size = 8ull << 30, bool speeds = true,
                            const std::string& algo = "Ring") {
  std::ostringstream o;
  o << "# nThread 1 nGpus 1 minBytes 1048576 maxBytes " << max_size << " step: 2(factor) warmup iters: 5 iters: 20\n"
    << "#\n# Using devices\n";
  for (int r = 0; r < 16; ++r)
    o << "#  Rank " << (r < 10 ? " " : "") << r << " Group  0 Pid " << 1000 + r << " on " << (r < 8 ? "gpu01" : "gpu02")
      << " device  " << r % 8 << " [0000:1b:00] NVIDIA H100 80GB HBM3\n";
  for (int h = 0; h < 2; ++h) {
    std::string host = h ? "gpu02" : "gpu01";
    o << host << ":1000:1100 [0] NCCL INFO NCCL_ALGO set by environment to " << algo << "\n";
    if (speeds)
      for (int n = 0; n < 8; ++n)
        o << host << ":1000:1100 [0] NCCL INFO NET/IB: [" << n << "] mlx5_" << n << ":uverbs" << n
          << ":1/IB provider=Mlx5 speed=" << gbps * 1000 << " context=0x55d0c8a0 ar=1\n";
    for (int g = 0; g < 8; ++g) {
      int rank = h * 8 + g, peer = (rank + 8) % 16;
      o << host << ":" << 1000 + rank << ":1200 [" << g << "] NCCL INFO Channel 00/0 : " << rank << "[" << g << "] -> "
        << peer << "[" << g << "] [send] via NET/IB/" << g << "/GDRDMA\n";
      o << host << ":" << 1000 + rank << ":1200 [" << g << "] NCCL INFO Channel 00/0 : " << peer << "[" << g << "] -> "
        << rank << "[" << g << "] [receive] via NET/IB/" << g << "/GDRDMA\n";
    }
  }
  o << "#\n#                                                              out-of-place                       in-place\n"
    << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
       "#wrong\n"
    << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
       "(GB/s)\n";
  o << "     1048576        262144     float     sum      -1    120.0    8.74   16.38      0    119.0    8.81   16.52  "
       "    0\n";
  double algbw = busbw * 16 / 30;
  o << "  " << max_size << "  " << max_size / 4 << "     float     sum      -1  100000.0  " << algbw << "  " << busbw
    << "      0  100100.0  " << algbw << "  " << busbw << "      0\n";
  o << "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : " << busbw / 2 << "\n#\n";
  return o.str();
}

Artifact analyze_text(const std::string& text, const BandwidthOverrides& o = {}) {
  std::string path = testing::scratch_dir() + "/out.txt";
  std::ofstream(path) << text;
  return analyze_file(path, std::nullopt, o);
}

TEST(BusbwVsNics, NdrAtExpectedRateIsOk) {
  Artifact a = analyze_text(two_node_output(400, 370.0));
  ASSERT_EQ(a.kind, ArtifactKind::NcclTests);
  ASSERT_EQ(a.busbw_vs_nics.size(), 1u);
  const BusbwVsNics& c = a.busbw_vs_nics[0];
  EXPECT_EQ(c.scenario.nodes, 2);
  EXPECT_EQ(c.scenario.gpus_per_node, 8);
  EXPECT_EQ(c.scenario.nics_per_node.size(), 8u);
  EXPECT_EQ(c.scenario.nics_driven_per_node, 8);
  EXPECT_EQ(c.scenario.algorithm, Algorithm::Ring);
  EXPECT_EQ(c.scenario.collective, Collective::AllReduce);
  EXPECT_DOUBLE_EQ(c.expectation.expected_busbw_gbytes, 8 * 48.0);
  EXPECT_EQ(c.judgement.status, Status::Ok) << c.judgement.summary;
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_FALSE(c.judgement.evidence.empty());
  EXPECT_NE(c.judgement.evidence[0].find("370.0 GB/s at 8 GiB"), std::string::npos) << c.judgement.evidence[0];
}

TEST(BusbwVsNics, HalfTheRingFigureIsCriticalAndTheVerdictSaysSo) {
  Artifact a = analyze_text(two_node_output(400, 190.0));
  const BusbwVsNics& c = a.busbw_vs_nics.at(0);
  EXPECT_EQ(c.judgement.status, Status::Critical) << c.judgement.summary;
  EXPECT_NEAR(c.judgement.ratio, 190.0 / 384.0, 1e-9);
  EXPECT_FALSE(c.judgement.fix.empty());
  // The artifact's status is what the output proves about GPUDirect RDMA
  // (in use): the low busbw is its own judgement, not a "partial".
  EXPECT_EQ(a.status, Status::Ok);
  EXPECT_NE(a.verdict.find("yes"), std::string::npos) << a.verdict;
}

TEST(BusbwVsNics, TreeBelowTheRingFigureIsOnlyAWarning) {
  Artifact a = analyze_text(two_node_output(200, 100.0, 8ull << 30, true, "Tree"));
  const BusbwVsNics& c = a.busbw_vs_nics.at(0);
  EXPECT_DOUBLE_EQ(c.expectation.expected_busbw_gbytes, 8 * 24.0);
  EXPECT_EQ(c.judgement.status, Status::Warning) << c.judgement.summary;
}

TEST(BusbwVsNics, SmallLargestMessageIsAWarningWithTheRerun) {
  Artifact a = analyze_text(two_node_output(400, 150.0, 64ull << 20));
  const BusbwVsNics& c = a.busbw_vs_nics.at(0);
  EXPECT_EQ(c.judgement.status, Status::Warning) << c.judgement.summary;
  EXPECT_NE(c.judgement.fix.find("-e 8G"), std::string::npos) << c.judgement.fix;
}

TEST(BusbwVsNics, NoSpeedLinesIsUnknownNeverOk) {
  Artifact a = analyze_text(two_node_output(400, 370.0, 8ull << 30, false));
  const BusbwVsNics& c = a.busbw_vs_nics.at(0);
  EXPECT_EQ(c.judgement.status, Status::Unknown);
  EXPECT_NE(c.judgement.summary.find("prints no NIC speed"), std::string::npos) << c.judgement.summary;
  EXPECT_EQ(a.status, Status::Ok);  // GDR is still proven by the connection lines
}

TEST(BusbwVsNics, SiteFigureNeedsNoSpeeds) {
  BandwidthOverrides site;
  site.source = "site.json";
  FixedBusbw f;
  f.node_type = "";
  f.collective = Collective::AllReduce;
  f.busbw_gbytes = 380;
  site.fixed_busbw.push_back(f);
  Artifact a = analyze_text(two_node_output(400, 200.0, 8ull << 30, false), site);
  const BusbwVsNics& c = a.busbw_vs_nics.at(0);
  // Without a node type the fixed figure does not apply: still UNKNOWN.
  EXPECT_EQ(c.judgement.status, Status::Unknown) << c.judgement.summary;
}

TEST(BusbwVsNics, RealEfaOutputWithoutSpeedsIsUnknown) {
  Artifact a = analyze_file(testing::test_data("nccl-tests/eks-efa-all-reduce-mpi-tag-info.txt"));
  ASSERT_EQ(a.busbw_vs_nics.size(), 1u);
  const BusbwVsNics& c = a.busbw_vs_nics[0];
  EXPECT_EQ(c.scenario.nodes, 2);
  EXPECT_EQ(c.scenario.gpus_per_node, 1);
  EXPECT_EQ(c.judgement.status, Status::Unknown);
  EXPECT_EQ(a.status, Status::Critical);  // what the log proves (no GDRDMA) is unchanged
}

TEST(BusbwVsNics, RealSingleHostCutOutputSaysWhy) {
  Artifact a = analyze_file(testing::test_data("nccl-tests/nccl-tests-176-error-column-128gpu-cut.txt"));
  ASSERT_FALSE(a.busbw_vs_nics.empty());
  EXPECT_EQ(a.busbw_vs_nics[0].judgement.status, Status::Unknown);
  EXPECT_NE(a.busbw_vs_nics[0].judgement.summary.find("node count not known"), std::string::npos)
      << a.busbw_vs_nics[0].judgement.summary;
}

TEST(BusbwVsNics, RunWithoutRowsIsUnknown) {
  NcclTestsRun run;
  run.test_name = "all_reduce_perf";
  BusbwVsNics c = compare_busbw_with_nics(run, nullptr);
  EXPECT_EQ(c.judgement.status, Status::Unknown);
  EXPECT_NE(c.judgement.summary.find("no out-of-place busbw"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

// The bench verdict from real recorded outputs: GDRDMA proof per node, busbw
// against the model, A/B gain, noise, and runs that could not run.
#include <gtest/gtest.h>

#include <fstream>

#include "analyze/artifact.h"
#include "bench/nccl_bench.h"
#include "bench/nccl_verdict.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

// A run whose raw output is the given recorded files, printed in order.
NcclRunResult recorded_run(const std::string& label, const std::vector<std::string>& files, bool off = false) {
  std::string path = testing::scratch_dir() + "/" + label + ".log";
  {
    std::ofstream out(path);
    for (const auto& f : files) out << testing::read_test_data(f);
  }
  NcclRunResult r;
  r.label = label;
  r.gdr_off = off;
  r.raw_output = path;
  r.end = "exit status 0";
  summarize_nccl_output(analyze_file(path, ArtifactKind::NcclTests), r);
  return r;
}

const std::vector<std::string> kGdrOn = {"nccl-logs/nccl-tests-224-gdrdma-shared.log",
                                         "nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"};
const std::vector<std::string> kGdrOff = {"nccl-logs/nccl-1412-ib-no-gdr-init-complete.log",
                                          "nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"};

const Finding* finding(const NcclBenchReport& r, const std::string& check) {
  for (const auto& f : r.findings)
    if (f.check == check) return &f;
  return nullptr;
}

NcclBenchReport two_nodes(double rate, int nics) {
  NcclBenchReport r;
  r.nodes = 2;
  r.ranks_per_node = 1;
  r.scenario.nodes = 2;
  r.scenario.gpus_per_node = 1;
  r.scenario.collective = Collective::AllReduce;
  r.scenario.algorithm = Algorithm::Ring;
  if (rate > 0) r.scenario.nics_per_node = {NicSpec{"mlx5", rate, LinkLayer::InfiniBand, nics}};
  return r;
}

TEST(BenchOutput, ProofPerNodeAndLargeMessage) {
  NcclRunResult r = recorded_run("on", kGdrOn);
  EXPECT_EQ(r.gdr, GdrVerdict::Yes);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].host, "lambda-server-1");
  EXPECT_EQ(r.nodes[0].connections, r.nodes[0].gdr);
  EXPECT_GT(r.nodes[0].send_gdr, 0u);
  EXPECT_GT(r.nodes[0].recv_gdr, 0u);
  EXPECT_EQ(r.nodes[0].net_devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.nics_driven_per_node, 2);
  ASSERT_TRUE(r.large);
  EXPECT_EQ(r.large->size, 33554432u);
  EXPECT_DOUBLE_EQ(r.large->busbw, 41.31);
  EXPECT_EQ(r.table.size(), 5u);
}

TEST(BenchOutput, NoGdrLogShowsNoGdrdma) {
  NcclRunResult r = recorded_run("off", kGdrOff, true);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_GT(r.connections, 0u);
  EXPECT_NE(r.gdr, GdrVerdict::Yes);
}

TEST(BenchVerdict, ProvenGdrAndBandwidthAgainstTheModel) {
  NcclBenchReport rep = two_nodes(400, 1);
  rep.gdr_on = {recorded_run("on1", kGdrOn)};
  judge_nccl_bench(rep);
  const Finding* gdr = finding(rep, "gdr");
  ASSERT_NE(gdr, nullptr);
  EXPECT_EQ(gdr->status, Status::Ok);
  EXPECT_EQ(gdr->subject, "lambda-server-1");
  ASSERT_TRUE(rep.expectation.known) << rep.expectation.unknown_reason;
  const Finding* bw = finding(rep, "bandwidth");
  ASSERT_NE(bw, nullptr);
  // 41.31 GB/s against one 400G NIC driven... the log shows two NET devices.
  EXPECT_EQ(rep.scenario.nics_driven_per_node, 2);
  ASSERT_TRUE(rep.bandwidth);
  EXPECT_NEAR(rep.bandwidth->ratio, 41.31 / rep.expectation.expected_busbw_gbytes, 1e-9);
  EXPECT_NE(rep.units.find("GB/s (bytes"), std::string::npos);
  EXPECT_NE(rep.units.find("RING"), std::string::npos);
}

TEST(BenchVerdict, LowBusbwOnRingIsCritical) {
  NcclBenchReport rep = two_nodes(400, 8);
  rep.scenario.nics_driven_per_node = 8;
  rep.gdr_on = {recorded_run("on2", kGdrOn)};
  judge_nccl_bench(rep);
  const Finding* bw = finding(rep, "bandwidth");
  ASSERT_NE(bw, nullptr);
  // The log shows 2 NET devices, so the model counts 2 NICs: 41 GB/s < 0.9 x 2 x ceiling(400G).
  EXPECT_EQ(bw->status, Status::Critical);
  EXPECT_FALSE(bw->fix.empty());
  EXPECT_EQ(rep.status, Status::Critical);
}

TEST(BenchVerdict, NoNicFiguresIsUnknownNeverAPass) {
  NcclBenchReport rep = two_nodes(0, 0);
  rep.gdr_on = {recorded_run("on3", kGdrOn)};
  judge_nccl_bench(rep);
  EXPECT_FALSE(rep.expectation.known);
  const Finding* bw = finding(rep, "bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->status, Status::Unknown);
  EXPECT_NE(bw->fix.find("--nic-rate"), std::string::npos);
}

TEST(BenchVerdict, AbWithoutGainIsExplained) {
  NcclBenchReport rep = two_nodes(400, 1);
  rep.ab = true;
  rep.gdr_on = {recorded_run("on4", kGdrOn)};
  rep.gdr_off = {recorded_run("off4", kGdrOff, true)};
  judge_nccl_bench(rep);
  ASSERT_TRUE(rep.gain);
  EXPECT_NEAR(*rep.gain, 0, 1e-9);
  const Finding* ab = finding(rep, "ab");
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->status, Status::Warning);
  bool explained = false;
  for (const auto& e : ab->evidence) explained |= e.rfind("likely: ", 0) == 0;
  EXPECT_TRUE(explained);
}

TEST(BenchVerdict, GdrOffRunStillUsingGdrdmaIsUnknown) {
  NcclBenchReport rep = two_nodes(400, 1);
  rep.ab = true;
  rep.gdr_on = {recorded_run("on5", kGdrOn)};
  rep.gdr_off = {recorded_run("off5", kGdrOn, true)};  // LOC did not arrive
  judge_nccl_bench(rep);
  const Finding* ab = finding(rep, "ab");
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->status, Status::Unknown);
  EXPECT_NE(ab->summary.find("did not reach"), std::string::npos);
}

TEST(BenchVerdict, CouldNotRunIsUnknownNotABandwidthFailure) {
  NcclBenchReport rep = two_nodes(400, 8);
  NcclRunResult hung;
  hung.label = "gdr-on-1";
  hung.end = "timed out after 5 s";
  hung.could_not_run = "hung: timed out after 5 s";
  rep.gdr_on = {hung};
  judge_nccl_bench(rep);
  EXPECT_EQ(rep.status, Status::Unknown);
  EXPECT_EQ(finding(rep, "bandwidth"), nullptr);
  const Finding* run = finding(rep, "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->status, Status::Unknown);
  EXPECT_NE(run->summary.find("hung"), std::string::npos);
}

TEST(BenchVerdict, NoisyRepeats) {
  NcclBenchReport rep = two_nodes(400, 1);
  NcclRunResult a = recorded_run("on6", kGdrOn), b = a, c = a;
  b.label = "on7";
  b.large->busbw = 20;
  c.label = "on8";
  c.large->busbw = 30;
  rep.gdr_on = {a, b, c};
  judge_nccl_bench(rep);
  ASSERT_TRUE(rep.busbw_on);
  EXPECT_EQ(rep.busbw_on->count, 3);
  EXPECT_DOUBLE_EQ(rep.busbw_on->median, 30);
  const Finding* noise = finding(rep, "noise");
  ASSERT_NE(noise, nullptr);
  EXPECT_EQ(noise->status, Status::Warning);
}

TEST(BenchVerdict, SingleNodeLogProvesNothing) {
  NcclBenchReport rep = two_nodes(400, 1);
  rep.gdr_on = {recorded_run("single", {"nccl-tests/nccl-tests-287-alltoall-5090-avg-zero.txt"})};
  judge_nccl_bench(rep);
  const Finding* gdr = finding(rep, "gdr");
  ASSERT_NE(gdr, nullptr);
  EXPECT_EQ(gdr->status, Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

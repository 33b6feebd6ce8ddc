// Tests for the expected-bandwidth model. Expected figures are computed
// here from the figures docs/bandwidth-model.md states (12 GB/s per 100G
// NIC, 24 per 200G, 48 per 400G, 0.12 GB/s per Gb/s elsewhere, pass at
// 0.9), never copied from the model's output.
#include "bench/expected_bandwidth.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>

#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::any_contains;
using testing::contains;

// The documented figures.
constexpr double kPer100G = 12.0;
constexpr double kPer200G = 24.0;
constexpr double kPer400G = 48.0;
constexpr double kPerGbps = 0.12;
constexpr double kDefaultPass = 0.9;

BandwidthScenario scenario(double rate, LinkLayer layer, int nics, int gpus, int nodes,
                           Collective c = Collective::AllReduce, Algorithm a = Algorithm::Ring) {
  BandwidthScenario s;
  s.nics_per_node = {{"mlx5", rate, layer, nics}};
  s.gpus_per_node = gpus;
  s.nodes = nodes;
  s.collective = c;
  s.algorithm = a;
  return s;
}

// ---- per-generation table -------------------------------------------------

struct GenerationCase {
  const char* name;
  double rate;
  LinkLayer layer;
  int nics;
  int gpus;
  double per_nic;  // from the documented figures
};

void PrintTo(const GenerationCase& c, std::ostream* os) {
  *os << c.name;
}

class Generations : public ::testing::TestWithParam<GenerationCase> {};

TEST_P(Generations, RingAllReduceIsTheSumOfTheUsedNicsCeilings) {
  const auto& c = GetParam();
  auto e = expect_nccl_busbw(scenario(c.rate, c.layer, c.nics, c.gpus, 2), {});
  ASSERT_TRUE(e.known) << e.unknown_reason;
  EXPECT_TRUE(e.network_bound);
  int used = std::min(c.nics, c.gpus);
  EXPECT_EQ(e.nics_used, used);
  EXPECT_NEAR(e.expected_busbw_gbytes, used * c.per_nic, 1e-9);
  EXPECT_NEAR(e.per_nic_gbytes, c.per_nic, 1e-9);
  EXPECT_NEAR(e.pass_busbw_gbytes, kDefaultPass * used * c.per_nic, 1e-9);
  EXPECT_NEAR(e.line_rate_gbytes, c.nics * c.rate / 8, 1e-9);
  // A NIC never carries more than its line rate in bytes.
  EXPECT_LE(e.per_nic_gbytes, c.rate / 8);
  EXPECT_FALSE(e.sources.empty());
}

INSTANTIATE_TEST_SUITE_P(Table, Generations,
                         ::testing::Values(GenerationCase{"edr_1", 100, LinkLayer::InfiniBand, 1, 8, kPer100G},
                                           GenerationCase{"edr_4", 100, LinkLayer::InfiniBand, 4, 4, kPer100G},
                                           GenerationCase{"hdr_4", 200, LinkLayer::InfiniBand, 4, 8, kPer200G},
                                           GenerationCase{"hdr_8_dgx_a100", 200, LinkLayer::InfiniBand, 8, 8, kPer200G},
                                           GenerationCase{"ndr_1", 400, LinkLayer::InfiniBand, 1, 1, kPer400G},
                                           GenerationCase{"ndr_4_gb200", 400, LinkLayer::InfiniBand, 4, 4, kPer400G},
                                           GenerationCase{"ndr_8_dgx_h100", 400, LinkLayer::InfiniBand, 8, 8, kPer400G},
                                           GenerationCase{"xdr_8", 800, LinkLayer::InfiniBand, 8, 8, 800 * kPerGbps},
                                           GenerationCase{"eth_25", 25, LinkLayer::Ethernet, 1, 1, 25 * kPerGbps},
                                           GenerationCase{"eth_50", 50, LinkLayer::Ethernet, 2, 8, 50 * kPerGbps},
                                           GenerationCase{"roce_400_8", 400, LinkLayer::Ethernet, 8, 8, kPer400G},
                                           GenerationCase{"unknown_layer_200", 200, LinkLayer::Unknown, 8, 8,
                                                          kPer200G}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ExpectedBandwidth, BuiltInFiguresMatchThePublishedAggregates) {
  // DGX A100 8 x HDR: about 192 GB/s (NVIDIA/nccl#812); 8 x NDR ring: up
  // to about 396 GB/s, 46-49 GB/s per NIC (nccl-tests#319, #290).
  auto a100 = expect_nccl_busbw(scenario(200, LinkLayer::InfiniBand, 8, 8, 2), {});
  EXPECT_NEAR(a100.expected_busbw_gbytes, 192.0, 1e-9);
  auto h100 = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  EXPECT_GE(h100.expected_busbw_gbytes, 8 * 46.0);
  EXPECT_LE(h100.expected_busbw_gbytes, 396.0);
  // nccl-tests#119: 4 x HDR, target 96 GB/s.
  auto hdr4 = expect_nccl_busbw(scenario(200, LinkLayer::InfiniBand, 4, 4, 2), {});
  EXPECT_NEAR(hdr4.expected_busbw_gbytes, 96.0, 1e-9);
}

TEST(ExpectedBandwidth, RingCollectivesShareTheFigureAndMoreNodesDoNotChangeIt) {
  auto ref = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast, Collective::Reduce}) {
    auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2, c), {});
    ASSERT_TRUE(e.known) << collective_name(c);
    EXPECT_DOUBLE_EQ(e.expected_busbw_gbytes, ref.expected_busbw_gbytes) << collective_name(c);
  }
  auto many = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 64), {});
  EXPECT_DOUBLE_EQ(many.expected_busbw_gbytes, ref.expected_busbw_gbytes);
}

TEST(ExpectedBandwidth, RoceIsCountedLikeInfinibandAndSaysSo) {
  auto ib = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  auto roce = expect_nccl_busbw(scenario(400, LinkLayer::Ethernet, 8, 8, 2), {});
  EXPECT_DOUBLE_EQ(roce.expected_busbw_gbytes, ib.expected_busbw_gbytes);
  EXPECT_TRUE(any_contains(roce.assumptions, "RoCE"));
  EXPECT_FALSE(any_contains(ib.assumptions, "RoCE"));
}

TEST(ExpectedBandwidth, RatesOutsideTheTableAreDerivedAndSaySo) {
  auto e = expect_nccl_busbw(scenario(800, LinkLayer::InfiniBand, 8, 8, 2), {});
  EXPECT_NEAR(e.expected_busbw_gbytes, 8 * 800 * kPerGbps, 1e-9);
  EXPECT_TRUE(any_contains(e.sources, "derived"));
  EXPECT_TRUE(any_contains(e.sources, "no published NCCL figure above 400G"));
}

// ---- NIC counts -----------------------------------------------------------

TEST(ExpectedBandwidth, FewerNicsThanGpusCapTheAggregate) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 4, 8, 2), {});
  EXPECT_EQ(e.nics_used, 4);
  EXPECT_NEAR(e.expected_busbw_gbytes, 4 * kPer400G, 1e-9);
  EXPECT_TRUE(any_contains(e.assumptions, "shared"));
}

TEST(ExpectedBandwidth, MoreNicsThanGpusCountOnePerGpuUnlessTheDrivenCountIsGiven) {
  // GH200: one GPU per node, 4 x 200G (NVIDIA/nccl#1579 measured 96.07 GB/s).
  auto s = scenario(200, LinkLayer::InfiniBand, 4, 1, 2);
  auto lower = expect_nccl_busbw(s, {});
  EXPECT_EQ(lower.nics_used, 1);
  EXPECT_NEAR(lower.expected_busbw_gbytes, kPer200G, 1e-9);
  EXPECT_TRUE(any_contains(lower.assumptions, "lower bound"));
  s.nics_driven_per_node = 4;
  auto all = expect_nccl_busbw(s, {});
  EXPECT_EQ(all.nics_used, 4);
  EXPECT_NEAR(all.expected_busbw_gbytes, 4 * kPer200G, 1e-9);
  EXPECT_EQ(judge_busbw(all, 96.07).status, Status::Ok);
  // Without GDR the same run gave 79.72 GB/s: below 0.9 of the four NICs.
  EXPECT_EQ(judge_busbw(all, 79.72).status, Status::Critical);
  // A driven count above the listed NICs is capped at the listed NICs.
  s.nics_driven_per_node = 9;
  EXPECT_EQ(expect_nccl_busbw(s, {}).nics_used, 4);
}

TEST(ExpectedBandwidth, MixedNicsCountTheFastestOnes) {
  BandwidthScenario s = scenario(400, LinkLayer::InfiniBand, 8, 8, 2);
  s.nics_per_node.insert(s.nics_per_node.begin(), NicSpec{"storage", 200, LinkLayer::Ethernet, 2});
  auto e = expect_nccl_busbw(s, {});
  EXPECT_EQ(e.nics_used, 8);
  EXPECT_NEAR(e.expected_busbw_gbytes, 8 * kPer400G, 1e-9);
  EXPECT_NEAR(e.line_rate_gbytes, (8 * 400 + 2 * 200) / 8.0, 1e-9);
  EXPECT_TRUE(contains(e.basis, "8 of 10"));
}

TEST(ExpectedBandwidth, SendrecvCountsOneNic) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2, Collective::SendRecv), {});
  ASSERT_TRUE(e.known);
  EXPECT_EQ(e.nics_used, 1);
  EXPECT_NEAR(e.expected_busbw_gbytes, kPer400G, 1e-9);
}

TEST(ExpectedBandwidth, AlltoallHasNoFigureButStatesTheNicBound) {
  int g = 8, nodes = 2;
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, g, nodes, Collective::AllToAll), {});
  EXPECT_FALSE(e.known);
  double n = g * nodes, a = 8 * kPer400G;
  char bound[32];
  std::snprintf(bound, sizeof bound, "%.1f GB/s", a * (n - 1) / (g * (n - g)));
  EXPECT_TRUE(contains(e.unknown_reason, bound)) << e.unknown_reason;
  EXPECT_EQ(judge_busbw(e, 1000).status, Status::Unknown);
}

// ---- fail closed ----------------------------------------------------------

TEST(ExpectedBandwidth, SingleNodeIsNotNetworkBound) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 1), {});
  EXPECT_FALSE(e.known);
  EXPECT_FALSE(e.network_bound);
  EXPECT_TRUE(contains(e.unknown_reason, "single node"));
  auto j = judge_busbw(e, 480);  // a good single-node NVLS figure is still no pass
  EXPECT_EQ(j.status, Status::Unknown);
  EXPECT_TRUE(contains(j.summary, "single node"));
  EXPECT_TRUE(contains(e.unknown_reason, "NVLink/PCIe")) << e.unknown_reason;
  auto amd = scenario(400, LinkLayer::InfiniBand, 8, 8, 1);
  amd.amd_gpus = true;  // MI300X nodes: xGMI, not NVLink
  auto ea = expect_nccl_busbw(amd, {});
  EXPECT_TRUE(contains(ea.unknown_reason, "xGMI/PCIe")) << ea.unknown_reason;
  EXPECT_FALSE(contains(ea.unknown_reason, "NVLink")) << ea.unknown_reason;
}

TEST(ExpectedBandwidth, UnknownInputsGiveNoExpectation) {
  struct Case {
    const char* name;
    BandwidthScenario s;
    const char* reason;
  };
  auto unknown_rate = scenario(0, LinkLayer::InfiniBand, 8, 8, 2);
  auto nan_rate = scenario(std::nan(""), LinkLayer::InfiniBand, 8, 8, 2);
  auto one_unknown = scenario(400, LinkLayer::InfiniBand, 7, 8, 2);
  one_unknown.nics_per_node.push_back({"mlx5_7", -1, LinkLayer::InfiniBand, 1});
  auto no_nics = scenario(400, LinkLayer::InfiniBand, 8, 8, 2);
  no_nics.nics_per_node.clear();
  Case cases[] = {
      {"rate 0", unknown_rate, "port rate not known"},
      {"rate NaN", nan_rate, "port rate not known"},
      {"one NIC of eight", one_unknown, "mlx5_7: port rate not known"},
      {"no NICs", no_nics, "no NIC"},
      {"count 0", scenario(400, LinkLayer::InfiniBand, 0, 8, 2), "not a count"},
      {"no GPUs", scenario(400, LinkLayer::InfiniBand, 8, 0, 2), "GPUs per node"},
      {"no nodes", scenario(400, LinkLayer::InfiniBand, 8, 8, 0), "node count"},
      {"collective", scenario(400, LinkLayer::InfiniBand, 8, 8, 2, Collective::Unknown), "collective"},
  };
  for (const auto& c : cases) {
    auto e = expect_nccl_busbw(c.s, {});
    EXPECT_FALSE(e.known) << c.name;
    EXPECT_TRUE(contains(e.unknown_reason, c.reason)) << c.name << ": " << e.unknown_reason;
    EXPECT_EQ(judge_busbw(e, 390).status, Status::Unknown) << c.name;
  }
}

// ---- overrides ------------------------------------------------------------

TEST(ExpectedBandwidth, SiteCeilingBeatsTheDefaultForItsRateAndLinkLayer) {
  BandwidthOverrides o;
  o.source = "bw.json";
  o.nic_ceilings = {{400, LinkLayer::InfiniBand, 47.0}, {400, std::nullopt, 45.0}, {200, LinkLayer::Ethernet, 20.0}};
  auto ib = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), o);
  EXPECT_NEAR(ib.expected_busbw_gbytes, 8 * 47.0, 1e-9);
  EXPECT_TRUE(any_contains(ib.sources, "bw.json"));
  // No RoCE-specific 400G entry: the any-layer entry applies.
  auto roce = expect_nccl_busbw(scenario(400, LinkLayer::Ethernet, 8, 8, 2), o);
  EXPECT_NEAR(roce.expected_busbw_gbytes, 8 * 45.0, 1e-9);
  // A RoCE-only 200G entry leaves 200G InfiniBand at the default.
  auto hdr = expect_nccl_busbw(scenario(200, LinkLayer::InfiniBand, 8, 8, 2), o);
  EXPECT_NEAR(hdr.expected_busbw_gbytes, 8 * kPer200G, 1e-9);
}

TEST(ExpectedBandwidth, SitePassRatioApplies) {
  BandwidthOverrides o;
  o.pass_ratio = 0.8;
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), o);
  EXPECT_NEAR(e.pass_busbw_gbytes, 0.8 * 8 * kPer400G, 1e-9);
  EXPECT_EQ(judge_busbw(e, 0.85 * 8 * kPer400G).status, Status::Ok);
}

TEST(ExpectedBandwidth, SiteFixedFigureBeatsTheModelAndCoversSingleNodes) {
  BandwidthOverrides o;
  o.source = "bw.json";
  o.fixed_busbw = {{"dgx-h100", Collective::AllReduce, std::nullopt, 370.0, std::nullopt},
                   {"dgx-h100", Collective::AllReduce, 1, 480.0, 460.0 / 480.0}};
  auto s = scenario(400, LinkLayer::InfiniBand, 8, 8, 4);
  s.node_type = "dgx-h100";
  auto e = expect_nccl_busbw(s, o);
  ASSERT_TRUE(e.known);
  EXPECT_TRUE(e.network_bound);
  EXPECT_DOUBLE_EQ(e.expected_busbw_gbytes, 370.0);
  EXPECT_NEAR(e.pass_busbw_gbytes, 0.9 * 370.0, 1e-9);
  s.nodes = 1;  // the node-count entry beats the any-count one
  auto one = expect_nccl_busbw(s, o);
  ASSERT_TRUE(one.known);
  EXPECT_FALSE(one.network_bound);
  EXPECT_NEAR(one.pass_busbw_gbytes, 460.0, 1e-9);
  EXPECT_EQ(judge_busbw(one, 477.9).status, Status::Ok);
  EXPECT_EQ(judge_busbw(one, 450.0).status, Status::Critical);
  // The site's figure is its own gate: no ring-figure leniency for NVLS.
  s.algorithm = Algorithm::Nvls;
  EXPECT_EQ(judge_busbw(expect_nccl_busbw(s, o), 450.0).status, Status::Critical);
  s.algorithm = Algorithm::Ring;
  // Another node type or collective falls back to the NIC model.
  s.nodes = 2;
  s.node_type = "other";
  EXPECT_NEAR(expect_nccl_busbw(s, o).expected_busbw_gbytes, 8 * kPer400G, 1e-9);
  s.node_type = "dgx-h100";
  s.collective = Collective::AllGather;
  EXPECT_NEAR(expect_nccl_busbw(s, o).expected_busbw_gbytes, 8 * kPer400G, 1e-9);
}

// ---- judgement ------------------------------------------------------------

TEST(JudgeBusbw, EdgeAtExactlyThePassRatio) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  double pass = kDefaultPass * 8 * kPer400G;
  EXPECT_EQ(judge_busbw(e, pass).status, Status::Ok);
  auto below = judge_busbw(e, pass * 0.999);
  EXPECT_EQ(below.status, Status::Critical);
  EXPECT_FALSE(below.fix.empty());
  EXPECT_NEAR(below.ratio, pass * 0.999 / (8 * kPer400G), 1e-12);
  auto good = judge_busbw(e, 390.0);
  EXPECT_EQ(good.status, Status::Ok);
  EXPECT_TRUE(good.fix.empty());
}

TEST(JudgeBusbw, MessageStatesUnitsRingAndTheNics) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  auto j = judge_busbw(e, 178.2);
  EXPECT_EQ(j.status, Status::Critical);
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", 178.2 / (8 * kPer400G));
  for (const std::string& part :
       {std::string("178.2 GB/s (bytes"), std::string("bus bandwidth"), std::string("ring figure"),
        std::string("400 Gb/s InfiniBand (NDR)"), std::string(ratio), std::string("pass at 0.90")})
    EXPECT_TRUE(contains(j.summary, part)) << part << " not in: " << j.summary;
  EXPECT_TRUE(any_contains(j.evidence, "source: "));
  EXPECT_TRUE(any_contains(j.evidence, "assumption: "));
}

TEST(JudgeBusbw, BelowTheRingFigureIsOnlyAWarningForOtherAlgorithms) {
  for (Algorithm a : {Algorithm::Tree, Algorithm::Nvls, Algorithm::Unknown}) {
    auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2, Collective::AllReduce, a), {});
    EXPECT_TRUE(any_contains(e.assumptions, "RING figure")) << algorithm_name(a);
    auto j = judge_busbw(e, 300);
    EXPECT_EQ(j.status, Status::Warning) << algorithm_name(a);
    EXPECT_TRUE(contains(j.fix, "NCCL_ALGO=RING"));
    // Tree on two nodes can exceed the network (nccl-tests#196): not an error.
    EXPECT_EQ(judge_busbw(e, 470).status, Status::Ok) << algorithm_name(a);
  }
}

TEST(JudgeBusbw, RingAboveTheLineRateMeansTheScenarioIsWrong) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 4, 8, 2), {});
  auto j = judge_busbw(e, 4 * 400 / 8.0 * 1.2);
  EXPECT_EQ(j.status, Status::Unknown);
  EXPECT_TRUE(contains(j.summary, "line rate"));
  EXPECT_EQ(judge_busbw(e, 4 * 400 / 8.0).status, Status::Ok);
}

TEST(JudgeBusbw, NoMeasurementIsUnknown) {
  auto e = expect_nccl_busbw(scenario(400, LinkLayer::InfiniBand, 8, 8, 2), {});
  EXPECT_EQ(judge_busbw(e, std::numeric_limits<double>::quiet_NaN()).status, Status::Unknown);
  EXPECT_EQ(judge_busbw(e, -1).status, Status::Unknown);
  EXPECT_EQ(judge_busbw(e, 0).status, Status::Critical);  // a real zero is a result
}

// ---- perftest -------------------------------------------------------------

TEST(RdmaPair, UnidirectionalPassesAtNinetyPercentOfThePortRate) {
  for (double rate : {100.0, 200.0, 400.0, 800.0}) {
    auto e = expect_rdma_pair(rate, RdmaDirection::Unidirectional, {});
    ASSERT_TRUE(e.known);
    EXPECT_DOUBLE_EQ(e.expected_gbits, rate);
    EXPECT_NEAR(e.pass_gbits, kDefaultPass * rate, 1e-9);
    EXPECT_EQ(judge_rdma_pair(e, kDefaultPass * rate).status, Status::Ok) << rate;
    auto low = judge_rdma_pair(e, kDefaultPass * rate * 0.999);
    EXPECT_EQ(low.status, Status::Critical) << rate;
    EXPECT_FALSE(low.fix.empty());
  }
}

TEST(RdmaPair, PublishedThresholdsAgree) {
  // Imbue: ib_write_bw -b with GDR >= 720 Gb/s on NDR = 0.9 x 2 x 400.
  auto bidir = expect_rdma_pair(400, RdmaDirection::Bidirectional, {});
  EXPECT_NEAR(bidir.pass_gbits, 720.0, 1e-9);
  // AzNHC saw 391 and 399.7 Gb/s GDR loopback on NDR; its floor 375 passes here too.
  auto uni = expect_rdma_pair(400, RdmaDirection::Unidirectional, {});
  for (double seen : {391.0, 399.7, 375.0}) EXPECT_EQ(judge_rdma_pair(uni, seen).status, Status::Ok) << seen;
  // ib_write_bw 180 Gb/s on a 200G RoCE port (nccl-tests#112) is exactly 0.9: the edge passes.
  EXPECT_EQ(judge_rdma_pair(expect_rdma_pair(200, RdmaDirection::Unidirectional, {}), 180).status, Status::Ok);
}

TEST(RdmaPair, MessageStatesBitsAndDirection) {
  auto j = judge_rdma_pair(expect_rdma_pair(400, RdmaDirection::Bidirectional, {}), 700);
  EXPECT_EQ(j.status, Status::Critical);
  EXPECT_TRUE(contains(j.summary, "700.0 Gb/s (bits, bidirectional")) << j.summary;
  EXPECT_TRUE(contains(j.summary, "2 x 400 Gb/s")) << j.summary;
}

TEST(RdmaPair, FailsClosed) {
  EXPECT_FALSE(expect_rdma_pair(0, RdmaDirection::Unidirectional, {}).known);
  EXPECT_EQ(judge_rdma_pair(expect_rdma_pair(0, RdmaDirection::Unidirectional, {}), 390).status, Status::Unknown);
  auto e = expect_rdma_pair(200, RdmaDirection::Unidirectional, {});
  EXPECT_EQ(judge_rdma_pair(e, 390).status, Status::Unknown);  // above the port: wrong port or direction
  EXPECT_EQ(judge_rdma_pair(e, std::nan("")).status, Status::Unknown);
}

TEST(RdmaPair, SitePassRatio) {
  BandwidthOverrides o;
  o.rdma_pass_ratio = 0.95;
  auto e = expect_rdma_pair(400, RdmaDirection::Unidirectional, o);
  EXPECT_NEAR(e.pass_gbits, 380.0, 1e-9);
  EXPECT_EQ(judge_rdma_pair(e, 375).status, Status::Critical);
}

// ---- names ----------------------------------------------------------------

TEST(BandwidthNames, CollectivesFromTestAndNcclSpellings) {
  EXPECT_EQ(collective_from_name("all_reduce_perf"), Collective::AllReduce);
  EXPECT_EQ(collective_from_name("all_reduce_perf_mpi"), Collective::AllReduce);
  EXPECT_EQ(collective_from_name("AllReduce"), Collective::AllReduce);
  EXPECT_EQ(collective_from_name("reduce_scatter"), Collective::ReduceScatter);
  EXPECT_EQ(collective_from_name("alltoall_perf"), Collective::AllToAll);
  EXPECT_EQ(collective_from_name("sendrecv_perf"), Collective::SendRecv);
  EXPECT_EQ(collective_from_name("reduce_perf"), Collective::Reduce);
  EXPECT_EQ(collective_from_name("gather_perf"), Collective::Unknown);
  EXPECT_EQ(collective_from_name(""), Collective::Unknown);
  EXPECT_EQ(collective_from_name("_perf"), Collective::Unknown);
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                       Collective::Reduce, Collective::AllToAll, Collective::SendRecv})
    EXPECT_EQ(collective_from_name(collective_name(c)), c);
}

TEST(BandwidthNames, AlgorithmsAndLinkLayers) {
  EXPECT_EQ(algorithm_from_name("Ring"), Algorithm::Ring);
  EXPECT_EQ(algorithm_from_name("NVLSTree"), Algorithm::Nvls);
  EXPECT_EQ(algorithm_from_name("CollnetDirect"), Algorithm::CollNet);
  EXPECT_EQ(algorithm_from_name("ring,tree"), Algorithm::Unknown);
  EXPECT_EQ(link_layer_from_name("InfiniBand"), LinkLayer::InfiniBand);
  EXPECT_EQ(link_layer_from_name("Ethernet"), LinkLayer::Ethernet);
  EXPECT_EQ(link_layer_from_name("RoCE"), LinkLayer::Ethernet);
  EXPECT_EQ(link_layer_from_name("Omni-Path"), LinkLayer::Unknown);
}

}  // namespace
}  // namespace gdrcheck

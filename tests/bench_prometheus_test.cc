#include "report/bench_prometheus.h"

#include <gtest/gtest.h>

#include "prometheus_promtool.h"

namespace gdrcheck {
namespace {

NcclBenchReport nccl(Status s) {
  NcclBenchReport r;
  r.status = s;
  r.expectation.known = true;
  r.expectation.collective = Collective::AllReduce;
  r.expectation.expected_busbw_gbytes = 400;
  r.expectation.pass_busbw_gbytes = 360;
  r.busbw_on = RepeatStats{3, 370.5, 360, 380, 0.05};
  r.busbw_off = RepeatStats{3, 120, 110, 125, 0.1};
  r.gain = 370.5 / 120 - 1;
  r.findings = {ok("bandwidth", "busbw", "370.5 GB/s", {})};
  return r;
}

TEST(BenchPrometheusTest, NcclGoodRun) {
  std::string text = nccl_bench_prometheus(nccl(Status::Ok), kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_bench_nccl_status 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_bench_busbw_gbytes{test=\"all_reduce_perf\",collective=\"" +
                                 std::string(collective_name(Collective::AllReduce)) + "\",gdr=\"on\"} 370.5"))
      << text;
  EXPECT_NE(text.find("gdr=\"off\"} 120\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gdrcheck_bench_busbw_pass_gbytes{"), std::string::npos) << text;
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

// The test could not run: UNKNOWN and no bandwidth figure at all.
TEST(BenchPrometheusTest, NcclCouldNotRun) {
  NcclBenchReport r;
  r.findings = {problem("nccl-tests", "all_reduce_perf", Status::Unknown, "not found", {}, "")};
  std::string text = nccl_bench_prometheus(r, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_bench_nccl_status 3")) << text;
  EXPECT_EQ(text.find("gdrcheck_bench_busbw"), std::string::npos) << text;
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

RdmaPairResult rdma_pair(std::string node, std::string gpu, std::string nic, std::optional<double> gbits, Status s) {
  RdmaPairResult p;
  p.node = std::move(node);
  p.pair.gpu = std::move(gpu);
  p.pair.nic = std::move(nic);
  if (gbits) p.gpu.stats = RepeatStats{1, *gbits, *gbits, *gbits, 0};
  p.host_gbits = 390;
  p.expectation.known = true;
  p.expectation.pass_gbits = 360;
  p.judgement = BandwidthJudgement{s, 0, "", {}, ""};
  return p;
}

TEST(BenchPrometheusTest, RdmaPairsGoodBadAndNotRun) {
  RdmaBenchReport r;
  r.status = Status::Critical;
  r.pairs = {rdma_pair("gpu-a1", "GPU0", "mlx5_0", 392.1, Status::Ok),
             rdma_pair("gpu-a1", "GPU1", "mlx5_1", 95, Status::Critical),
             rdma_pair("gpu-a1", "GPU2", "mlx5_\"2\n", std::nullopt, Status::Unknown)};
  r.findings = {problem("rdma", "GPU1-mlx5_1", Status::Critical, "95 Gb/s", {}, "reseat")};
  std::string text = rdma_bench_prometheus(r, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_bench_rdma_status 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_bench_rdma_gbits{node=\"gpu-a1\",gpu=\"GPU0\",nic=\"mlx5_0\",port=\"1\"} 392.1"))
      << text;
  EXPECT_TRUE(
      has_line(text, "gdrcheck_bench_rdma_pair_status{node=\"gpu-a1\",gpu=\"GPU1\",nic=\"mlx5_1\",port=\"1\"} 2"))
      << text;
  EXPECT_EQ(text.find("gdrcheck_bench_rdma_gbits{node=\"gpu-a1\",gpu=\"GPU2\""), std::string::npos) << text;
  EXPECT_TRUE(has_line(
      text, "gdrcheck_bench_rdma_pair_status{node=\"gpu-a1\",gpu=\"GPU2\",nic=\"mlx5_\\\"2\\\\n\",port=\"1\"} 3"))
      << text;
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

// The node, nccl and rdma files share one textfile directory: no family in
// two of them (node_exporter refuses a series that two files expose).
TEST(BenchPrometheusTest, FamiliesAreDisjointFromEachOther) {
  std::string a = nccl_bench_prometheus(nccl(Status::Ok), kTestStamp);
  RdmaBenchReport r;
  r.pairs = {rdma_pair("n", "GPU0", "mlx5_0", 1, Status::Ok)};
  std::string b = rdma_bench_prometheus(r, kTestStamp);
  EXPECT_TRUE(series_unique(a + b));
}

}  // namespace
}  // namespace gdrcheck

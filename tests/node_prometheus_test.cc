#include "report/node_prometheus.h"

#include <gtest/gtest.h>

#include "prometheus_promtool.h"

namespace gdrcheck {
namespace {

Endpoint endpoint(std::string id, DeviceRole role, std::string name) {
  Endpoint e;
  e.id = std::move(id);
  e.role = role;
  e.name = std::move(name);
  return e;
}

RdmaDevice rdma(std::string name, std::optional<std::string> state, std::optional<std::string> rate) {
  RdmaDevice d;
  d.name = std::move(name);
  RdmaPort p;
  p.number = 1;
  p.state.value = std::move(state);
  p.rate.value = std::move(rate);
  d.ports.push_back(p);
  return d;
}

PairVerdict pair_verdict(std::string gpu, std::string nic, GdrUse send, GdrUse recv, Status s) {
  PairVerdict p;
  p.gpu = std::move(gpu);
  p.nic_name = std::move(nic);
  p.gdr_send = send;
  p.gdr_recv = recv;
  p.status = s;
  return p;
}

struct JudgedNode {
  NodeReport report;
  HostState host;
};

JudgedNode healthy() {
  JudgedNode n;
  n.report.host = "gpu-a1";
  n.report.status = Status::Ok;
  n.report.topology.endpoints = {endpoint("GPU0", DeviceRole::Gpu, "GPU0"), endpoint("NIC0", DeviceRole::Nic, "mlx5_0"),
                                 endpoint("GPU1", DeviceRole::Gpu, "GPU1"),
                                 endpoint("NIC1", DeviceRole::Nic, "mlx5_1")};
  n.host.rdma = {rdma("mlx5_0", "4: ACTIVE", "400 Gb/sec (4X NDR)"),
                 rdma("mlx5_1", "4: ACTIVE", "400 Gb/sec (4X NDR)")};
  n.report.pairs = {pair_verdict("GPU0", "mlx5_0", GdrUse::Yes, GdrUse::Yes, Status::Ok),
                    pair_verdict("GPU1", "mlx5_1", GdrUse::Yes, GdrUse::Yes, Status::Ok)};
  n.report.findings = {ok("peermem", "host", "nvidia_peermem loaded", {}), ok("port", "mlx5_0/1", "ACTIVE", {}),
                       ok("port", "mlx5_1/1", "ACTIVE", {})};
  return n;
}

TEST(NodePrometheusTest, HealthyNode) {
  JudgedNode n = healthy();
  std::string text = node_prometheus(n.report, n.host, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_status 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_info{version=\"0.1.0\",rules=\"" + NcclVersion{}.str() + "\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_report_timestamp_seconds 1700000000")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_check_status{check=\"peermem\",subject=\"host\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr{gpu=\"GPU1\",nic=\"mlx5_1\",direction=\"recv\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr_known{gpu=\"GPU0\",nic=\"mlx5_0\",direction=\"send\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_ready{gpu=\"GPU0\",nic=\"mlx5_0\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_port_rate_gbps{nic=\"mlx5_1\",port=\"1\"} 400")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_port_active{nic=\"mlx5_0\",port=\"1\"} 1")) << text;
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

TEST(NodePrometheusTest, BrokenNodeWithHostileSubjects) {
  JudgedNode n = healthy();
  n.report.status = Status::Critical;
  n.host.rdma[1] = rdma("mlx5_1", "1: DOWN", "10 Gb/sec (4X SDR)");
  n.report.pairs[0] = pair_verdict("GPU0", "mlx5_0", GdrUse::Fail, GdrUse::No, Status::Critical);
  n.report.findings.push_back(problem("acs", "0000:17:02.0", Status::Critical, "ACS redirects P2P", {}, "setpci"));
  n.report.findings.push_back(problem("nic", "mlx\"5\n_9\x1b[2J", Status::Warning, "odd", {}, ""));
  n.report.findings.push_back(problem("nic", "mlx\"5\n_9\x1b[2J", Status::Unknown, "odd again", {}, ""));
  n.report.findings.push_back(problem("port", "mlx5_1/1", Status::Critical, "port down", {}, "cable"));
  n.report.findings.push_back(problem("path", std::string(4000, 'p') + "\\", Status::Warning, "long", {}, ""));
  std::string text = node_prometheus(n.report, n.host, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_status 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_check_status{check=\"acs\",subject=\"0000:17:02.0\"} 2")) << text;
  // One series per check and subject: the worse of WARNING and UNKNOWN.
  EXPECT_TRUE(has_line(text, "gdrcheck_check_status{check=\"nic\",subject=\"mlx\\\"5\\\\n_9\\\\x1b[2J\"} 1")) << text;
  // The same subject's OK and CRITICAL findings: CRITICAL.
  EXPECT_TRUE(has_line(text, "gdrcheck_check_status{check=\"port\",subject=\"mlx5_1/1\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr{gpu=\"GPU0\",nic=\"mlx5_0\",direction=\"send\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr{gpu=\"GPU0\",nic=\"mlx5_0\",direction=\"recv\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_ready{gpu=\"GPU0\",nic=\"mlx5_0\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_port_active{nic=\"mlx5_1\",port=\"1\"} 0")) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    EXPECT_LT(end - start, 400u) << "a label value was not capped";
  }
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

// Evidence missing: no direction decided, no port readable, nothing checked.
TEST(NodePrometheusTest, UnknownEvidenceIsNeverAYes) {
  JudgedNode n = healthy();
  n.report.status = Status::Unknown;
  n.host.rdma = {rdma("mlx5_0", std::nullopt, std::nullopt), rdma("mlx5_1", "garbage", "fast")};
  n.report.pairs = {pair_verdict("GPU0", "mlx5_0", GdrUse::Unknown, GdrUse::Unknown, Status::Unknown),
                    pair_verdict("GPU1", "", GdrUse::Unknown, GdrUse::Yes, Status::Ok)};
  n.report.findings = {problem("peermem", "host", Status::Unknown, "cannot read /sys/module", {}, "")};
  std::string text = node_prometheus(n.report, n.host, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_status 3")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_check_status{check=\"peermem\",subject=\"host\"} 3")) << text;
  EXPECT_EQ(text.find("gdrcheck_gpu_gdr{gpu=\"GPU0\""), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr_known{gpu=\"GPU0\",nic=\"mlx5_0\",direction=\"send\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_gdr_known{gpu=\"GPU1\",nic=\"\",direction=\"recv\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_ready{gpu=\"GPU0\",nic=\"mlx5_0\"} 0")) << text;
  // Ready needs both directions: one unknown direction is not ready.
  EXPECT_TRUE(has_line(text, "gdrcheck_gpu_ready{gpu=\"GPU1\",nic=\"\"} 0")) << text;
  EXPECT_EQ(text.find("gdrcheck_port_"), std::string::npos) << text;
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

TEST(NodePrometheusTest, WorseStatusValueFollowsTheExitScaleOrder) {
  EXPECT_EQ(worse_status_value(3, 2), 2);  // CRITICAL over UNKNOWN
  EXPECT_EQ(worse_status_value(0, 3), 3);  // UNKNOWN over OK
  EXPECT_EQ(worse_status_value(1, 3), 1);  // WARNING over UNKNOWN
  EXPECT_EQ(status_value(Status::Critical), 2);
}

}  // namespace
}  // namespace gdrcheck

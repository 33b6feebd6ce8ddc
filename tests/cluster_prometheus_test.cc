#include "report/cluster_prometheus.h"

#include <gtest/gtest.h>

#include "prometheus_promtool.h"

namespace gdrcheck {
namespace {

ClusterNode node(std::string host, Status s, NodeOutcome::How how = NodeOutcome::How::Report) {
  ClusterNode n;
  n.host = std::move(host);
  n.status = s;
  n.how = how;
  if (how == NodeOutcome::How::Report) {
    n.gpus = 8;
    n.gdr_gpus = s == Status::Ok ? 8 : 6;
    n.gdr_ready = s == Status::Ok;
    n.checks = {{"peermem", Status::Ok}, {"acs", s}};
  }
  return n;
}

ClusterModel mixed() {
  ClusterModel m;
  m.nodes = {node("gpu-a1", Status::Ok), node("gpu-a2", Status::Critical),
             node("gpu-a3", Status::Unknown, NodeOutcome::How::Unreachable),
             node("evil\"\n\x1b]0;x\x07", Status::Warning),
             // Reported twice: the worse stands.
             node("gpu-a2", Status::Ok)};
  m.checks = {"peermem", "acs"};
  m.reported = 4;
  m.ready = 2;
  m.by_status = {{Status::Ok, 2}, {Status::Critical, 1}, {Status::Unknown, 1}, {Status::Warning, 1}};
  m.failures = {{"acs", Status::Critical, {"gpu-a2"}}, {"unreachable", Status::Unknown, {"gpu-a3"}}};
  m.status = Status::Critical;
  return m;
}

TEST(ClusterPrometheusTest, MixedNodes) {
  std::string text = cluster_prometheus(mixed(), Status::Warning, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_status 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_worst_node_status 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_nodes 5")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_nodes_failed 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_nodes_by_status{status=\"CRITICAL\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_failure_nodes{what=\"unreachable\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_status{node=\"gpu-a1\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_status{node=\"gpu-a2\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_gdr_ready{node=\"gpu-a2\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_status{node=\"gpu-a3\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_reported{node=\"gpu-a3\"} 0")) << text;
  EXPECT_EQ(text.find("gdrcheck_node_gpus{node=\"gpu-a3\"}"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_check_status{node=\"gpu-a2\",check=\"acs\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_status{node=\"evil\\\"\\\\n\\\\x1b]0;x\\\\x07\"} 1")) << text;
  EXPECT_TRUE(series_unique(text));
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

// No node could be checked: the verdict is UNKNOWN and no node claims a
// GPU count it never reported.
TEST(ClusterPrometheusTest, NoReportsAtAll) {
  ClusterModel m;
  m.nodes = {node("gpu-b1", Status::Unknown, NodeOutcome::How::TimedOut)};
  m.status = Status::Unknown;
  std::string text = cluster_prometheus(m, Status::Unknown, kTestStamp);
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_status 3")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_cluster_nodes_reported 0")) << text;
  EXPECT_TRUE(has_line(text, "gdrcheck_node_gdr_ready{node=\"gpu-b1\"} 0")) << text;
  EXPECT_EQ(text.find("gdrcheck_node_gpus"), std::string::npos) << text;
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  EXPECT_TRUE(promtool_accepts_metrics(text));
}

}  // namespace
}  // namespace gdrcheck

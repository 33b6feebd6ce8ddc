#include "report/cluster_prometheus.h"

#include "cluster/cluster_verdict.h"
#include "report/node_prometheus.h"

namespace gdrcheck {
namespace {

void declare_cluster_metrics(PrometheusText& t) {
  t.gauge("gdrcheck_cluster_info", "gdrcheck version that made the cluster report; always 1");
  t.gauge("gdrcheck_cluster_status", std::string("Cluster verdict after --threshold") + kStatusScaleHelp);
  t.gauge("gdrcheck_cluster_worst_node_status", std::string("Worst status over the nodes") + kStatusScaleHelp);
  t.gauge("gdrcheck_cluster_report_timestamp_seconds",
          "When the cluster report was made, in seconds since the Unix epoch");
  t.gauge("gdrcheck_cluster_nodes", "Nodes asked");
  t.gauge("gdrcheck_cluster_nodes_reported", "Nodes that returned a usable node report");
  t.gauge("gdrcheck_cluster_nodes_gdr_ready", "Nodes that are OK with GPUDirect RDMA both ways on every GPU");
  t.gauge("gdrcheck_cluster_nodes_failed", "Nodes that are CRITICAL or could not be checked (UNKNOWN)");
  t.gauge("gdrcheck_cluster_nodes_by_status", "Nodes per node status");
  t.gauge("gdrcheck_cluster_failure_nodes",
          "Nodes sharing one failure: a check that is not OK, or a way of not answering");
  t.gauge("gdrcheck_node_status", std::string("Status of one node") + kStatusScaleHelp);
  t.gauge("gdrcheck_node_reported", "1 when the node returned a usable report, 0 otherwise");
  t.gauge("gdrcheck_node_gdr_ready", "1 when the node is OK with GPUDirect RDMA both ways on every GPU, 0 otherwise");
  t.gauge("gdrcheck_node_gpus", "GPUs in the node's report; absent without a report");
  t.gauge("gdrcheck_node_gdr_gpus", "GPUs with GPUDirect RDMA predicted both ways; absent without a report");
  t.gauge("gdrcheck_node_check_status", std::string("Worst status of one check on one node") + kStatusScaleHelp);
}

void summary(PrometheusText& t, const ClusterModel& m) {
  t.add("gdrcheck_cluster_nodes", {}, static_cast<double>(m.nodes.size()));
  t.add("gdrcheck_cluster_nodes_reported", {}, static_cast<double>(m.reported));
  t.add("gdrcheck_cluster_nodes_gdr_ready", {}, static_cast<double>(m.ready));
  t.add("gdrcheck_cluster_nodes_failed", {}, static_cast<double>(failed_nodes(m)));
  for (Status s : {Status::Ok, Status::Warning, Status::Critical, Status::Unknown}) {
    auto it = m.by_status.find(s);
    t.add("gdrcheck_cluster_nodes_by_status", {{"status", status_name(s)}},
          static_cast<double>(it == m.by_status.end() ? 0 : it->second));
  }
  for (const auto& f : m.failures)
    t.add("gdrcheck_cluster_failure_nodes", {{"what", f.what}}, static_cast<double>(f.hosts.size()), keep_highest);
}

// A host listed twice keeps its worst: no duplicate series, nothing better
// than what one of its reports said.
void node(PrometheusText& t, const ClusterNode& n) {
  PrometheusLabels labels = {{"node", n.host}};
  t.add("gdrcheck_node_status", labels, status_value(n.status), worse_status_value);
  t.add("gdrcheck_node_reported", labels, n.has_report() ? 1 : 0, keep_lowest);
  t.add("gdrcheck_node_gdr_ready", labels, n.gdr_ready ? 1 : 0, keep_lowest);
  if (n.has_report()) {
    t.add("gdrcheck_node_gpus", labels, static_cast<double>(n.gpus), keep_lowest);
    t.add("gdrcheck_node_gdr_gpus", labels, static_cast<double>(n.gdr_gpus), keep_lowest);
  }
  for (const auto& [check, s] : n.checks)
    t.add("gdrcheck_node_check_status", {{"node", n.host}, {"check", check}}, status_value(s), worse_status_value);
}

}  // namespace

std::string cluster_prometheus(const ClusterModel& m, Status verdict, const PrometheusStamp& stamp) {
  PrometheusText t;
  declare_cluster_metrics(t);
  t.add("gdrcheck_cluster_info", {{"version", stamp.version}}, 1);
  t.add("gdrcheck_cluster_status", {}, status_value(verdict));
  t.add("gdrcheck_cluster_worst_node_status", {}, status_value(m.status));
  t.add("gdrcheck_cluster_report_timestamp_seconds", {}, stamp.unix_seconds);
  summary(t, m);
  for (const auto& n : m.nodes) node(t, n);
  return t.text();
}

}  // namespace gdrcheck

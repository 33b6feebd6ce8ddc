// The cluster model over real reports of different nodes, nodes that did
// not answer, and a manifest; and the exit status with --threshold.
#include "cluster/cluster_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "cluster/cluster_verdict.h"
#include "cluster_hostile_reports.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using testing::minimal_outcome;
using testing::minimal_report;
using testing::report_outcome;

NodeOutcome lost(const std::string& host, NodeOutcome::How how, const std::string& reason,
                 const std::string& raw = "") {
  NodeOutcome o;
  o.host = host;
  o.how = how;
  o.reason = reason;
  o.raw = raw;
  return o;
}

// Six healthy H100 nodes, three with one fault each, one that is not there
// and one that printed garbage.
std::vector<NodeOutcome> mixed_cluster() {
  std::vector<NodeOutcome> out;
  for (int i = 1; i <= 6; ++i) out.push_back(report_outcome("gpu0" + std::to_string(i), "dgx-h100"));
  out.push_back(report_outcome("gpu07", "dgx-h100", {"peermem-missing"}));
  out.push_back(report_outcome("gpu08", "dgx-h100", {"acs-redirect"}));
  out.push_back(report_outcome("gpu09", "dgx-h100", {"nic-slow"}));
  out.push_back(lost("gpu10", NodeOutcome::How::Unreachable, "ssh: connect to host gpu10 port 22: Connection refused"));
  out.push_back(lost("gpu11", NodeOutcome::How::Report, "", "Segmentation fault\n"));
  return out;
}

const ClusterNode& node_named(const ClusterModel& m, const std::string& host) {
  for (const auto& n : m.nodes)
    if (n.host == host) return n;
  throw std::runtime_error("no node " + host);
}

std::vector<std::string> outliers_of(const ClusterModel& m, const std::string& host) {
  std::vector<std::string> out;
  for (const auto& o : m.outliers.outliers)
    if (o.host == host) out.push_back(o.aspect);
  return out;
}

const ClusterFailure* failure(const ClusterModel& m, const std::string& what) {
  for (const auto& f : m.failures)
    if (f.what == what) return &f;
  return nullptr;
}

TEST(ClusterModel, SummaryOfAMixedCluster) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  ASSERT_EQ(m.nodes.size(), 11u);
  EXPECT_EQ(m.reported, 9u);
  EXPECT_EQ(m.ready, 6u);
  EXPECT_EQ(m.status, Status::Critical);
  EXPECT_EQ(m.by_status[Status::Ok], 6u);
  EXPECT_EQ(m.by_status[Status::Critical], 2u);
  EXPECT_EQ(m.by_status[Status::Warning], 1u);
  EXPECT_EQ(m.by_status[Status::Unknown], 2u);
  EXPECT_TRUE(node_named(m, "gpu01").gdr_ready);
  EXPECT_EQ(node_named(m, "gpu07").checks.at("peermem"), Status::Critical);
  EXPECT_EQ(node_named(m, "gpu07").main_problem().rfind("peermem: ", 0), 0u);
  EXPECT_EQ(node_named(m, "gpu08").checks.at("acs"), Status::Critical);
  // ACS does not change NCCL's decision, only whether the data path works:
  // the GPU behind the redirecting port is not GPUDirect-ready.
  EXPECT_EQ(node_named(m, "gpu08").gdr_gpus, 7u);
  EXPECT_FALSE(node_named(m, "gpu08").gdr_ready);
  EXPECT_EQ(node_named(m, "gpu09").checks.at("port"), Status::Warning);
  EXPECT_EQ(node_named(m, "gpu01").checks.at("acs"), Status::Ok);
}

TEST(ClusterModel, NodesWithoutAReportAreUnknownWithTheReason) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  const ClusterNode& gone = node_named(m, "gpu10");
  EXPECT_EQ(gone.status, Status::Unknown);
  EXPECT_EQ(gone.how, NodeOutcome::How::Unreachable);
  EXPECT_EQ(gone.main_problem(), "ssh: connect to host gpu10 port 22: Connection refused");
  const ClusterNode& garbage = node_named(m, "gpu11");
  EXPECT_EQ(garbage.how, NodeOutcome::How::NotAReport);
  EXPECT_EQ(garbage.reason.rfind("not a valid report: not JSON (", 0), 0u) << garbage.reason;
  EXPECT_TRUE(garbage.fingerprint.empty());
}

TEST(ClusterModel, ALaunchersCaveatExplainsACutReport) {
  NodeOutcome cut{"gpu01", NodeOutcome::How::Report, "{\"schema\":\n",
                  "pdsh killed by signal 11 (SIGSEGV) before saying how this host ended", -1};
  ClusterModel m = build_cluster_model({cut}, {});
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].how, NodeOutcome::How::NotAReport);
  EXPECT_EQ(m.nodes[0].status, Status::Unknown);
  EXPECT_NE(m.nodes[0].reason.find("not a valid report"), std::string::npos) << m.nodes[0].reason;
  EXPECT_NE(m.nodes[0].reason.find("(pdsh killed by signal 11"), std::string::npos) << m.nodes[0].reason;
}

TEST(ClusterModel, FailuresCountTheNodes) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  ASSERT_TRUE(failure(m, "peermem"));
  EXPECT_EQ(failure(m, "peermem")->hosts, std::vector<std::string>{"gpu07"});
  EXPECT_EQ(failure(m, "peermem")->status, Status::Critical);
  ASSERT_TRUE(failure(m, "unreachable"));
  EXPECT_EQ(failure(m, "unreachable")->status, Status::Unknown);
  ASSERT_TRUE(failure(m, "not a report"));
  EXPECT_EQ(failure(m, "acs")->hosts, std::vector<std::string>{"gpu08"});
  EXPECT_FALSE(failure(m, "gpu"));
}

TEST(ClusterModel, OutliersAreTheDifferentNodes) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  EXPECT_TRUE(outliers_of(m, "gpu01").empty());
  // Without GDR NCCL routes every GPU through its CPU (pair classes change).
  EXPECT_EQ(outliers_of(m, "gpu07"), (std::vector<std::string>{"pair classes", "driver", "peer memory"}));
  EXPECT_EQ(outliers_of(m, "gpu08"), std::vector<std::string>{"ACS"});
  EXPECT_EQ(outliers_of(m, "gpu09"), (std::vector<std::string>{"port rates", "pair classes"}));
  bool named = false;
  for (const auto& o : m.outliers.outliers)
    named |= o.describe() == "gpu07: peer memory none vs nvidia_peermem on 8 of 9 nodes";
  EXPECT_TRUE(named);
}

TEST(ClusterModel, CheckColumnsFollowTheNodeReport) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  ASSERT_GE(m.checks.size(), 5u);
  EXPECT_EQ(m.checks[0], "gpu");
  EXPECT_TRUE(std::find(m.checks.begin(), m.checks.end(), "acs") != m.checks.end());
}

TEST(ClusterModel, ManifestAppliesToEveryNode) {
  std::string dir = testing::scratch_dir();
  auto w = testing::run_gdrcheck(
      {"node", "--root", testing::node_root("dgx-h100"), "--quiet", "--write-manifest", dir + "/m.json"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  ClusterOptions opt;
  std::ifstream in(dir + "/m.json");
  opt.manifest = nlohmann::json::parse(in);
  std::vector<NodeOutcome> outcomes = {report_outcome("a", "dgx-h100"), report_outcome("b", "dgx-h100", {"nic-slow"})};
  // A report of an older gdrcheck has no inventory to compare.
  nlohmann::json old = nlohmann::json::parse(report_outcome("c", "dgx-h100").raw);
  old.erase("inventory");
  outcomes.push_back(lost("c", NodeOutcome::How::Report, "", old.dump()));
  ClusterModel m = build_cluster_model(outcomes, opt);
  EXPECT_EQ(node_named(m, "a").checks.at("manifest"), Status::Ok);
  EXPECT_EQ(node_named(m, "a").status, Status::Ok);
  EXPECT_EQ(node_named(m, "b").checks.at("manifest"), Status::Critical);
  EXPECT_EQ(node_named(m, "b").status, Status::Critical);
  EXPECT_NE(node_named(m, "b").main_problem().find("ports rate_gbps differs from the manifest"), std::string::npos)
      << node_named(m, "b").main_problem();
  EXPECT_EQ(node_named(m, "c").checks.at("manifest"), Status::Unknown);
  EXPECT_EQ(node_named(m, "c").status, Status::Unknown);
}

// The node is the one addressed (or the file it came from): a report's
// own "host" never renames it, and a report of another host is not judged
// as this one.
TEST(ClusterModel, NodesAreNamedAsAddressedAndClaimsAreChecked) {
  std::vector<NodeOutcome> outcomes = {report_outcome("file-stem", "dgx-h100"),
                                       lost("bad", NodeOutcome::How::Report, "", "{")};
  outcomes[0].raw = testing::renamed_report(outcomes[0].raw, "gpu42");
  outcomes.push_back(report_outcome("gpu43", "dgx-h100"));
  outcomes[2].raw = testing::renamed_report(outcomes[2].raw, "GPU43.cluster.example");
  ClusterOptions opt;
  opt.sources = {"/r/file-stem.json", "/r/bad.json"};
  ClusterModel m = build_cluster_model(outcomes, opt);
  EXPECT_EQ(m.nodes[0].host, "file-stem");
  EXPECT_EQ(m.nodes[0].how, NodeOutcome::How::WrongHost);
  EXPECT_EQ(m.nodes[0].status, Status::Unknown);
  EXPECT_EQ(m.nodes[0].reason, "/r/file-stem.json: report claims host 'gpu42', was asked of 'file-stem'");
  EXPECT_TRUE(m.nodes[0].fingerprint.empty());
  EXPECT_EQ(m.nodes[1].host, "bad");
  EXPECT_EQ(m.nodes[1].reason.rfind("/r/bad.json: not a valid report: not JSON", 0), 0u) << m.nodes[1].reason;
  EXPECT_EQ(m.nodes[2].host, "gpu43");
  EXPECT_EQ(m.nodes[2].how, NodeOutcome::How::Report);
  EXPECT_EQ(m.reported, 1u);
  ASSERT_TRUE(failure(m, "wrong host"));
  EXPECT_EQ(failure(m, "wrong host")->hosts, std::vector<std::string>{"file-stem"});
}

// What one report can bring is bounded: too many findings or check ids,
// or a check id that is not a word, refuse the report (UNKNOWN, never OK).
TEST(ClusterModel, AReportOverTheCapsIsRefused) {
  std::vector<std::pair<std::string, std::string>> many(kMaxFindingsPerReport + 1, {"gpu", "OK"});
  std::vector<std::pair<std::string, std::string>> ids;
  for (std::size_t i = 0; i <= kMaxChecksPerReport; ++i) ids.push_back({"c" + std::to_string(i), "OK"});
  ClusterModel m = build_cluster_model(
      {minimal_outcome("a", minimal_report("a", "OK", many)), minimal_outcome("b", minimal_report("b", "OK", ids)),
       minimal_outcome("c", minimal_report("c", "OK", {{"gpu\x1b[2J", "OK"}})),
       minimal_outcome("d", minimal_report("d", "OK", {{std::string(33, 'x'), "OK"}})),
       minimal_outcome("e", minimal_report("e", "OK", {{"gpu", "OK"}}))},
      {});
  EXPECT_EQ(m.nodes[0].reason, "not a valid report: 10001 findings, more than a node report holds (10000)");
  EXPECT_EQ(m.nodes[1].reason, "not a valid report: more than 32 different checks");
  EXPECT_EQ(m.nodes[2].reason.rfind("not a valid report: \"gpu\\x1b[2J\" is not a check id", 0), 0u)
      << m.nodes[2].reason;
  EXPECT_EQ(m.nodes[3].how, NodeOutcome::How::NotAReport);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(m.nodes[i].status, Status::Unknown) << i;
  EXPECT_EQ(m.nodes[4].status, Status::Ok);
}

TEST(ClusterModel, FindingTextsAreKeptShort) {
  nlohmann::json j = nlohmann::json::parse(minimal_report("a", "CRITICAL", {{"acs", "CRITICAL"}}));
  j["findings"][0]["summary"] = std::string(1'000'000, 's');
  j["findings"][0]["fix"] = std::string(1'000'000, 'f');
  ClusterModel m = build_cluster_model({minimal_outcome("a", j.dump())}, {});
  ASSERT_EQ(m.nodes[0].problems.size(), 1u);
  EXPECT_EQ(m.nodes[0].problems[0].summary.size(), kMaxFindingTextBytes + 3);
  EXPECT_EQ(m.nodes[0].problems[0].fix.size(), kMaxFindingTextBytes + 3);
  EXPECT_EQ(m.nodes[0].status, Status::Critical);
}

// Many nodes, each with its own check ids: aggregation stays linear (it
// was quadratic in the distinct ids), and the table's columns are capped.
TEST(ClusterModel, AggregationIsLinearInTheDistinctCheckIds) {
  std::vector<NodeOutcome> outcomes;
  for (int n = 0; n < 3000; ++n) {
    std::vector<std::pair<std::string, std::string>> findings;
    for (std::size_t c = 0; c < kMaxChecksPerReport; ++c)
      findings.push_back({"n" + std::to_string(n) + "c" + std::to_string(c), "WARNING"});
    std::string host = "gpu" + std::to_string(n);
    outcomes.push_back(minimal_outcome(host, minimal_report(host, "WARNING", findings)));
  }
  auto start = std::chrono::steady_clock::now();
  ClusterModel m = build_cluster_model(outcomes, {});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(m.reported, 3000u);
  EXPECT_EQ(m.checks.size(), kMaxCheckColumns);
  EXPECT_EQ(m.failures.size(), 3000u * kMaxChecksPerReport);  // every id failing somewhere is listed
  EXPECT_EQ(m.checks[0], "n0c0");
}

TEST(ClusterModel, FailuresFollowTheColumnOrder) {
  ClusterModel m = build_cluster_model(
      {minimal_outcome("a", minimal_report("a", "CRITICAL", {{"zeta", "WARNING"}, {"acs", "CRITICAL"}})),
       minimal_outcome("b", minimal_report("b", "WARNING", {{"gpu", "WARNING"}}))},
      {});
  EXPECT_EQ(m.checks, (std::vector<std::string>{"gpu", "acs", "zeta"}));
  ASSERT_EQ(m.failures.size(), 3u);
  EXPECT_EQ(m.failures[0].what, "acs");
  EXPECT_EQ(m.failures[1].what, "zeta");
  EXPECT_EQ(m.failures[2].what, "gpu");
}

TEST(ClusterModel, DuplicateHostsAreNoted) {
  ClusterModel m = build_cluster_model({report_outcome("x", "dgx-h100"), report_outcome("x", "dgx-h100")}, {});
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_EQ(m.notes[0], "x appears 2 times (each is counted as a node)");
}

TEST(ClusterModel, NoNodesIsUnknown) {
  ClusterModel m = build_cluster_model({}, {});
  EXPECT_EQ(m.status, Status::Unknown);
  EXPECT_EQ(cluster_verdict(m, std::nullopt), Status::Unknown);
}

TEST(ClusterModel, OneThreadGivesTheSameModel) {
  ClusterOptions one;
  one.threads = 1;
  ClusterModel a = build_cluster_model(mixed_cluster(), one), b = build_cluster_model(mixed_cluster(), {});
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].host, b.nodes[i].host);
    EXPECT_EQ(a.nodes[i].fingerprint, b.nodes[i].fingerprint);
  }
}

TEST(ClusterVerdict, ThresholdParsing) {
  EXPECT_EQ(parse_threshold("3")->value, 3);
  EXPECT_FALSE(parse_threshold("3")->percent);
  EXPECT_TRUE(parse_threshold("5%")->percent);
  EXPECT_EQ(parse_threshold("2.5%")->value, 2.5);
  for (const char* bad : {"", "-1", "x", "%", "101%", "1.5", "3 nodes", "1e3"})
    EXPECT_FALSE(parse_threshold(bad)) << bad;
}

TEST(ClusterVerdict, WorstOrWithinTheThreshold) {
  ClusterModel m = build_cluster_model(mixed_cluster(), {});
  // Failed: 2 CRITICAL + 2 UNKNOWN of 11.
  EXPECT_EQ(failed_nodes(m), 4u);
  EXPECT_EQ(cluster_verdict(m, std::nullopt), Status::Critical);
  EXPECT_EQ(cluster_verdict(m, parse_threshold("4")), Status::Warning);
  EXPECT_EQ(cluster_verdict(m, parse_threshold("3")), Status::Critical);
  EXPECT_EQ(cluster_verdict(m, parse_threshold("40%")), Status::Warning);
  EXPECT_EQ(cluster_verdict(m, parse_threshold("30%")), Status::Critical);
  ClusterModel healthy = build_cluster_model({report_outcome("a", "dgx-h100"), report_outcome("b", "dgx-h100")}, {});
  EXPECT_EQ(cluster_verdict(healthy, parse_threshold("1")), Status::Ok);
  ClusterModel none_answered = build_cluster_model({lost("a", NodeOutcome::How::TimedOut, "timed out after 30 s")}, {});
  EXPECT_EQ(cluster_verdict(none_answered, parse_threshold("100%")), Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

// The node report reader: real reports of different fixture nodes are
// read; anything else is refused with a reason.
#include "cluster/node_report_reader.h"

#include <gtest/gtest.h>

#include "cluster_reports.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_report_json;

std::string problem_of(const std::string& raw) {
  NodeReportRead r = read_node_report(raw);
  EXPECT_FALSE(r.facts.has_value()) << raw.substr(0, 80);
  return r.problem;
}

std::string without(const std::string& report, const std::string& key) {
  json j = json::parse(report);
  j.erase(key);
  return j.dump();
}

TEST(NodeReportReader, ReadsAHealthyReport) {
  NodeReportRead r = read_node_report(node_report_json("dgx-h100"));
  ASSERT_TRUE(r.facts) << r.problem;
  const NodeReportFacts& f = *r.facts;
  EXPECT_EQ(f.host, "dgx-h100-01");
  EXPECT_EQ(f.status, Status::Ok);
  EXPECT_EQ(f.gpu_models.size(), 8u);
  EXPECT_EQ(f.pairs.size(), 8u);
  EXPECT_EQ(f.pairs[0].gdr_send, "yes");
  EXPECT_EQ(f.nic_models.size(), f.firmware.size());
  EXPECT_EQ(f.firmware[0], "28.39.1002");
  EXPECT_EQ(f.driver.value_or(""), "550.90.07 open");
  EXPECT_EQ(f.peer_memory.value_or(""), "nvidia_peermem");
  EXPECT_EQ(f.kernel.value_or(""), "5.15.0-1042-nvidia");
  ASSERT_TRUE(f.nccl_settings);
  EXPECT_TRUE(f.nccl_settings->empty());
  ASSERT_TRUE(f.iommu_group_types);
  EXPECT_EQ(*f.iommu_group_types, std::vector<std::string>{"identity"});
  EXPECT_TRUE(f.inventory.is_object());
  EXPECT_FALSE(f.findings.empty());
}

TEST(NodeReportReader, ReadsWhatAFailingNodeSays) {
  NodeReportRead r = read_node_report(node_report_json("dgx-h100", {"peermem-missing"}));
  ASSERT_TRUE(r.facts) << r.problem;
  EXPECT_EQ(r.facts->status, Status::Critical);
  EXPECT_EQ(r.facts->peer_memory.value_or(""), "none");
  EXPECT_EQ(r.facts->driver.value_or(""), "550.90.07 proprietary");
  bool peermem_critical = false;
  for (const auto& f : r.facts->findings) peermem_critical |= f.check == "peermem" && f.status == Status::Critical;
  EXPECT_TRUE(peermem_critical);
}

TEST(NodeReportReader, ReportsOfOlderVersionsLackOnlyTheNewFacts) {
  std::string old = node_report_json("dgx-h100");
  for (const char* k : {"driver", "peer_memory", "iommu", "nccl_settings", "inventory", "kernel"})
    old = without(old, k);
  NodeReportRead r = read_node_report(old);
  ASSERT_TRUE(r.facts) << r.problem;
  EXPECT_FALSE(r.facts->driver);
  EXPECT_FALSE(r.facts->peer_memory);
  EXPECT_FALSE(r.facts->nccl_settings);
  EXPECT_FALSE(r.facts->kernel);
  EXPECT_TRUE(r.facts->inventory.is_null());
}

TEST(NodeReportReader, RefusesEmptyGarbageAndTruncatedOutput) {
  EXPECT_EQ(problem_of(""), "empty output");
  EXPECT_EQ(problem_of(" \n\t"), "empty output");
  EXPECT_EQ(problem_of("bash: gdrcheck: command not found\n").rfind("not JSON (", 0), 0u);
  std::string report = node_report_json("dgx-h100");
  // Cut at a line break (between tokens, never inside a string, whatever
  // the paths in the report are): the parser then runs out of input.
  std::string cut = problem_of(report.substr(0, report.rfind('\n', report.size() / 2)));
  EXPECT_EQ(cut.rfind("not JSON (", 0), 0u) << cut;
  EXPECT_NE(cut.find("unexpected end of input"), std::string::npos) << cut;
  EXPECT_EQ(problem_of(report + "\ntrailing").rfind("not JSON (", 0), 0u);
  EXPECT_EQ(problem_of("[1, 2]"), "not a JSON object");
}

TEST(NodeReportReader, RefusesOtherDocuments) {
  EXPECT_EQ(problem_of(R"({"schema": "gdrcheck.topo/1", "gpus": []})"),
            "schema is \"gdrcheck.topo/1\", expected \"gdrcheck.node/1\"");
  EXPECT_EQ(problem_of(R"({"host": "x"})"), "no \"schema\" (not a gdrcheck node report)");
  EXPECT_EQ(problem_of(R"({"schema": 1})"), "no \"schema\" (not a gdrcheck node report)");
}

TEST(NodeReportReader, RefusesMissingAndMistypedFields) {
  std::string report = node_report_json("dgx-h100");
  EXPECT_EQ(problem_of(without(report, "findings")), "the report has no \"findings\"");
  EXPECT_EQ(problem_of(without(report, "host")), "the report has no \"host\"");
  json j = json::parse(report);
  j["status"] = "FINE";
  EXPECT_EQ(problem_of(j.dump()), "the report.status \"FINE\" is not OK, WARNING, CRITICAL or UNKNOWN");
  j = json::parse(report);
  j["pairs"] = "none";
  EXPECT_EQ(problem_of(j.dump()), "\"pairs\" is not an array");
  j = json::parse(report);
  j["findings"][2]["status"] = 7;
  EXPECT_EQ(problem_of(j.dump()), "findings[2].status is not a string");
  j = json::parse(report);
  j["nics"][0]["ports"][0]["port"] = "one";
  EXPECT_EQ(problem_of(j.dump()).rfind("unexpected value (", 0), 0u);
}

TEST(NodeReportReader, StatusNames) {
  EXPECT_EQ(parse_status_name("CRITICAL"), Status::Critical);
  EXPECT_EQ(parse_status_name("OK"), Status::Ok);
  EXPECT_FALSE(parse_status_name("ok"));
}

}  // namespace
}  // namespace gdrcheck

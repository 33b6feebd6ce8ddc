// The node report reader: real reports of different fixture nodes are
// read; anything else is refused with a reason.
#include "cluster/node_report_reader.h"

#include <gtest/gtest.h>

#include "cluster/cluster_model.h"
#include "cluster_reports.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_report_json;

std::string report_problem(const std::string& raw) {
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
  EXPECT_EQ(report_problem(""), "empty output");
  EXPECT_EQ(report_problem(" \n\t"), "empty output");
  EXPECT_EQ(report_problem("bash: gdrcheck: command not found\n").rfind("not JSON (", 0), 0u);
  std::string report = node_report_json("dgx-h100");
  // Cut at a line break (between tokens, never inside a string, whatever
  // the paths in the report are): the parser then runs out of input.
  std::string cut = report_problem(report.substr(0, report.rfind('\n', report.size() / 2)));
  EXPECT_EQ(cut.rfind("not JSON (", 0), 0u) << cut;
  EXPECT_NE(cut.find("unexpected end of input"), std::string::npos) << cut;
  EXPECT_EQ(report_problem(report + "\ntrailing").rfind("not JSON (", 0), 0u);
  EXPECT_EQ(report_problem("[1, 2]"), "not a JSON object");
}

TEST(NodeReportReader, RefusesOtherDocuments) {
  EXPECT_EQ(report_problem(R"({"schema": "gdrcheck.topo/1", "gpus": []})"),
            "schema is \"gdrcheck.topo/1\", expected \"gdrcheck.node/1\"");
  EXPECT_EQ(report_problem(R"({"host": "x"})"), "no \"schema\" (not a gdrcheck node report)");
  EXPECT_EQ(report_problem(R"({"schema": 1})"), "no \"schema\" (not a gdrcheck node report)");
}

// generated_at decides whether a node may be drained: read when present
// (older reports lack it), refused when it is not exactly the written form.
TEST(NodeReportReader, ReadsGeneratedAtAndRefusesAMalformedOne) {
  json j = json::parse(without(node_report_json("dgx-h100"), "generated_at"));
  NodeReportRead old = read_node_report(j.dump());
  ASSERT_TRUE(old.facts) << old.problem;
  EXPECT_FALSE(old.facts->generated_at);
  j["generated_at"] = "2026-12-03T17:47:26Z";
  NodeReportRead read = read_node_report(j.dump());
  ASSERT_TRUE(read.facts) << read.problem;
  EXPECT_EQ(read.facts->generated_at, 1796320046);
  j["generated_at"] = "2026-12-03T17:47:26+01:00";
  EXPECT_EQ(report_problem(j.dump()),
            "generated_at \"2026-12-03T17:47:26+01:00\" is not a UTC time like \"2026-12-03T17:47:26Z\"");
  j["generated_at"] = "yesterday\x1b[2J";
  EXPECT_EQ(report_problem(j.dump()).find('\x1b'), std::string::npos);
  j["generated_at"] = 1796320046;
  EXPECT_EQ(report_problem(j.dump()), "generated_at is not a string");
}

TEST(NodeReportReader, RefusesMissingAndMistypedFields) {
  std::string report = node_report_json("dgx-h100");
  EXPECT_EQ(report_problem(without(report, "findings")), "the report has no \"findings\"");
  EXPECT_EQ(report_problem(without(report, "host")), "the report has no \"host\"");
  json j = json::parse(report);
  j["status"] = "FINE";
  EXPECT_EQ(report_problem(j.dump()), "the report.status \"FINE\" is not OK, WARNING, CRITICAL or UNKNOWN");
  j = json::parse(report);
  j["pairs"] = "none";
  EXPECT_EQ(report_problem(j.dump()), "\"pairs\" is not an array");
  j = json::parse(report);
  j["findings"][2]["status"] = 7;
  EXPECT_EQ(report_problem(j.dump()), "findings[2].status is not a string");
  j = json::parse(report);
  j["nics"][0]["ports"][0]["port"] = "one";
  EXPECT_EQ(report_problem(j.dump()), "\"nics[0].ports[0].port\" must be a whole number from 0 to 65535, not a string");
  j = json::parse(report);
  j["inventory"]["gpus"]["count"] = "8";
  EXPECT_EQ(report_problem(j.dump()),
            "inventory: \"gpus.count\" must be a whole number from 0 to 1000000, not a string");
  j = json::parse(report);
  j["inventory"] = "none";
  EXPECT_EQ(report_problem(j.dump()), "inventory: not a JSON object");
}

// Whole numbers that would not convert to an int (1e300 is undefined
// behaviour as a double-to-int conversion) are refused, naming the field.
TEST(NodeReportReader, RefusesPortNumbersThatAreNotSmallWholeNumbers) {
  json j = json::parse(node_report_json("dgx-h100"));
  for (const char* bad : {"1e300", "-1e300", "-1", "1.5", "65536", "18446744073709551615"}) {
    std::string text = j.dump();
    std::string port = "\"port\":" + j["nics"][0]["ports"][0]["port"].dump();
    std::size_t at = text.find(port);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, port.size(), std::string("\"port\":") + bad);
    std::string p = report_problem(text);
    EXPECT_EQ(p.rfind("\"nics[0].ports[0].port\" must be a whole number from 0 to 65535, not ", 0), 0u) << p;
  }
  j["nics"][0]["ports"][0]["port"] = 2.0;  // integral: read as 2
  NodeReportRead r = read_node_report(j.dump());
  ASSERT_TRUE(r.facts) << r.problem;
  EXPECT_EQ(r.facts->ports.at(0).port, 2);
  j["nics"][0]["ports"][0]["rate_gbps"] = -400;
  EXPECT_EQ(report_problem(j.dump()), "nics[0].ports[0].rate_gbps is negative");
}

// A report nested 100,000 levels deep at any key — inventory (copied, and
// compared with a manifest), settings, an unknown key, a port, the whole
// document — is refused before anything walks it.
TEST(NodeReportReader, RefusesDeepNestingAnywhere) {
  const std::string deep_array = std::string(100000, '[') + std::string(100000, ']');
  std::string deep_object;
  for (int i = 0; i < 100000; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(100000, '}');
  const std::string why = "nested deeper than 64 levels; not a gdrcheck node report";
  json report = json::parse(node_report_json("dgx-h100"));
  auto with_deep = [&](const json::json_pointer& at, const std::string& deep) {
    json j = report;
    j[at] = "DEEP-VALUE-HERE";
    std::string text = j.dump(2);
    text.replace(text.find("\"DEEP-VALUE-HERE\""), 17, deep);
    return text;
  };
  for (const char* at : {"/inventory", "/inventory/gpus/models", "/nccl_settings", "/extra", "/nics/0/ports/0/port",
                         "/findings/0/evidence", "/driver"}) {
    EXPECT_EQ(report_problem(with_deep(json::json_pointer(at), deep_array)), why) << at;
    EXPECT_EQ(report_problem(with_deep(json::json_pointer(at), deep_object)), why) << at;
  }
  EXPECT_EQ(report_problem(deep_array), why);
  EXPECT_EQ(report_problem(deep_object), why);
}

// The library keeps the last of two equal keys: a CRITICAL node could read
// as OK. Such a report is refused instead.
TEST(NodeReportReader, RefusesAKeyGivenTwice) {
  std::string report = node_report_json("dgx-h100", {"peermem-missing"});
  ASSERT_NE(report.find("\"status\": \"CRITICAL\""), std::string::npos);
  std::string twice = report;
  twice.insert(twice.rfind('}'), ",\n  \"status\": \"OK\"\n");
  std::string p = report_problem(twice);
  EXPECT_EQ(p.rfind("key \"status\" appears twice in one object (line ", 0), 0u) << p;
}

TEST(NodeReportReader, ProblemsQuoteNoControlBytes) {
  json j = json::parse(node_report_json("dgx-h100"));
  j["status"] = "\x1b]0;pwned\x07";
  std::string p = report_problem(j.dump());
  EXPECT_EQ(p.find('\x1b'), std::string::npos) << p;
  EXPECT_EQ(p, "the report.status \"\\u001b]0;pwned\\u0007\" is not OK, WARNING, CRITICAL or UNKNOWN");
  std::string garbage = report_problem("\x1b[31m\x9b" + std::string(1 << 20, 'x'));
  for (char c : garbage) EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << int(c);
  EXPECT_LT(garbage.size(), 400u);
}

// A node's garbage never stops the cluster run: the node is UNKNOWN with
// the reason, the others are read, a manifest is compared where it can be.
TEST(NodeReportReader, HostileReportsMakeOnlyTheirNodeUnknown) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  json good = json::parse(node_report_json("dgx-h100"));
  json manifest = {{"schema", "gdrcheck.manifest/1"}, {"gpus", {{"count", 8}}}};
  std::vector<NodeOutcome> outcomes;
  for (const std::string& raw : {good.dump(), "{\"inventory\": " + deep + "}", std::string("\x00\xff garbage", 10)}) {
    NodeOutcome o;
    o.host = outcomes.empty() ? good["host"].get<std::string>() : "n" + std::to_string(outcomes.size());
    o.how = NodeOutcome::How::Report;
    o.raw = raw;
    outcomes.push_back(o);
  }
  ClusterOptions opt;
  opt.manifest = manifest;
  ClusterModel m = build_cluster_model(outcomes, opt);
  ASSERT_EQ(m.nodes.size(), 3u);
  EXPECT_EQ(m.nodes[0].status, Status::Ok);
  EXPECT_EQ(m.nodes[0].checks.at("manifest"), Status::Ok);
  EXPECT_EQ(m.nodes[1].status, Status::Unknown);
  EXPECT_NE(m.nodes[1].reason.find("not a valid report: nested deeper than 64 levels; not a gdrcheck node report"),
            std::string::npos)
      << m.nodes[1].reason;
  EXPECT_EQ(m.nodes[2].status, Status::Unknown);
  EXPECT_NE(m.nodes[2].reason.find("not a valid report: not JSON ("), std::string::npos) << m.nodes[2].reason;
}

TEST(NodeReportReader, StatusNames) {
  EXPECT_EQ(parse_status_name("CRITICAL"), Status::Critical);
  EXPECT_EQ(parse_status_name("OK"), Status::Ok);
  EXPECT_FALSE(parse_status_name("ok"));
}

}  // namespace
}  // namespace gdrcheck

// The fields every JSON document carries: when, by what and by which rules,
// and about which host.
#include "report/report_meta.h"

#include <gtest/gtest.h>

#include <regex>

#include "analyze/artifact.h"
#include "nccl/nccl_version.h"
#include "node_checks.h"
#include "recorded_fixtures.h"
#include "report/analyze_json.h"
#include "report/bench_json.h"
#include "report/node_json.h"
#include "report/topo_json.h"
#include "topology/hwloc_source.h"
#include "topology/path_matrix.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using std::chrono::system_clock;

// 2024-03-05T22:15:33Z
const system_clock::time_point kFixed{seconds(1709676933)};

void expect_meta(const json& j, const std::string& rules) {
  EXPECT_EQ(j["generated_at"], "2024-03-05T22:15:33Z");
  EXPECT_EQ(j["gdrcheck_version"], GDRCHECK_VERSION);
  EXPECT_EQ(j["rules"], rules);
  EXPECT_TRUE(j.contains("host"));
}

TEST(ReportMeta, TimestampIsUtcInOneShape) {
  EXPECT_EQ(utc_timestamp(kFixed), "2024-03-05T22:15:33Z");
  EXPECT_EQ(utc_timestamp(system_clock::time_point{}), "1970-01-01T00:00:00Z");
  // Sub-second parts are dropped, never printed.
  EXPECT_EQ(utc_timestamp(kFixed + std::chrono::milliseconds(999)), "2024-03-05T22:15:33Z");
  std::regex shape(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  EXPECT_TRUE(std::regex_match(utc_timestamp(system_clock::now()), shape));
}

TEST(ReportMeta, RangeNamesTheOldestAndNewestModelledRelease) {
  EXPECT_EQ(modelled_nccl_rules(), "2.4.0-" + NcclVersion::newest().str());
}

TEST(ReportMeta, FieldsAndHost) {
  json m = report_meta(kFixed, "2.21.5", std::string("gpu-17"));
  expect_meta(m, "2.21.5");
  EXPECT_EQ(m["host"], "gpu-17");
  EXPECT_TRUE(report_meta(kFixed, "x", std::nullopt)["host"].is_null());
}

TEST(ReportMeta, NeverReplacesADocumentsOwnField) {
  json doc = {{"schema", "s"}, {"host", "from-the-report"}};
  add_report_meta(doc, report_meta(kFixed, "2.21.5", std::string("other")));
  EXPECT_EQ(doc["host"], "from-the-report");
  EXPECT_EQ(doc["schema"], "s");
  EXPECT_EQ(doc["generated_at"], "2024-03-05T22:15:33Z");
}

TEST(ReportMeta, NodeDocumentNamesTheRulesOfItsPrediction) {
  auto c = testing::check(testing::node_root("dgx-h100"));
  json j = node_json(c.report, c.host, kFixed);
  expect_meta(j, c.report.nccl.rules.str());
  EXPECT_EQ(j["host"], "dgx-h100-01");
  EXPECT_EQ(j["schema"], "gdrcheck.node/1");  // nothing renamed
  NodeOptions old;
  old.nccl_version = NcclVersion{2, 18, 6};
  auto o = testing::check(testing::node_root("dgx-h100"), {}, old);
  EXPECT_EQ(node_json(o.report, o.host, kFixed)["rules"], "2.18.6");
}

TEST(ReportMeta, TopoDocumentHasTheRangeAndTheRootsHost) {
  Topology t = read_hwloc_xml(testing::test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"));
  json file = topo_json(t, compute_paths(t), kFixed);
  expect_meta(file, modelled_nccl_rules());
  EXPECT_TRUE(file["host"].is_null());  // a topology file is not a node
  Root root(testing::node_root("dgx-h100"));
  Topology r = read_sysfs_topology(root);
  EXPECT_EQ(topo_json(r, compute_paths(r), kFixed, root_hostname(root))["host"], "dgx-h100-01");
}

TEST(ReportMeta, AnalyzeAndBenchDocuments) {
  json a = analyze_json({}, false, kFixed);
  expect_meta(a, modelled_nccl_rules());
  EXPECT_TRUE(a["host"].is_null());
  NcclBenchReport one;
  one.hosts = {"node-a"};
  expect_meta(nccl_bench_json(one, kFixed), modelled_nccl_rules());
  EXPECT_EQ(nccl_bench_json(one, kFixed)["host"], "node-a");
  NcclBenchReport two;
  two.hosts = {"node-a", "node-b"};
  EXPECT_TRUE(nccl_bench_json(two, kFixed)["host"].is_null());
  RdmaBenchReport rdma;
  rdma.node = "node-c";
  json r = rdma_bench_json(rdma, kFixed);
  expect_meta(r, modelled_nccl_rules());
  EXPECT_EQ(r["host"], "node-c");
  EXPECT_EQ(r["node"], "node-c");
}

}  // namespace
}  // namespace gdrcheck

// Reading a site manifest: a written manifest and a hand-written partial
// one are accepted; wrong types, unknown keys, a manifest that names
// nothing, hostile nesting and repeated keys are refused with the file,
// the key and what was expected.
#include "checks/manifest.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/node_manifest.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

constexpr const char* kManifestFile = "manifest.json";

const char* kWritten = R"({
  "schema": "gdrcheck.manifest/1",
  "gpus": {"count": 8, "models": {"H100": 8}},
  "nics": {"count": 12, "models": {"ConnectX-7": 12}, "firmware": ["28.39.1002"]},
  "ports": {"rate_gbps": {"400": 8, "200": 4}, "link_layer": ["Ethernet", "InfiniBand"]},
  "pairs": {"GPU0": {"nic": "mlx5_0", "path": "PXB"}, "GPU1": {"nic": null, "path": null}},
  "driver": "550.90.07"
})";

std::string manifest_problem(const std::string& text) {
  try {
    parse_manifest(text, kManifestFile);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), kManifestFile);
    return e.problem();
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 120);
  return "";
}

std::string manifest_with(const std::string& body) {
  return R"({"schema": "gdrcheck.manifest/1", )" + body + "}";
}

TEST(ManifestFile, AcceptsAWrittenManifestAndAPartialOne) {
  EXPECT_EQ(parse_manifest(kWritten, kManifestFile), json::parse(kWritten));
  EXPECT_EQ(parse_manifest(manifest_with(R"("gpus": {"count": 8})"), kManifestFile)["gpus"]["count"], 8);
  EXPECT_EQ(parse_manifest(manifest_with(R"("driver": null)"), kManifestFile)["driver"], nullptr);
  EXPECT_EQ(parse_manifest(manifest_with(R"("gpus": {"count": 8.0})"), kManifestFile)["gpus"]["count"], 8);
}

TEST(ManifestFile, RefusesWrongTypesNamingTheKeyAndTheExpectedType) {
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {"count": "8"})")),
            "\"gpus.count\" must be a whole number from 0 to 1000000, not a string");
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {"count": 1e300})")),
            "\"gpus.count\" must be a whole number from 0 to 1000000, not 1e+300");
  EXPECT_EQ(manifest_problem(manifest_with(R"("nics": {"count": -1})")),
            "\"nics.count\" must be a whole number from 0 to 1000000, not -1");
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {"models": {"H100": 7.5}})")),
            "\"gpus.models.H100\" must be a whole number from 0 to 1000000, not 7.5");
  EXPECT_EQ(manifest_problem(manifest_with(R"("nics": {"firmware": "28.39.1002"})")),
            "\"nics.firmware\" must be an array of strings, not a string");
  EXPECT_EQ(manifest_problem(manifest_with(R"("ports": {"link_layer": ["InfiniBand", 1]})")),
            "\"ports.link_layer\" must be an array of strings, not 1");
  EXPECT_EQ(manifest_problem(manifest_with(R"("ports": {"rate_gbps": {"400": "8"}})")),
            "\"ports.rate_gbps.400\" must be a whole number from 0 to 1000000, not a string");
  EXPECT_EQ(manifest_problem(manifest_with(R"("pairs": {"GPU0": "mlx5_0"})")),
            "\"pairs.GPU0\" must be an object, not a string");
  EXPECT_EQ(manifest_problem(manifest_with(R"("pairs": {"GPU0": {"nic": 0}})")),
            "\"pairs.GPU0.nic\" must be a string or null, not 0");
  EXPECT_EQ(manifest_problem(manifest_with(R"("driver": 550)")), "\"driver\" must be a string or null, not 550");
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": [8])")), "\"gpus\" must be an object, not an array");
}

TEST(ManifestFile, RefusesUnknownKeysListingTheKnownOnes) {
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpu_count": 8)")),
            "unknown key \"gpu_count\" (known: schema, gpus, nics, ports, pairs, driver)");
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {"modles": {}})")),
            "in \"gpus\": unknown key \"modles\" (known: count, models)");
  EXPECT_EQ(manifest_problem(manifest_with(R"("pairs": {"GPU0": {"nic": "mlx5_0", "pth": "PXB"}})")),
            "in \"pairs.GPU0\": unknown key \"pth\" (known: nic, path)");
}

TEST(ManifestFile, RefusesAManifestThatChecksNothing) {
  const std::string why = "no expectations (an empty manifest checks nothing)";
  EXPECT_EQ(manifest_problem(R"({"schema": "gdrcheck.manifest/1"})"), why);
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {}, "pairs": {})")), why);
  EXPECT_EQ(manifest_problem("{}"),
            "\"schema\" must be \"gdrcheck.manifest/1\" (write one with gdrcheck node --write-manifest)");
  EXPECT_EQ(manifest_problem(R"({"schema": 1})"),
            "\"schema\" must be \"gdrcheck.manifest/1\" (write one with gdrcheck node --write-manifest)");
  EXPECT_EQ(manifest_problem("[]"), "not a JSON object");
}

TEST(ManifestFile, RefusesHostileText) {
  EXPECT_EQ(manifest_problem(
                manifest_with(R"("gpus": {"count": )" + std::string(100000, '[') + std::string(100000, ']') + "}")),
            "nested deeper than 64 levels; not a manifest");
  EXPECT_EQ(manifest_problem(manifest_with(R"("gpus": {"count": 8, "count": 4})")),
            "key \"count\" appears twice in one object (line 1, column 62)");
  EXPECT_EQ(manifest_problem("{\"schema\": ").rfind("not valid JSON: ", 0), 0u);
  std::string p = manifest_problem(manifest_with(R"("\u001b[2J": 1)"));
  EXPECT_EQ(p.find('\x1b'), std::string::npos) << p;
}

TEST(ManifestShape, InventoryOfAReportIsCheckedWithoutSchema) {
  json inventory = json::parse(kWritten);
  inventory.erase("schema");
  EXPECT_EQ(manifest_shape_problem(inventory), "");
  inventory["gpus"]["count"] = 8.5;
  EXPECT_EQ(manifest_shape_problem(inventory), "\"gpus.count\" must be a whole number from 0 to 1000000, not 8.5");
}

// The cluster comparison: differences are CRITICAL, found values from
// another machine reach the text only escaped.
TEST(ClusterManifest, DifferencesAreCriticalAndEscaped) {
  json want = parse_manifest(manifest_with(R"("driver": "550.90.07", "gpus": {"count": 8})"), kManifestFile);
  json inventory = {{"driver", "\x1b[2J\xc2\x9b"}, {"gpus", {{"count", 8}}}};
  auto found = compare_with_manifest(inventory, want);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].status, Status::Critical);
  EXPECT_EQ(found[0].summary,
            "NVIDIA driver version differs from the manifest: expected \"550.90.07\", found \"\\u001b[2J\\u009b\"");
  inventory["driver"] = "550.90.07";
  EXPECT_EQ(compare_with_manifest(inventory, want).at(0).status, Status::Ok);
  EXPECT_EQ(compare_with_manifest(json(nullptr), want).at(0).status, Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

// `gdrcheck cluster --from DIR` end to end, on reports the real `gdrcheck
// node --json` wrote for different fixture nodes: text, JSON, exit codes,
// --threshold, --manifest, --save, --drain, and clear errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_report_json;
using testing::renamed_report;
using testing::run_gdrcheck;
using testing::write_file;

// Eight H100 nodes: five healthy, one without peermem, one slow NIC, one
// with a stray nccl.conf; plus an empty, a truncated and a foreign file.
std::string collected_reports() {
  std::string dir = testing::scratch_dir();
  for (int i = 1; i <= 5; ++i)
    write_file(dir, "gpu0" + std::to_string(i) + ".json",
               renamed_report(node_report_json("dgx-h100"), "gpu0" + std::to_string(i)));
  write_file(dir, "gpu06.json", renamed_report(node_report_json("dgx-h100", {"peermem-missing"}), "gpu06"));
  write_file(dir, "gpu07.json", renamed_report(node_report_json("dgx-h100", {"nic-slow"}), "gpu07"));
  write_file(dir, "gpu08.json", renamed_report(node_report_json("dgx-h100", {"stray-nccl-conf"}), "gpu08"));
  write_file(dir, "gpu09.json", "");
  std::string r = node_report_json("dgx-h100");
  write_file(dir, "gpu10.json", r.substr(0, r.size() / 3));
  write_file(dir, "gpu11.json", R"({"schema": "gdrcheck.analyze/1", "artifacts": []})");
  return dir;
}

const std::string& reports() {
  static const std::string dir = collected_reports();
  return dir;
}

std::string healthy_dir(int nodes) {
  std::string dir = testing::scratch_dir();
  for (int i = 0; i < nodes; ++i)
    write_file(dir, "n" + std::to_string(i) + ".json",
               renamed_report(node_report_json("dgx-h100"), "n" + std::to_string(i)));
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ClusterCli, TextShowsFailuresOutliersAndDrain) {
  auto r = run_gdrcheck({"cluster", "--from", reports()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string& o = r.out;
  EXPECT_NE(o.find("NODE"), std::string::npos);
  EXPECT_NE(o.find("gpu06"), std::string::npos);
  EXPECT_EQ(o.find("\ngpu01 "), std::string::npos) << "OK nodes are only counted";
  EXPECT_NE(o.find("(5 nodes OK in every check; -v lists them)"), std::string::npos) << o;
  EXPECT_NE(o.find("gpu06: peer memory none vs nvidia_peermem on 7 of 8 nodes"), std::string::npos) << o;
  EXPECT_NE(o.find("gpu07: port rates"), std::string::npos);
  EXPECT_NE(o.find("gpu08: NCCL settings NCCL_IB_HCA=mlx5_1, NCCL_NET_GDR_LEVEL=LOC vs none on 7 of 8 nodes"),
            std::string::npos);
  EXPECT_NE(o.find("gpu09.json: not a valid report: empty output"), std::string::npos) << o;
  EXPECT_NE(o.find("gpu10.json: not a valid report: not JSON"), std::string::npos);
  EXPECT_NE(o.find("gpu11.json: not a valid report: schema is \"gdrcheck.analyze/1\""), std::string::npos);
  EXPECT_NE(o.find("scontrol update NodeName=gpu06 State=DRAIN 'Reason=gdrcheck: peermem: "), std::string::npos) << o;
  EXPECT_NE(o.find("CRITICAL: 11 nodes, 5 GPUDirect-ready"), std::string::npos) << o;
  auto v = run_gdrcheck({"cluster", "--from", reports(), "-v"});
  EXPECT_NE(v.out.find("\ngpu01 "), std::string::npos);
}

TEST(ClusterCli, JsonSchema) {
  auto r = run_gdrcheck({"cluster", "--from", reports(), "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "gdrcheck.cluster/1");
  EXPECT_EQ(j["status"], "CRITICAL");
  EXPECT_EQ(j["summary"]["nodes"], 11);
  EXPECT_EQ(j["summary"]["reported"], 8);
  EXPECT_EQ(j["summary"]["gdr_ready"], 5);
  EXPECT_EQ(j["summary"]["by_status"]["UNKNOWN"], 3);
  ASSERT_EQ(j["nodes"].size(), 11u);
  EXPECT_EQ(j["nodes"][0]["host"], "gpu01");
  EXPECT_EQ(j["nodes"][0]["fingerprint"]["firmware"], "28.39.1002");
  EXPECT_EQ(j["nodes"][5]["checks"]["peermem"], "CRITICAL");
  EXPECT_EQ(j["nodes"][8]["outcome"], "not a report");
  EXPECT_TRUE(j["nodes"][8]["fingerprint"].is_null());
  bool found = false;
  for (const auto& o : j["outliers"])
    found |= o["host"] == "gpu06" && o["aspect"] == "peer_memory" && o["majority_nodes"] == 7;
  EXPECT_TRUE(found);
  ASSERT_EQ(j["drain"]["commands"].size(), 2u);  // no peermem; NCCL_NET_GDR_LEVEL=LOC
  EXPECT_EQ(j["drain"]["commands"][0][2], "NodeName=gpu06");
  EXPECT_EQ(j["drain"]["commands"][1][2], "NodeName=gpu08");
  EXPECT_EQ(j["drain"]["ran"], false);
}

TEST(ClusterCli, HealthyClusterExitsZero) {
  auto r = run_gdrcheck({"cluster", "--from", healthy_dir(4)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("OK: 4 nodes, 4 GPUDirect-ready"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("scontrol"), std::string::npos);
}

TEST(ClusterCli, ThresholdToleratesFailedNodes) {
  // Failed: gpu06 and gpu08 (CRITICAL), gpu09-11 (no valid report).
  EXPECT_EQ(run_gdrcheck({"cluster", "--from", reports(), "--threshold", "5"}).exit_code, 1);
  EXPECT_EQ(run_gdrcheck({"cluster", "--from", reports(), "--threshold", "4"}).exit_code, 2);
  EXPECT_EQ(run_gdrcheck({"cluster", "--from", reports(), "--threshold", "50%"}).exit_code, 1);
  auto bad = run_gdrcheck({"cluster", "--from", reports(), "--threshold", "many"});
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_NE(bad.err.find("--threshold 'many'"), std::string::npos);
}

TEST(ClusterCli, ManifestAppliesToEveryNode) {
  std::string dir = testing::scratch_dir();
  ASSERT_EQ(
      run_gdrcheck({"node", "--root", testing::node_root("dgx-h100"), "--quiet", "--write-manifest", dir + "/m.json"})
          .exit_code,
      0);
  auto r = run_gdrcheck({"cluster", "--from", reports(), "--manifest", dir + "/m.json", "--json"});
  json j = json::parse(r.out);
  EXPECT_EQ(j["nodes"][0]["checks"]["manifest"], "OK");
  EXPECT_EQ(j["nodes"][6]["checks"]["manifest"], "CRITICAL");  // the slow NIC
  EXPECT_EQ(j["nodes"][6]["status"], "CRITICAL");
  write_file(dir, "bad.json", R"({"schema": "nope"})");
  auto bad = run_gdrcheck({"cluster", "--from", reports(), "--manifest", dir + "/bad.json"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find(dir + "/bad.json: "), std::string::npos) << bad.err;
}

TEST(ClusterCli, SaveKeepsEveryRawReportAndNeverOverwrites) {
  std::string save = testing::scratch_dir() + "/kept";
  auto r = run_gdrcheck({"cluster", "--from", reports(), "--save", save});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(save + "/gpu06.json"), slurp(reports() + "/gpu06.json"));
  EXPECT_EQ(slurp(save + "/gpu10.json"), slurp(reports() + "/gpu10.json"));  // invalid, kept as it came
  EXPECT_FALSE(std::filesystem::exists(save + "/gpu09.json"));               // nothing came back
  EXPECT_NE(r.err.find("saved 10 raw reports"), std::string::npos) << r.err;
  auto again = run_gdrcheck({"cluster", "--from", reports(), "--save", save});
  EXPECT_NE(again.err.find("gpu06.json: already exists; not overwritten"), std::string::npos) << again.err;
}

std::string recording_scontrol(const std::string& dir, const std::string& log) {
  std::ofstream s(dir + "/scontrol");
  s << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" << log << "'; done\n";
  s.close();
  ::chmod((dir + "/scontrol").c_str(), 0755);
  return dir + "/scontrol";
}

TEST(ClusterCli, DrainRunsScontrolWithArgumentVectors) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = recording_scontrol(dir, log);
  std::string from = healthy_dir(3);
  write_file(from, "gpu09.json", renamed_report(node_report_json("dgx-h100", {"acs-redirect"}), "gpu09"));
  auto r = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("Drained (Slurm):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NodeName=gpu09 State=DRAIN"), std::string::npos) << r.out;
  std::string argv = slurp(log);
  EXPECT_EQ(argv.rfind("update\nNodeName=gpu09\nState=DRAIN\nReason=gdrcheck: acs: ", 0), 0u) << argv;
  // Without --drain nothing runs.
  std::filesystem::remove(log);
  run_gdrcheck({"cluster", "--from", from, "--scontrol", scontrol});
  EXPECT_FALSE(std::filesystem::exists(log));
}

// Reports that claim a host list, ALL, an option or a shell command as
// their host, files named so, and a link planted in the directory: no
// scontrol runs for any of them, each is listed with the reason.
TEST(ClusterCli, DrainNeverActsOnMoreThanOnePlainNode) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = recording_scontrol(dir, log);
  std::string from = healthy_dir(3);
  std::string bad = renamed_report(node_report_json("dgx-h100", {"acs-redirect"}), "x");
  for (std::string claim : {"ALL", "gpu[00-99],login[1-2]", "-x", "a;rm -rf ~", "gpu01 State=RESUME"}) {
    nlohmann::json j = nlohmann::json::parse(bad);
    j["host"] = claim;
    write_file(from, "gpu2" + std::to_string(claim.size()) + ".json", j.dump());  // claims another host
    write_file(from, claim + ".json", j.dump());                                  // named after the claim
  }
  write_file(dir, "real.json", renamed_report(bad, "gpu30"));
  std::filesystem::create_symlink(dir + "/real.json", from + "/gpu30.json");
  auto r = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol, "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(std::filesystem::exists(log)) << slurp(log);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["drain"]["commands"].empty()) << j["drain"].dump();
  std::string out = j.dump();
  EXPECT_NE(out.find("report claims host 'ALL', was asked of 'gpu23'"), std::string::npos) << out;
  EXPECT_NE(out.find("/ALL.json: node name 'ALL': a Slurm keyword, not a node; not read"), std::string::npos) << out;
  EXPECT_NE(out.find("/gpu30.json: a link; not followed"), std::string::npos) << out;
}

TEST(ClusterCli, ClearErrors) {
  auto none = run_gdrcheck({"cluster"});
  EXPECT_EQ(none.exit_code, 64);
  EXPECT_NE(none.err.find("--from DIR"), std::string::npos);
  std::string missing = testing::scratch_dir() + "/nowhere";
  auto r = run_gdrcheck({"cluster", "--from", missing});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(missing + ": "), std::string::npos) << r.err;
  auto empty = run_gdrcheck({"cluster", "--from", testing::scratch_dir()});
  EXPECT_EQ(empty.exit_code, 3);
  EXPECT_NE(empty.out.find("no nodes to check"), std::string::npos) << empty.out;
}

}  // namespace
}  // namespace gdrcheck

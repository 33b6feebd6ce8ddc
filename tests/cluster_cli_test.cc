// `gdrcheck cluster --from DIR` end to end, on reports the real `gdrcheck
// node --json` wrote for different fixture nodes: text, JSON, exit codes,
// --threshold, --manifest, --save, --drain, and clear errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cluster/report_age.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "run_binary.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_report_json;
using testing::renamed_report;
using testing::run_gdrcheck;
using testing::slurp;
using testing::write_file;

// The report renamed, and written `age_s` ago (generated_at): only a fresh
// report is ever drained.
std::string fresh_report(const std::string& report, const std::string& host, std::int64_t age_s = 60) {
  json j = json::parse(renamed_report(report, host));
  auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  j["generated_at"] = format_utc_time(now.count() - age_s);
  return j.dump();
}

// The report as a gdrcheck without generated_at wrote it.
std::string undated_report(const std::string& report, const std::string& host) {
  json j = json::parse(renamed_report(report, host));
  j.erase("generated_at");
  return j.dump();
}

// Eight H100 nodes: five healthy, one without peermem, one slow NIC, one
// with a stray nccl.conf; plus an empty, a truncated and a foreign file.
std::string collected_reports() {
  std::string dir = testing::scratch_dir();
  for (int i = 1; i <= 5; ++i)
    write_file(dir, "gpu0" + std::to_string(i) + ".json",
               fresh_report(node_report_json("dgx-h100"), "gpu0" + std::to_string(i)));
  write_file(dir, "gpu06.json", fresh_report(node_report_json("dgx-h100", {"peermem-missing"}), "gpu06"));
  write_file(dir, "gpu07.json", fresh_report(node_report_json("dgx-h100", {"nic-slow"}), "gpu07"));
  write_file(dir, "gpu08.json", fresh_report(node_report_json("dgx-h100", {"stray-nccl-conf"}), "gpu08"));
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
               fresh_report(node_report_json("dgx-h100"), "n" + std::to_string(i)));
  return dir;
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
  EXPECT_NE(o.find("scontrol update NodeName=gpu06 State=DRAIN 'Reason=gdrcheck: nccl,peermem CRITICAL'"),
            std::string::npos)
      << o;
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

std::string scontrol_logging_args(const std::string& dir, const std::string& log) {
  std::ofstream s(dir + "/scontrol");
  s << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" << log << "'; done\n";
  s.close();
  ::chmod((dir + "/scontrol").c_str(), 0755);
  return dir + "/scontrol";
}

TEST(ClusterCli, DrainRunsScontrolWithArgumentVectors) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = scontrol_logging_args(dir, log);
  std::string from = healthy_dir(3);
  write_file(from, "gpu09.json", fresh_report(node_report_json("dgx-h100", {"acs-redirect"}), "gpu09"));
  auto r = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("Drained (Slurm):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NodeName=gpu09 State=DRAIN"), std::string::npos) << r.out;
  std::string argv = slurp(log);
  EXPECT_EQ(argv.rfind("update\nNodeName=gpu09\nState=DRAIN\nReason=gdrcheck: acs CRITICAL\n", 0), 0u) << argv;
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
  std::string scontrol = scontrol_logging_args(dir, log);
  std::string from = healthy_dir(3);
  std::string bad = fresh_report(node_report_json("dgx-h100", {"acs-redirect"}), "x");
  for (std::string claim : {"ALL", "gpu[00-99],login[1-2]", "-x", "a;rm -rf ~", "gpu01 State=RESUME"}) {
    nlohmann::json j = nlohmann::json::parse(bad);
    j["host"] = claim;
    write_file(from, "gpu2" + std::to_string(claim.size()) + ".json", j.dump());  // claims another host
    write_file(from, claim + ".json", j.dump());                                  // named after the claim
  }
  write_file(dir, "real.json", fresh_report(bad, "gpu30"));
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

// Launcher options with --from launch nothing, and the drain guards
// without --drain guard nothing: each is a usage error, nothing is read.
TEST(ClusterCli, OptionsThatDoNotGoTogetherAreUsageErrors) {
  std::string from = healthy_dir(2);
  for (std::vector<std::string> extra : {std::vector<std::string>{"-N", "2"},
                                         {"-w", "gpu01"},
                                         {"-p", "gpu"},
                                         {"--fanout", "4"},
                                         {"--timeout", "5"},
                                         {"--ssh-option", "A=B"},
                                         {"--gdrcheck", "/opt/g"},
                                         {"--node-env", "NCCL_X=1"},
                                         {"--slurm-dir", "/tmp"},
                                         {"-l", "root"},
                                         {"--connect-timeout", "3"},
                                         {"--max-drain", "3"},
                                         {"--dry-run"},
                                         {"--drain", "--max-age", "0"},
                                         {"--drain", "--max-age", "-5m"},
                                         {"--drain", "--max-age", "soon"},
                                         {"--drain", "--max-drain", "0"},
                                         {"--drain", "--max-drain", "101%"}}) {
    std::vector<std::string> args = {"cluster", "--from", from};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_gdrcheck(args);
    EXPECT_EQ(r.exit_code, 64) << extra[0] << " " << r.err;
    EXPECT_TRUE(r.out.empty()) << extra[0] << r.out;
    EXPECT_NE(r.err.find(extra[0] == "--drain"  ? extra[1]
                         : extra[0].size() == 2 ? ""
                                                : extra[0]),
              std::string::npos)
        << r.err;
  }
}

// A stand-in scontrol for --resume: `show` prints Slurm's one-line
// records, `update` appends its arguments to LOG.
std::string slurm_scontrol(const std::string& dir, const std::string& log, const std::string& show) {
  write_file(dir, "show.txt", show);
  std::ofstream s(dir + "/scontrol");
  s << "#!/bin/sh\nif [ \"$2\" = show ]; then cat '" << dir << "/show.txt'; exit 0; fi\necho \"$@\" >> '" << log
    << "'\n";
  s.close();
  ::chmod((dir + "/scontrol").c_str(), 0755);
  return dir + "/scontrol";
}

std::string critical_dir(int healthy, int critical, std::int64_t age_s = 60) {
  std::string dir = healthy_dir(healthy);
  for (int i = 0; i < critical; ++i)
    write_file(dir, "gpu" + std::to_string(10 + i) + ".json",
               fresh_report(node_report_json("dgx-h100", {"acs-redirect"}), "gpu" + std::to_string(10 + i), age_s));
  return dir;
}

// One wrong manifest value makes every node CRITICAL: past --max-drain
// nothing is drained, the output says why, the exit status is the verdict.
TEST(ClusterCli, MaxDrainRefusesWhatLooksClusterWide) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = scontrol_logging_args(dir, log);
  std::string from = critical_dir(20, 3);
  auto r = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(log)) << slurp(log);
  EXPECT_NE(r.out.find("Not drained: 3 nodes would be drained, more than --max-drain 5% (1 of 23): nothing drained; a "
                       "cluster-wide cause (a manifest, a driver roll-out) is likelier than 3 broken nodes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("acs  CRITICAL 3 nodes: gpu[10-12]"), std::string::npos) << r.out;
  auto j = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol, "--json"});
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["drain"]["ran"], false);
  EXPECT_EQ(doc["drain"]["max_drain_nodes"], 1);
  EXPECT_NE(doc["drain"]["refused"].get<std::string>().find("3 nodes would be drained"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(log));
  auto allowed = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol, "--max-drain", "3"});
  EXPECT_EQ(allowed.exit_code, 2);
  EXPECT_NE(allowed.out.find("Drained (Slurm):"), std::string::npos) << allowed.out;
  std::string ran = slurp(log);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), '\n'), 3 * 4) << ran;  // three commands of four arguments
}

// A week-old directory never drains today's nodes; it is still judged.
TEST(ClusterCli, OldReportsAreJudgedButNotDrained) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = scontrol_logging_args(dir, log);
  std::string from = critical_dir(3, 1, 8 * 86400);
  write_file(from, "gpu20.json", undated_report(node_report_json("dgx-h100", {"acs-redirect"}), "gpu20"));
  auto r = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol, "-v"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(log));
  EXPECT_NE(r.out.find("gpu10 (8 d): report is 8 d old (max-age 1h)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu20: report has no generated_at (written by an older gdrcheck)"), std::string::npos);
  EXPECT_NE(r.out.find("gpu10 CRITICAL 8 d   7/8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n0    OK       1 min 8/8"), std::string::npos) << r.out;
  json doc = json::parse(run_gdrcheck({"cluster", "--from", from, "--json"}).out);
  for (const auto& n : doc["nodes"]) {
    if (n["host"] == "gpu10") {
      EXPECT_GE(n["age_s"].get<long>(), 8 * 86400);
    } else if (n["host"] == "gpu20") {
      EXPECT_TRUE(n["generated_at"].is_null() && n["age_s"].is_null());
    } else if (n["host"] == "n0") {
      EXPECT_EQ(n["generated_at"].get<std::string>().size(), 20u);
    }
  }
  EXPECT_EQ(doc["drain"]["not_drained"].size(), 2u);
  auto week = run_gdrcheck({"cluster", "--from", from, "--drain", "--scontrol", scontrol, "--max-age", "9d"});
  EXPECT_EQ(slurp(log).rfind("update\nNodeName=gpu10\n", 0), 0u) << week.out;
}

TEST(ClusterCli, DryRunRunsNothing) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = scontrol_logging_args(dir, log);
  auto r = run_gdrcheck({"cluster", "--from", critical_dir(3, 1), "--drain", "--dry-run", "--scontrol", scontrol});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("Would drain (Slurm; --dry-run, nothing run):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NodeName=gpu10 State=DRAIN 'Reason=gdrcheck: acs CRITICAL' (report 1 min old)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(log));
}

// Only nodes that pass now and that Slurm shows drained by gdrcheck come
// back; one drained for its disk stays drained.
TEST(ClusterCli, ResumeOnlyWhatGdrcheckDrained) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string show =
      "NodeName=n0 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Reason=gdrcheck: acs CRITICAL "
      "[root@2026-12-03T17:00:00]\n"
      "NodeName=n1 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Reason=disk errors [admin@2026-12-03T17:00:00]\n"
      "NodeName=n2 Arch=x86_64 State=IDLE ThreadsPerCore=1\n";
  std::string scontrol = slurm_scontrol(dir, log, show);
  std::string from = healthy_dir(3);
  auto dry = run_gdrcheck({"cluster", "--from", from, "--resume", "--dry-run", "--scontrol", scontrol});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(
      dry.out.find("Would resume (Slurm; --dry-run, nothing run):\n  " + scontrol + " update NodeName=n0 State=RESUME"),
      std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("n1: OK, but drained in Slurm for 'disk errors', not by gdrcheck: not resumed"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(log));
  auto r = run_gdrcheck({"cluster", "--from", from, "--resume", "--scontrol", scontrol, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(log), "update NodeName=n0 State=RESUME\n");
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["resume"]["ran"], true);
  EXPECT_EQ(doc["resume"]["commands"].size(), 1u);
}

}  // namespace
}  // namespace gdrcheck

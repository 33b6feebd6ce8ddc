// Slurm drain and resume commands: argument vectors per CRITICAL node on
// a fresh report, the printed shell form, resuming only what gdrcheck
// drained, and running them through a stand-in scontrol that records its
// arguments.
#include "cluster/drain.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cluster_hostile_reports.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using testing::minimal_outcome;
using testing::minimal_report;
using testing::report_outcome;
using testing::slurp;

constexpr UnixSeconds kNow = 1796320046;  // 2026-12-03T17:47:26Z

DrainPolicy policy() {
  DrainPolicy p;
  p.now = kNow;
  return p;
}

// The outcome's report, written `age_s` before kNow.
NodeOutcome aged(NodeOutcome o, std::int64_t age_s) {
  nlohmann::json j = nlohmann::json::parse(o.raw);
  j["generated_at"] = format_utc_time(kNow - age_s);
  o.raw = j.dump();
  return o;
}

NodeOutcome fresh(NodeOutcome o) {
  return aged(std::move(o), 60);
}

std::vector<std::string> drained_names(const std::vector<Argv>& cmds) {
  std::vector<std::string> names;
  for (const auto& a : cmds) names.push_back(a.at(2));
  return names;
}

NodeOutcome critical(const std::string& addressed, const std::string& claimed) {
  return fresh(minimal_outcome(addressed, minimal_report(claimed, "CRITICAL", {{"peermem", "CRITICAL"}})));
}

ClusterModel cluster_with(const std::vector<NodeOutcome>& outcomes) {
  return build_cluster_model(outcomes, {});
}

// A stand-in scontrol: appends one line per argument (then "--") to LOG.
std::string recording_scontrol(const std::string& dir, const std::string& log, int exit_code = 0) {
  std::string path = dir + "/scontrol";
  std::ofstream out(path);
  out << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" << log << "'; done\necho -- >> '" << log
      << "'\nexit " << exit_code << "\n";
  out.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(Drain, OneCommandPerCriticalNode) {
  NodeOutcome gone;
  gone.host = "gpu09";
  gone.how = NodeOutcome::How::Unreachable;
  gone.reason = "ssh: connection refused";
  ClusterModel m = cluster_with({fresh(report_outcome("gpu01", "dgx-h100")),
                                 fresh(report_outcome("gpu02", "dgx-h100", {"peermem-missing"})),
                                 fresh(report_outcome("gpu03", "dgx-h100", {"nic-slow"})), gone});
  auto cmds = drain_commands(m, policy());
  ASSERT_EQ(cmds.size(), 1u);  // the WARNING and the UNKNOWN node are not drained
  const Argv& a = cmds[0];
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0], "scontrol");
  EXPECT_EQ(a[1], "update");
  EXPECT_EQ(a[2], "NodeName=gpu02");
  EXPECT_EQ(a[3], "State=DRAIN");
  EXPECT_EQ(a[4], "Reason=gdrcheck: nccl,peermem CRITICAL");  // without peermem NCCL cannot use GDR either
}

TEST(Drain, ShellFormQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_word("NodeName=gpu02"), "NodeName=gpu02");
  EXPECT_EQ(shell_word("Reason=gdrcheck: x"), "'Reason=gdrcheck: x'");
  EXPECT_EQ(shell_word("it's"), "'it'\"'\"'s'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_line({"scontrol", "update", "NodeName=a;rm -rf /"}), "scontrol update 'NodeName=a;rm -rf /'");
}

// Short and stable: the CRITICAL checks, sorted, whatever the findings
// say, so a re-run sets the same reason and `sinfo -R` groups by cause.
TEST(Drain, ReasonNamesTheCriticalChecksSorted) {
  ClusterNode n;
  n.host = "x";
  n.status = Status::Critical;
  n.checks = {{"iommu", Status::Critical}, {"acs", Status::Critical}, {"nic", Status::Warning}, {"gpu", Status::Ok}};
  n.problems = {{"iommu", "host", std::string(300, 'a') + "\nsecond line", "fix", Status::Critical}};
  EXPECT_EQ(drain_reason(n), "gdrcheck: acs,iommu CRITICAL");
  n.checks.clear();  // CRITICAL without a CRITICAL check
  EXPECT_EQ(drain_reason(n), "gdrcheck: node CRITICAL");
}

TEST(Drain, LongReasonsAreCutBetweenChecks) {
  ClusterNode n;
  n.status = Status::Critical;
  for (int i = 0; i < 20; ++i) n.checks[std::string(20, 'a' + i)] = Status::Critical;
  std::string r = drain_reason(n);
  EXPECT_LE(r.size(), kMaxDrainReasonBytes);
  EXPECT_EQ(r.rfind("gdrcheck: aaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbb,", 0), 0u) << r;
  EXPECT_NE(r.find(",+"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 9), " CRITICAL") << r;
  n.checks = {{"a\x1b[2J\nb", Status::Critical}};
  for (char c : drain_reason(n)) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
}

// Old evidence says nothing about the node now: a report older than
// --max-age, from the future, or without generated_at is judged and
// shown, never drained.
TEST(Drain, OnlyFreshReportsAreDrained) {
  NodeOutcome no_time = minimal_outcome("gpu04", minimal_report("gpu04", "CRITICAL", {{"peermem", "CRITICAL"}}));
  ClusterModel m =
      cluster_with({aged(critical("gpu01", "gpu01"), 8 * 86400), aged(critical("gpu02", "gpu02"), -600),
                    aged(critical("gpu03", "gpu03"), 3000), no_time, aged(critical("gpu05", "gpu05"), -60)});
  DrainPlan plan = drain_plan(m, policy());
  EXPECT_EQ(drained_names(plan.commands), (std::vector<std::string>{"NodeName=gpu03", "NodeName=gpu05"}));
  EXPECT_EQ(plan.hosts, (std::vector<std::string>{"gpu03", "gpu05"}));
  ASSERT_EQ(plan.not_drained.size(), 3u);
  EXPECT_EQ(plan.not_drained[0].host, "gpu01");
  EXPECT_EQ(plan.not_drained[0].why, "report is 8 d old (max-age 1h)");
  EXPECT_EQ(plan.not_drained[1].why, "report is from 10 min in the future (clock skew?)");
  EXPECT_EQ(plan.not_drained[2].why, "report has no generated_at (written by an older gdrcheck)");
  EXPECT_EQ(plan.refused[0], "gpu01: CRITICAL, not drained: report is 8 d old (max-age 1h)");
  EXPECT_EQ(m.nodes[0].status, Status::Critical);  // still judged
  DrainPolicy week = policy();
  week.max_age_s = 7 * 86400;
  week.max_age_text = "7d";
  EXPECT_EQ(drain_plan(m, week).refused[0], "gpu01: CRITICAL, not drained: report is 8 d old (max-age 7d)");
  EXPECT_TRUE(drain_commands(m, DrainPolicy{}).empty()) << "now = 1970: every report is from the future";
}

SlurmNodeState slurm(const std::string& name, const std::string& state, const std::string& reason) {
  SlurmNodeState s;
  s.name = name;
  s.state = state;
  s.drain = state.find("DRAIN") != std::string::npos;
  s.reason = reason;
  return s;
}

// Only a node that passes now, on a fresh report, and that Slurm shows
// drained by gdrcheck comes back; a node drained for a failing disk stays.
TEST(Resume, OnlyWhatGdrcheckDrainedAndNowPasses) {
  auto ok = [](const std::string& h) { return minimal_outcome(h, minimal_report(h, "OK")); };
  ClusterModel m = cluster_with({fresh(ok("gpu01")), fresh(ok("gpu02")), aged(ok("gpu03"), 86400), ok("gpu04"),
                                 critical("gpu05", "gpu05"), fresh(ok("gpu06")), fresh(ok("ALL")), fresh(ok("gpu07")),
                                 critical("gpu07", "gpu07")});
  EXPECT_EQ(resume_candidates(m), (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu04", "gpu06"}));
  EXPECT_EQ(slurm_show_command(resume_candidates(m), "scontrol"),
            (Argv{"scontrol", "-o", "show", "node", "gpu01,gpu02,gpu03,gpu04,gpu06"}));
  std::map<std::string, SlurmNodeState> states = {{"gpu01", slurm("gpu01", "IDLE+DRAIN", "gdrcheck: peermem CRITICAL")},
                                                  {"gpu02", slurm("gpu02", "IDLE+DRAIN", "disk errors")},
                                                  {"gpu03", slurm("gpu03", "IDLE+DRAIN", "gdrcheck: acs CRITICAL")},
                                                  {"gpu04", slurm("gpu04", "IDLE+DRAIN", "gdrcheck: acs CRITICAL")},
                                                  {"gpu05", slurm("gpu05", "IDLE+DRAIN", "gdrcheck: acs CRITICAL")},
                                                  {"gpu06", slurm("gpu06", "IDLE", "")},
                                                  {"gpu07", slurm("gpu07", "IDLE+DRAIN", "gdrcheck: acs CRITICAL")}};
  ResumePlan plan = resume_plan(m, states, policy());
  ASSERT_EQ(plan.commands.size(), 1u);
  EXPECT_EQ(plan.commands[0], (Argv{"scontrol", "update", "NodeName=gpu01", "State=RESUME"}));
  ASSERT_EQ(plan.others.size(), 1u);
  EXPECT_EQ(plan.others[0], "gpu02: OK, but drained in Slurm for 'disk errors', not by gdrcheck: not resumed");
  ASSERT_EQ(plan.not_resumed.size(), 2u);
  EXPECT_EQ(plan.not_resumed[0].why, "report is 1 d old (max-age 1h)");
  EXPECT_EQ(plan.not_resumed[1].why, "report has no generated_at (written by an older gdrcheck)");
  EXPECT_TRUE(resume_plan(m, {}, policy()).commands.empty()) << "Slurm said nothing: nothing resumed";
}

// A node named like a host list, a Slurm keyword, an option or with
// spaces, quotes or control bytes would drain other nodes: never drained,
// each listed for a person with the reason.
TEST(Drain, OnlyOnePlainNodeNameIsEverDrained) {
  std::vector<std::string> hostile = {"gpu[00-99],login[1-2]", "ALL",        "all",       "-x", "a b", "a=b", "'q'",
                                      "gpu01\nState=RESUME",   "gpu\x1b[2J", "a;rm -rf /"};
  std::vector<NodeOutcome> outcomes;
  for (const auto& h : hostile) outcomes.push_back(critical(h, h));
  outcomes.push_back(critical("gpu07", "gpu07"));
  DrainPlan plan = drain_plan(build_cluster_model(outcomes, {}), policy());
  EXPECT_EQ(drained_names(plan.commands), std::vector<std::string>{"NodeName=gpu07"});
  ASSERT_EQ(plan.refused.size(), hostile.size());
  EXPECT_EQ(plan.refused[0], "gpu[00-99],login[1-2]: CRITICAL, not drained: a host list, not one node name");
  EXPECT_EQ(plan.refused[1], "ALL: CRITICAL, not drained: a Slurm keyword, not a node");
  EXPECT_EQ(plan.refused[7].find('\n'), std::string::npos) << plan.refused[7];
  EXPECT_EQ(plan.refused[8].find('\x1b'), std::string::npos) << plan.refused[8];
}

// The name drained is the one addressed, never the one a report claims.
// From a launcher the verdict stands (the output came from the addressed
// node, reached by IP or alias) but nothing is drained under either name.
TEST(Drain, ALauncherReportClaimingAnotherHostIsJudgedButNotDrained) {
  ClusterModel m = build_cluster_model({critical("gpu07", "ALL"), critical("gpu08", "gpu[00-99]"),
                                        critical("gpu09", "gpu10"), critical("gpu11", "gpu11")},
                                       {});
  DrainPlan plan = drain_plan(m, policy());
  EXPECT_EQ(drained_names(plan.commands), std::vector<std::string>{"NodeName=gpu11"});
  EXPECT_EQ(m.nodes[0].status, Status::Critical);
  EXPECT_EQ(m.nodes[0].host, "gpu07");
  EXPECT_EQ(m.nodes[0].claimed_host, "ALL");
  ASSERT_EQ(plan.refused.size(), 3u);
  EXPECT_EQ(plan.refused[2],
            "gpu09: CRITICAL, not drained: its report names host 'gpu10'; check which node it is and drain it by "
            "hand");
}

// Under --from the file name is the only link between a report and a node:
// a file that names another host is not judged as this one.
TEST(Drain, AFileClaimingAnotherHostIsUnknownAndNotDrained) {
  ClusterOptions opt;
  opt.sources = {"/r/gpu07.json", "/r/gpu09.json", "/r/gpu11.json"};
  ClusterModel m =
      build_cluster_model({critical("gpu07", "ALL"), critical("gpu09", "gpu10"), critical("gpu11", "gpu11")}, opt);
  EXPECT_EQ(drained_names(drain_commands(m, policy())), std::vector<std::string>{"NodeName=gpu11"});
  EXPECT_EQ(m.nodes[0].status, Status::Unknown);
  EXPECT_EQ(m.nodes[0].how, NodeOutcome::How::WrongHost);
  EXPECT_EQ(m.nodes[0].reason, "/r/gpu07.json: report claims host 'ALL', was asked of 'gpu07'");
  EXPECT_EQ(m.nodes[1].reason, "/r/gpu09.json: report claims host 'gpu10', was asked of 'gpu09'");
}

// Two reports of one node drain it once: every count of drain commands is
// a count of distinct validated names.
TEST(Drain, EachNameIsDrainedOnce) {
  ClusterModel m = build_cluster_model({critical("gpu07", "gpu07"), critical("gpu07", "gpu07.example")}, {});
  EXPECT_EQ(drain_commands(m, policy()).size(), 1u);
}

TEST(Drain, RunsTheArgumentVectorsWithoutAShell) {
  std::string dir = testing::scratch_dir();
  std::string log = dir + "/argv.log";
  std::string scontrol = recording_scontrol(dir, log);
  std::vector<Argv> cmds = {{scontrol, "update", "NodeName=a;touch " + dir + "/pwned", "State=DRAIN",
                             "Reason=gdrcheck: peermem: it's $(gone)"}};
  auto results = run_drain(cmds);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].succeeded()) << results[0].describe();
  EXPECT_EQ(slurp(log),
            "update\nNodeName=a;touch " + dir + "/pwned\nState=DRAIN\nReason=gdrcheck: peermem: it's $(gone)\n--\n");
  EXPECT_NE(::access((dir + "/pwned").c_str(), F_OK), 0);
}

TEST(Drain, AFailingScontrolIsReported) {
  std::string dir = testing::scratch_dir();
  auto results = run_drain({{recording_scontrol(dir, dir + "/log", 1), "update"}, {dir + "/missing-scontrol"}});
  EXPECT_FALSE(results[0].succeeded());
  EXPECT_EQ(results[0].exit_code, 1);
  EXPECT_EQ(results[1].end, ProcessResult::End::NotStarted);
}

}  // namespace
}  // namespace gdrcheck

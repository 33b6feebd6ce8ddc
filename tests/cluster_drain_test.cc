// Slurm drain commands: argument vectors per CRITICAL node, the printed
// shell form, and running them through a stand-in scontrol that records
// its arguments.
#include "cluster/drain.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cluster_hostile_reports.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::minimal_outcome;
using testing::minimal_report;
using testing::report_outcome;

std::vector<std::string> drained_names(const std::vector<Argv>& cmds) {
  std::vector<std::string> names;
  for (const auto& a : cmds) names.push_back(a.at(2));
  return names;
}

NodeOutcome critical(const std::string& addressed, const std::string& claimed) {
  return minimal_outcome(addressed, minimal_report(claimed, "CRITICAL", {{"peermem", "CRITICAL"}}));
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

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Drain, OneCommandPerCriticalNode) {
  NodeOutcome gone;
  gone.host = "gpu09";
  gone.how = NodeOutcome::How::Unreachable;
  gone.reason = "ssh: connection refused";
  ClusterModel m =
      cluster_with({report_outcome("gpu01", "dgx-h100"), report_outcome("gpu02", "dgx-h100", {"peermem-missing"}),
                    report_outcome("gpu03", "dgx-h100", {"nic-slow"}), gone});
  auto cmds = drain_commands(m);
  ASSERT_EQ(cmds.size(), 1u);  // the WARNING and the UNKNOWN node are not drained
  const Argv& a = cmds[0];
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0], "scontrol");
  EXPECT_EQ(a[1], "update");
  EXPECT_EQ(a[2], "NodeName=gpu02");
  EXPECT_EQ(a[3], "State=DRAIN");
  EXPECT_EQ(a[4].rfind("Reason=gdrcheck: peermem: ", 0), 0u) << a[4];
  EXPECT_LE(a[4].size(), std::string("Reason=").size() + 160);
}

TEST(Drain, ShellFormQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_word("NodeName=gpu02"), "NodeName=gpu02");
  EXPECT_EQ(shell_word("Reason=gdrcheck: x"), "'Reason=gdrcheck: x'");
  EXPECT_EQ(shell_word("it's"), "'it'\"'\"'s'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_line({"scontrol", "update", "NodeName=a;rm -rf /"}), "scontrol update 'NodeName=a;rm -rf /'");
}

TEST(Drain, ReasonIsShortAndOneLine) {
  ClusterNode n;
  n.host = "x";
  n.how = NodeOutcome::How::Report;
  n.status = Status::Critical;
  n.problems = {{"acs", "0000:17:02.0", std::string(300, 'a') + "\nsecond line", "fix", Status::Critical},
                {"iommu", "host", "translated", "fix", Status::Critical}};
  std::string r = drain_reason(n);
  EXPECT_LE(r.size(), 160u);
  EXPECT_EQ(r.find('\n'), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 13), "... (+1 more)") << r;
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
  DrainPlan plan = drain_plan(build_cluster_model(outcomes, {}));
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
  DrainPlan plan = drain_plan(m);
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
  EXPECT_EQ(drained_names(drain_commands(m)), std::vector<std::string>{"NodeName=gpu11"});
  EXPECT_EQ(m.nodes[0].status, Status::Unknown);
  EXPECT_EQ(m.nodes[0].how, NodeOutcome::How::WrongHost);
  EXPECT_EQ(m.nodes[0].reason, "/r/gpu07.json: report claims host 'ALL', was asked of 'gpu07'");
  EXPECT_EQ(m.nodes[1].reason, "/r/gpu09.json: report claims host 'gpu10', was asked of 'gpu09'");
}

// Two reports of one node drain it once: every count of drain commands is
// a count of distinct validated names.
TEST(Drain, EachNameIsDrainedOnce) {
  ClusterModel m = build_cluster_model({critical("gpu07", "gpu07"), critical("gpu07", "gpu07.example")}, {});
  EXPECT_EQ(drain_commands(m).size(), 1u);
}

TEST(Drain, ReasonHasNoControlBytesAndNoCutCharacter) {
  ClusterNode n;
  n.host = "x";
  n.status = Status::Critical;
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
  n.problems = {{"acs", "s", "a\x1b[2J\tb\x7f" + accents, "fix", Status::Critical}};
  std::string r = drain_reason(n);
  EXPECT_LE(r.size(), 160u);
  for (char c : r) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << r;
  EXPECT_EQ(r.rfind("gdrcheck: acs: a [2J b ", 0), 0u) << r;
  std::string body = r.substr(0, r.size() - 3);  // before "..."
  EXPECT_EQ(r.substr(r.size() - 3), "...");
  EXPECT_NE(static_cast<unsigned char>(body.back()), 0xc3) << "a character cut in two";
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

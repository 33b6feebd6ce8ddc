// Slurm drain commands: argument vectors per CRITICAL node, the printed
// shell form, and running them through a stand-in scontrol that records
// its arguments.
#include "cluster/drain.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cluster_reports.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::report_outcome;

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

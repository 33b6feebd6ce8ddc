#include "cluster/remote_end.h"

#include <gtest/gtest.h>

#include "cluster/launcher.h"

namespace gdrcheck::launch {
namespace {

constexpr std::chrono::seconds kTimeout{30};

RemoteEnd exited(int code, std::string out = "", std::string err = "") {
  RemoteEnd e;
  e.exit_code = code;
  e.out = std::move(out);
  e.err = std::move(err);
  return e;
}

TEST(RemoteEnd, VerdictCodesWithOutputAreReports) {
  for (int code : {0, 1, 2, 3}) {
    NodeOutcome o = classify("gpu01", exited(code, "{\"schema\":\"gdrcheck.node/1\"}"), kTimeout);
    EXPECT_EQ(o.how, NodeOutcome::How::Report) << code;
    EXPECT_EQ(o.exit_code, code);
  }
  NodeOutcome empty = classify("gpu01", exited(0, " \n", "motd\n"), kTimeout);
  EXPECT_EQ(empty.how, NodeOutcome::How::NotAReport);
  EXPECT_EQ(empty.reason, "exit status 0 but no output: motd");
}

TEST(RemoteEnd, SshFailuresAndSignalsAreToldApart) {
  NodeOutcome refused =
      classify("gpu02", exited(255, "", "ssh: connect to host gpu02 port 22: Connection refused\n"), kTimeout);
  EXPECT_EQ(refused.how, NodeOutcome::How::Unreachable);
  EXPECT_EQ(refused.reason, "ssh: connect to host gpu02 port 22: Connection refused");
  EXPECT_EQ(classify("gpu02", exited(255), kTimeout).how, NodeOutcome::How::Crashed);  // a signal: ssh says nothing
  NodeOutcome killed = classify("gpu02", exited(137), kTimeout);
  EXPECT_EQ(killed.how, NodeOutcome::How::Crashed);
  EXPECT_EQ(killed.reason, "killed by SIGKILL (exit status 137)");
  EXPECT_EQ(classify("gpu02", exited(127, "", "gdrcheck: not found\n"), kTimeout).reason,
            "exit status 127 (command not found on the host): gdrcheck: not found");
}

TEST(RemoteEnd, CutReportsAndTimeoutsAreNeverReports) {
  RemoteEnd big = exited(0, std::string(100, '{'));
  big.out_cut = true;
  big.out_dropped = 12;
  NodeOutcome cut = classify("gpu03", big, kTimeout);
  EXPECT_EQ(cut.how, NodeOutcome::How::NotAReport);
  EXPECT_NE(cut.reason.find("report larger than 8 MiB (12 more bytes dropped"), std::string::npos) << cut.reason;
  RemoteEnd late = exited(-1, "{\"partial\":");
  late.kind = RemoteEnd::Kind::TimedOut;
  NodeOutcome timed_out = classify("gpu03", late, kTimeout);
  EXPECT_EQ(timed_out.how, NodeOutcome::How::TimedOut);
  EXPECT_EQ(timed_out.reason, "no complete answer within 30 s");
  EXPECT_EQ(timed_out.raw, "{\"partial\":");  // kept for --save
}

TEST(RemoteEnd, BoundedTextHelpers) {
  EXPECT_EQ(tail_of("a\n\nb\nc\nd\n", 2), "c | d");
  EXPECT_EQ(with_stderr("failed", ""), "failed");
  std::string head;
  std::size_t dropped = 0;
  EXPECT_FALSE(append_head(head, "abc", 4, dropped));
  EXPECT_TRUE(append_head(head, "def", 4, dropped));
  EXPECT_EQ(head, "abcd");
  EXPECT_GE(dropped, 2u);
  std::string tail = "0123456789";
  trim_tail(tail, 3);
  EXPECT_EQ(tail, "789");
  EXPECT_EQ(lines_of(std::string(10000, 'x') + "\r\nend\r\n")[0].size(), kMaxDiagnosticLine);
}

}  // namespace
}  // namespace gdrcheck::launch

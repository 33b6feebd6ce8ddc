#include "host/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "host/child_groups.h"
#include "recorded_fixtures.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using std::chrono::milliseconds;
using testing::slurp;

ProcessSpec shell(const std::string& script) {
  return ProcessSpec::command({"/bin/sh", "-c", script});
}

// Alive and not a zombie (an orphan is reaped by whoever adopts it, which
// may take a moment or, in a container, never happen).
bool running(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

TEST(ProcessTest, CapturesStdoutStderrAndExitCode) {
  ProcessResult r = run_process(shell("echo out; echo err >&2; exit 3"));
  EXPECT_EQ(r.end, ProcessResult::End::Exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.describe(), "exit status 3");
}

TEST(ProcessTest, MergesStderrIntoStdoutInOrder) {
  ProcessSpec spec = shell("echo one; echo two >&2; echo three");
  spec.merge_stderr = true;
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.out, "one\ntwo\nthree\n");
  EXPECT_EQ(r.err, "");
}

TEST(ProcessTest, ArgumentsAreNeverInterpretedByAShell) {
  ProcessResult r = run_process(ProcessSpec::command({"printf", "%s|%s", "a;rm -rf /", "$(id) `x` \"q\""}));
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.out, "a;rm -rf /|$(id) `x` \"q\"");
}

TEST(ProcessTest, FeedsStdin) {
  ProcessSpec spec = ProcessSpec::command({"cat"});
  spec.stdin_text = std::string(300000, 'x') + "end";  // more than a pipe holds
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.out, spec.stdin_text);
}

TEST(ProcessTest, SetsAndRemovesEnvironmentVariables) {
  ::setenv("GDRCHECK_PROCESS_TEST_KEEP", "kept", 1);
  ::setenv("GDRCHECK_PROCESS_TEST_DROP", "dropped", 1);
  ::setenv("GDRCHECK_PROCESS_TEST_OVER", "old", 1);
  ProcessSpec spec = shell(
      "echo \"$GDRCHECK_PROCESS_TEST_KEEP ${GDRCHECK_PROCESS_TEST_DROP:-unset} $GDRCHECK_PROCESS_TEST_OVER "
      "$NCCL_DEBUG\"");
  spec.env_set = {{"GDRCHECK_PROCESS_TEST_OVER", "new"}, {"NCCL_DEBUG", "INFO"}};
  spec.env_unset = {"GDRCHECK_PROCESS_TEST_DROP"};
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.out, "kept unset new INFO\n");
}

TEST(ProcessTest, MissingProgramIsNotStartedWithTheReason) {
  ProcessResult r = run_process(ProcessSpec::command({"gdrcheck-no-such-program"}));
  EXPECT_EQ(r.end, ProcessResult::End::NotStarted);
  EXPECT_EQ(r.start_error, "gdrcheck-no-such-program: not found in PATH");
  EXPECT_EQ(r.describe(), "could not start: gdrcheck-no-such-program: not found in PATH");
  ProcessResult abs = run_process(ProcessSpec::command({"/nonexistent/ib_write_bw"}));
  EXPECT_EQ(abs.end, ProcessResult::End::NotStarted);
  EXPECT_NE(abs.start_error.find("no such executable"), std::string::npos);
  EXPECT_EQ(run_process(ProcessSpec()).end, ProcessResult::End::NotStarted);
}

TEST(ProcessTest, ReportsTheSignalThatEndedTheChild) {
  ProcessResult r = run_process(shell("kill -SEGV $$"));
  EXPECT_EQ(r.end, ProcessResult::End::Signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(ProcessTest, TimeoutEndsTheWholeProcessGroup) {
  std::string pidfile = testing::scratch_dir() + "/grandchild.pid";
  ProcessSpec spec = shell("sleep 60 & echo $! > " + pidfile + "; echo started; wait");
  spec.timeout = milliseconds(300);
  spec.kill_grace = milliseconds(300);
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.end, ProcessResult::End::TimedOut);
  EXPECT_EQ(r.out, "started\n");  // what came before the timeout is kept
  EXPECT_LT(r.elapsed.count(), 10000);
  EXPECT_NE(r.describe().find("timed out after"), std::string::npos);
  pid_t grandchild = std::stoi(slurp(pidfile));
  usleep(100000);
  EXPECT_FALSE(running(grandchild)) << "the background sleep outlived the timeout";
}

TEST(ProcessTest, ATermIgnoringChildIsKilledAfterTheGrace) {
  ProcessSpec spec = shell("trap '' TERM; while :; do sleep 0.05; done");
  spec.timeout = milliseconds(200);
  spec.kill_grace = milliseconds(200);
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.end, ProcessResult::End::TimedOut);
  EXPECT_EQ(r.signal, SIGKILL);
}

TEST(ProcessTest, ABackgroundChildHoldingStdoutDoesNotHangTheRun) {
  ProcessSpec spec = shell("sleep 60 & echo hi");
  spec.kill_grace = milliseconds(200);
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_LT(r.elapsed.count(), 10000);
}

TEST(ProcessTest, OutputBeyondTheLimitIsCountedAsTruncated) {
  ProcessSpec spec = shell("head -c 100000 /dev/zero");
  spec.output_limit = 1000;
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.out_truncated);
  EXPECT_FALSE(r.err_truncated);
}

TEST(ProcessTest, StderrKeepsItsOwnLimitHeadOrTail) {
  ProcessSpec spec = shell("i=0; while [ $i -lt 2000 ]; do echo line$i >&2; i=$((i+1)); done; echo last >&2");
  spec.error_limit = 64;
  spec.keep_error_tail = true;
  ProcessResult tail = run_process(spec);
  EXPECT_TRUE(tail.succeeded());
  EXPECT_EQ(tail.err.size(), 64u);
  EXPECT_EQ(tail.err.substr(tail.err.size() - 5), "last\n");  // the words that end a run are kept
  EXPECT_TRUE(tail.err_truncated);
  EXPECT_GT(tail.err_dropped, 10000u);
  EXPECT_EQ(tail.out, "");

  spec.keep_error_tail = false;
  ProcessResult head = run_process(spec);
  EXPECT_EQ(head.err.rfind("line0\nline1\n", 0), 0u);
  EXPECT_EQ(head.err.size(), 64u);
  EXPECT_EQ(head.err_dropped, tail.err_dropped);
}

TEST(ProcessTest, AFloodingChildIsStoppedAtTheOutputLimit) {
  ProcessSpec spec = ProcessSpec::command({"cat", "/dev/zero"});
  spec.output_limit = 1 << 20;
  spec.stop_at_output_limit = true;
  spec.kill_grace = milliseconds(200);
  ProcessResult r = run_process(spec);  // no timeout: only the limit ends it
  EXPECT_TRUE(r.stopped_at_output_limit);
  EXPECT_TRUE(r.out_truncated);
  EXPECT_EQ(r.out.size(), std::size_t{1} << 20);
  EXPECT_LE(r.out.capacity(), std::size_t{2} << 20);
  EXPECT_GT(r.out_dropped, 0u);
  EXPECT_EQ(r.end, ProcessResult::End::Signaled);
  EXPECT_LT(r.elapsed.count(), 10000);
}

TEST(ProcessTest, SinksGetEveryByteAndNothingIsKept) {
  ProcessSpec spec = shell("head -c 300000 /dev/zero; echo err >&2");
  std::size_t out_bytes = 0;
  std::string err;
  spec.output_limit = 10;
  spec.stdout_sink = [&](std::string_view data) { out_bytes += data.size(); };
  spec.stderr_sink = [&](std::string_view data) { err.append(data); };
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(out_bytes, 300000u);
  EXPECT_EQ(err, "err\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(r.out_truncated);
}

TEST(ProcessTest, TheChildGetsOnlyTheStandardStreams) {
  int leaked = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaked, 3);
  ProcessResult r =
      run_process(shell("test -e /proc/self/fd/" + std::to_string(leaked) + " && echo open || echo closed"));
  ::close(leaked);
  EXPECT_EQ(r.out, "closed\n");
}

// A child that ignores SIGTERM and leaves a grandchild (which ignores it
// too) holding stdout: the timeout still ends the run, and the grandchild.
TEST(ProcessTest, ATermIgnoringChildWithAGrandchildHoldingStdoutDoesNotHang) {
  std::string pidfile = testing::scratch_dir() + "/grandchild.pid";
  ProcessSpec spec = shell("trap '' TERM; (trap '' TERM; while :; do sleep 0.05; done) & echo $! > " + pidfile +
                           "; echo started; while :; do sleep 0.05; done");
  spec.timeout = milliseconds(300);
  spec.kill_grace = milliseconds(300);
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.end, ProcessResult::End::TimedOut);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(r.elapsed.count(), 5000);
  pid_t grandchild = std::stoi(slurp(pidfile));
  usleep(100000);
  EXPECT_FALSE(running(grandchild)) << "the grandchild outlived the run";
}

// A descendant in its own session is out of reach of the group kill; once
// the child has ended, its output is abandoned after the grace period.
TEST(ProcessTest, ADescendantInAnotherSessionHoldingStdoutIsAbandoned) {
  if (find_in_path("setsid").empty()) GTEST_SKIP() << "no setsid";
  std::string pidfile = testing::scratch_dir() + "/escaped.pid";
  ProcessSpec spec = shell("setsid sh -c 'echo $$ > " + pidfile + "; trap \"\" TERM; exec sleep 30' & echo hi");
  spec.kill_grace = milliseconds(300);
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_LT(r.elapsed.count(), 5000);
  std::string pid = slurp(pidfile);
  if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
}

TEST(ProcessTest, WritesOutputFileAsItArrivesAndNeverOverwrites) {
  std::string dir = testing::scratch_dir();
  ProcessSpec spec = shell("echo line1; echo diag >&2; echo line2");
  spec.merge_stderr = true;
  spec.output_file = dir + "/raw.log";
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(slurp(spec.output_file), "line1\ndiag\nline2\n");

  ProcessSpec again = shell("echo replaced");
  again.output_file = spec.output_file;
  ProcessResult refused = run_process(again);
  EXPECT_EQ(refused.end, ProcessResult::End::NotStarted);
  EXPECT_NE(refused.start_error.find("already exists; not overwritten"), std::string::npos);
  EXPECT_EQ(slurp(spec.output_file), "line1\ndiag\nline2\n");
}

TEST(ProcessTest, RunsInTheWorkingDirectory) {
  std::string dir = testing::scratch_dir();
  ProcessSpec spec = ProcessSpec::command({"pwd"});
  spec.working_dir = dir;
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.out, dir + "\n");
  spec.working_dir = dir + "/missing";
  EXPECT_EQ(run_process(spec).end, ProcessResult::End::NotStarted);
}

TEST(ProcessTest, RunsManyWithBoundedParallelismInOrder) {
  std::vector<ProcessSpec> specs;
  for (int i = 0; i < 6; ++i) specs.push_back(shell("sleep 0.2; echo " + std::to_string(i)));
  std::vector<std::size_t> seen;
  auto start = std::chrono::steady_clock::now();
  auto results = run_processes(specs, 2, [&](std::size_t i, const ProcessResult& r) {
    EXPECT_EQ(r.out, std::to_string(i) + "\n");
    seen.push_back(i);
  });
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(results.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(results[i].out, std::to_string(i) + "\n");
  EXPECT_EQ(seen.size(), 6u);
  // Three waves of 0.2 s at most two at a time: never faster than 0.6 s.
  EXPECT_GE(took, milliseconds(550));
  EXPECT_TRUE(run_processes({}, 4).empty());
}

// A stop (host/termination.h) reaches exactly the groups that are running.
TEST(ProcessTest, RecordsTheChildGroupOnlyWhileItRuns) {
  std::size_t before = child_group_count();
  std::thread run([] { run_process(shell("sleep 1")); });
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    seen = child_group_count() == before + 1 && child_groups_alive();
    std::this_thread::sleep_for(milliseconds(10));
  }
  run.join();
  EXPECT_TRUE(seen);
  EXPECT_EQ(child_group_count(), before);
}

TEST(ProcessTest, FindsProgramsInPath) {
  EXPECT_EQ(find_in_path("sh").empty(), false);
  EXPECT_EQ(find_in_path("/bin/sh"), "/bin/sh");
  EXPECT_EQ(find_in_path("gdrcheck-no-such-program"), "");
  std::string plain = testing::scratch_dir() + "/plain";
  std::ofstream(plain) << "not a program";
  EXPECT_EQ(find_in_path(plain), "");  // not executable
}

}  // namespace
}  // namespace gdrcheck

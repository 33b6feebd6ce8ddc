// The launchers' argument vectors and remote quoting, and how each way a
// host can end is classified — through stand-in ssh/pdsh/srun programs that
// print what the real ones print (tests/cluster_hosts_test.cc and
// tests/slurm_cluster_test.cc run the real engines).
#include "cluster/launcher.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "host/process.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using How = NodeOutcome::How;
using Args = std::vector<std::string>;

bool contains_run(const Args& argv, const Args& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

// A stand-in program: a shell script at DIR/NAME.
std::string stand_in(const std::string& name, const std::string& body) {
  static const std::string dir = testing::scratch_dir();
  std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(RemoteQuoteTest, EveryWordSurvivesAPosixShellUnchanged) {
  const Args words = {
      "plain", "with space", "it's", "'", "", "$(id) `id` \"q\" \\n ; rm -rf / *", "/opt/my tools/it's/gdrcheck"};
  std::string line = "printf '%s\\n'";
  for (const auto& w : words) line += " " + remote_shell_quote(w);
  ProcessResult r = run_process(ProcessSpec::command({"/bin/sh", "-c", line}));
  ASSERT_TRUE(r.succeeded()) << r.describe() << r.err;
  std::string expected;
  for (const auto& w : words) expected += w + "\n";
  EXPECT_EQ(r.out, expected);
}

TEST(RemoteQuoteTest, CommandLineQuotesProgramAndArguments) {
  LaunchOptions opts;
  opts.remote_gdrcheck = "/opt/it's here/gdrcheck";
  EXPECT_EQ(remote_command_line(opts), "'/opt/it'\\''s here/gdrcheck' 'node' '--json'");
}

TEST(SshArgvTest, BatchModeTimeoutsOptionsAndDoubleDashBeforeTheHost) {
  LaunchOptions opts;
  opts.connect_timeout = std::chrono::seconds(7);
  opts.ssh_options = {"StrictHostKeyChecking=accept-new", "IdentityFile=/k"};
  opts.ssh_user = "ops";
  Args argv = ssh_argv("-oProxyCommand=evil", opts);
  EXPECT_EQ(argv.front(), "ssh");
  EXPECT_TRUE(contains_run(argv, {"-o", "BatchMode=yes"}));
  EXPECT_TRUE(contains_run(argv, {"-o", "ConnectTimeout=7"}));
  EXPECT_TRUE(contains_run(argv, {"-o", "StrictHostKeyChecking=accept-new", "-o", "IdentityFile=/k"}));
  EXPECT_TRUE(contains_run(argv, {"-l", "ops"}));
  // The host comes after "--", so a name that looks like an option is a name.
  EXPECT_TRUE(contains_run(argv, {"--", "-oProxyCommand=evil", "'gdrcheck' 'node' '--json'"}));
  EXPECT_EQ(argv.size(), 17u);
}

TEST(SshArgvTest, HostWithShellCharactersIsOneArgument) {
  LaunchOptions opts;
  Args argv = ssh_argv("a;rm -rf /", opts);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "a;rm -rf /"), 1);
}

TEST(PdshArgvTest, HostListFanoutTimeoutsAndQuotedCommand) {
  LaunchOptions opts;
  opts.launcher = Launcher::Pdsh;
  opts.fanout = 4;
  opts.timeout = std::chrono::seconds(30);
  opts.connect_timeout = std::chrono::seconds(5);
  opts.remote_gdrcheck = "/opt/x y/gdrcheck";
  Args argv = pdsh_argv("gpu[01-04]", opts);
  EXPECT_EQ(argv, (Args{"pdsh", "-R", "ssh", "-w", "gpu[01-04]", "-f", "4", "-t", "5", "-u", "30", "--",
                        "'/opt/x y/gdrcheck'", "'node'", "'--json'"}));
}

TEST(PdshArgvTest, SshArgumentsPutDoubleDashBeforeTheHost) {
  LaunchOptions opts;
  opts.ssh_options = {"IdentityFile=/k"};
  auto env = pdsh_env(opts);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].first, "PDSH_SSH_ARGS");
  EXPECT_EQ(env[0].second, "-T -a -x -oBatchMode=yes -oIdentityFile=/k -- %h");
  opts.ssh_user = "ops";
  EXPECT_EQ(pdsh_env(opts)[0].second, "-T -a -x -oBatchMode=yes -oIdentityFile=/k -l%u -- %h");
}

TEST(SrunArgvTest, OneTaskPerNodeOutputPerNodeAndNoShell) {
  LaunchOptions opts;
  opts.launcher = Launcher::Slurm;
  opts.slurm.nodes = "2";
  opts.slurm.nodelist = "gpu[1-2]";
  opts.slurm.partition = "debug";
  opts.slurm.extra_args = {"--account=ops"};
  opts.remote_gdrcheck = "/opt/x y/gdrcheck";
  Args argv = srun_argv(opts, "/shared/d");
  EXPECT_EQ(argv, (Args{"srun", "--job-name=gdrcheck", "--ntasks-per-node=1", "--nodes=2", "--nodelist=gpu[1-2]",
                        "--partition=debug", "--kill-on-bad-exit=0", "--input=none", "--output=/shared/d/%t.out",
                        "--error=/shared/d/%t.err", "--verbose", "--account=ops", "--", "/opt/x y/gdrcheck", "node",
                        "--json"}));
}

TEST(SrunArgvTest, CurrentAllocationAddsNoNodeOptions) {
  LaunchOptions opts;
  opts.launcher = Launcher::Slurm;
  Args argv = srun_argv(opts, "/d");
  for (const auto& a : argv) {
    EXPECT_NE(a.rfind("--nodes", 0), 0u) << a;
    EXPECT_NE(a.rfind("--nodelist", 0), 0u) << a;
  }
}

TEST(LaunchOptionsTest, UsageErrorsAreNamed) {
  LaunchOptions opts;
  EXPECT_EQ(launch_options_error(opts), "no hosts given");
  opts.hosts = {"a"};
  EXPECT_EQ(launch_options_error(opts), "");
  opts.ssh_options = {"BatchMode"};
  EXPECT_NE(launch_options_error(opts).find("not Key=Value"), std::string::npos);
  opts.ssh_options = {"IdentityFile=/my keys/k"};
  EXPECT_EQ(launch_options_error(opts), "");
  opts.launcher = Launcher::Pdsh;
  EXPECT_NE(launch_options_error(opts).find("white space"), std::string::npos);
  opts.ssh_options.clear();
  opts.timeout = std::chrono::seconds(0);
  EXPECT_NE(launch_options_error(opts).find("timeout"), std::string::npos);
  EXPECT_THROW(run_on_hosts(opts), std::invalid_argument);
  opts.timeout = std::chrono::seconds(5);
  opts.launcher = Launcher::Slurm;
  opts.slurm.nodelist = "gpu[3-1]";
  EXPECT_NE(launch_options_error(opts).find("reversed range"), std::string::npos);
}

// ssh stand-in: the host name picks the behaviour (the last argument is the
// remote command, the one before it the host).
const char* kFakeSsh = R"(
for a; do prev=$host; host=$cmd; cmd=$a; done
case "$host" in
  ok) echo '{"schema":"gdrcheck.node/1"}'; exit 2 ;;
  refused) echo "ssh: connect to host refused port 22: Connection refused" >&2; exit 255 ;;
  denied) echo "root@denied: Permission denied (publickey)." >&2; exit 255 ;;
  signal) echo partial; exit 255 ;;
  segv) echo "Segmentation fault" >&2; exit 139 ;;
  missing) echo "sh: 1: /opt/gdrcheck: not found" >&2; exit 127 ;;
  silent) exit 0 ;;
  usage) echo "gdrcheck: unknown option" >&2; exit 64 ;;
  hang) sleep 30 ;;
esac
)";

TEST(SshLauncherTest, EveryWayAHostEndsIsClassified) {
  LaunchOptions opts;
  opts.ssh_program = stand_in("ssh", kFakeSsh);
  opts.hosts = {"ok", "refused", "denied", "signal", "segv", "missing", "silent", "usage", "hang", ""};
  // Ten stand-ins start at once: on a loaded 2-core machine one that
  // answers at once may still need over a second to start. "hang" sleeps 30 s.
  opts.timeout = std::chrono::seconds(5);
  opts.fanout = 10;
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), opts.hosts.size());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].host, opts.hosts[i]);
  EXPECT_EQ(out[0].how, How::Report);
  EXPECT_EQ(out[0].exit_code, 2);
  EXPECT_EQ(out[0].raw, "{\"schema\":\"gdrcheck.node/1\"}\n");
  EXPECT_EQ(out[1].how, How::Unreachable);
  EXPECT_EQ(out[1].reason, "ssh: connect to host refused port 22: Connection refused");
  EXPECT_EQ(out[2].how, How::Unreachable);
  EXPECT_NE(out[2].reason.find("Permission denied"), std::string::npos);
  EXPECT_EQ(out[3].how, How::Crashed);
  EXPECT_EQ(out[3].raw, "partial\n");  // nothing that came back is dropped
  EXPECT_EQ(out[4].how, How::Crashed);
  EXPECT_NE(out[4].reason.find("SIGSEGV"), std::string::npos) << out[4].reason;
  EXPECT_EQ(out[5].how, How::Failed);
  EXPECT_NE(out[5].reason.find("not found"), std::string::npos);
  EXPECT_EQ(out[6].how, How::NotAReport);
  EXPECT_EQ(out[7].how, How::Failed);
  EXPECT_EQ(out[7].exit_code, 64);
  EXPECT_NE(out[7].reason.find("unknown option"), std::string::npos);
  EXPECT_EQ(out[8].how, How::TimedOut);
  EXPECT_NE(out[8].reason.find("5 s"), std::string::npos) << out[8].reason;
  EXPECT_EQ(out[9].how, How::Unreachable);
}

TEST(SshLauncherTest, MissingSshFailsEveryHostWithTheReason) {
  LaunchOptions opts;
  opts.ssh_program = "/nonexistent/ssh";
  opts.hosts = {"a", "b"};
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& o : out) {
    EXPECT_EQ(o.how, How::Failed);
    EXPECT_NE(o.reason.find("/nonexistent/ssh"), std::string::npos) << o.reason;
  }
}

// pdsh stand-in printing what pdsh 2.34 prints for each case.
const char* kFakePdsh = R"(
echo 'n1: {"schema":'
echo 'n1:  "gdrcheck.node/1"}'
echo 'n3: garbage'
echo 'n5: partial'
echo 'n1: a warning on stderr' >&2
echo 'n2: ssh: connect to host n2 port 22: Connection refused' >&2
echo 'pdsh@login: n2: ssh exited with exit code 255' >&2
echo 'pdsh@login: n3: ssh exited with exit code 1' >&2
echo 'pdsh@login: n4: command timeout' >&2
echo 'pdsh@login: n5: ssh exited with exit code 139' >&2
echo 'n6: ' 
echo 'pdsh@login: n1: ssh exited with exit code 2' >&2
exit 1
)";

TEST(PdshLauncherTest, PerHostOutputAndStatusFromPdshLines) {
  LaunchOptions opts;
  opts.launcher = Launcher::Pdsh;
  opts.pdsh_program = stand_in("pdsh", kFakePdsh);
  opts.hosts = {"n[1-6]", "a;rm -rf /", "^/etc/passwd"};
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[0].host, "n1");
  EXPECT_EQ(out[0].how, How::Report);
  EXPECT_EQ(out[0].exit_code, 2);
  EXPECT_EQ(out[0].raw, "{\"schema\":\n \"gdrcheck.node/1\"}\n");
  EXPECT_EQ(out[1].how, How::Unreachable);
  EXPECT_NE(out[1].reason.find("Connection refused"), std::string::npos) << out[1].reason;
  EXPECT_EQ(out[2].how, How::Report);  // exit 1 = WARNING; the caller validates "garbage"
  EXPECT_EQ(out[2].raw, "garbage\n");
  EXPECT_EQ(out[3].how, How::TimedOut);
  EXPECT_EQ(out[4].how, How::Crashed);
  EXPECT_EQ(out[4].raw, "partial\n");
  EXPECT_EQ(out[5].how, How::NotAReport);  // only an empty line, exit 0
  EXPECT_EQ(out[6].host, "a;rm -rf /");
  EXPECT_EQ(out[6].how, How::Unreachable);
  EXPECT_EQ(out[7].host, "^/etc/passwd");
  EXPECT_EQ(out[7].how, How::Unreachable);
}

// pdsh 2.34 can die by SIGSEGV as it exits (its watchdog reads the host
// table being freed). What it printed before still says what it can.
const char* kPdshDyingAtExit = R"(
echo 'n1: {"schema":'
echo 'n1:  "gdrcheck.node/1"}'
echo 'n3: {"schema":'
echo 'pdsh@login: n2: ssh exited with exit code 2' >&2
echo 'n2: {}'
kill -SEGV $$
)";

TEST(PdshLauncherTest, HostsThatEndedBeforePdshDiedKeepTheirOutput) {
  LaunchOptions opts;
  opts.launcher = Launcher::Pdsh;
  opts.pdsh_program = stand_in("pdsh-segv", kPdshDyingAtExit);
  opts.hosts = {"n[1-4]"};
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 4u);
  // No status line: the output goes to validation, the exit status is unknown.
  EXPECT_EQ(out[0].how, How::Report);
  EXPECT_EQ(out[0].exit_code, -1);
  EXPECT_EQ(out[0].raw, "{\"schema\":\n \"gdrcheck.node/1\"}\n");
  EXPECT_NE(out[0].reason.find("SIGSEGV"), std::string::npos) << out[0].reason;
  // pdsh's own line on a host stands.
  EXPECT_EQ(out[1].how, How::Report);
  EXPECT_EQ(out[1].exit_code, 2);
  // A cut report is handed on too; no prefix of a report validates.
  EXPECT_EQ(out[2].how, How::Report);
  EXPECT_EQ(out[2].raw, "{\"schema\":\n");
  // Nothing came back: pdsh's death is all there is to say.
  EXPECT_EQ(out[3].how, How::Failed);
  EXPECT_NE(out[3].reason.find("SIGSEGV"), std::string::npos) << out[3].reason;
}

// srun stand-in: writes the per-task files srun's --output/--error name
// and the lines srun --verbose prints (Slurm 22.05).
const char* kFakeSrun = R"sh(
for a; do case "$a" in --output=*) out=${a#--output=} ;; esac; done
dir=${out%/%t.out}
echo '{"schema":"gdrcheck.node/1"}' > "$dir/0.out"; : > "$dir/0.err"
echo 'half' > "$dir/1.out"; echo 'core dumped' > "$dir/1.err"
echo '{"schema":"gdrcheck.node/1"}' > "$dir/2.out"; : > "$dir/2.err"
echo "srun: jobid 7: nodes(4):\`c[1-4]', cpu counts: 1(x4)" >&2
echo 'srun: launching StepId=7.0 on host c1, 1 tasks: 0' >&2
echo 'srun: launching StepId=7.0 on host c2, 1 tasks: 1' >&2
echo 'srun: launching StepId=7.0 on host c3, 1 tasks: 2' >&2
echo 'srun: launching StepId=7.0 on host c5, 1 tasks: 3' >&2
echo 'srun: launch/slurm: _task_finish: c1: task 0: Completed' >&2
echo 'srun: error: c2: task 1: Segmentation fault (core dumped)' >&2
echo 'srun: error: c3: task 2: Exited with exit code 2' >&2
echo 'srun: error: Node failure on c4' >&2
exit 1
)sh";

TEST(SlurmLauncherTest, PerNodeFilesAndSrunTaskLines) {
  LaunchOptions opts;
  opts.launcher = Launcher::Slurm;
  opts.srun_program = stand_in("srun", kFakeSrun);
  opts.slurm.nodelist = "c[1-4]";
  opts.scratch_dir = testing::scratch_dir();
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].host, "c1");
  EXPECT_EQ(out[0].how, How::Report);
  EXPECT_EQ(out[0].exit_code, 0);
  EXPECT_EQ(out[1].how, How::Crashed);
  EXPECT_EQ(out[1].raw, "half\n");
  EXPECT_NE(out[1].reason.find("Segmentation fault"), std::string::npos);
  EXPECT_EQ(out[2].how, How::Report);
  EXPECT_EQ(out[2].exit_code, 2);
  EXPECT_EQ(out[3].host, "c4");
  EXPECT_EQ(out[3].how, How::Unreachable);
  EXPECT_NE(out[3].reason.find("Node failure on c4"), std::string::npos) << out[3].reason;
  // Launched but no file: the directory was not shared with that node.
  EXPECT_EQ(out[4].host, "c5");
  EXPECT_EQ(out[4].how, How::Unreachable);
  EXPECT_NE(out[4].reason.find("share"), std::string::npos) << out[4].reason;
  // The per-node files are gone again.
  ProcessResult ls = run_process(ProcessSpec::command({"find", opts.scratch_dir, "-name", ".gdrcheck-srun-*"}));
  EXPECT_EQ(ls.out, "");
}

TEST(SlurmLauncherTest, SrunThatCannotAllocateIsOneFailedOutcome) {
  LaunchOptions opts;
  opts.launcher = Launcher::Slurm;
  opts.srun_program = stand_in("srun-noalloc", "echo 'srun: error: Unable to allocate resources' >&2; exit 1\n");
  opts.slurm.nodes = "2";
  opts.scratch_dir = testing::scratch_dir();
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].how, How::Failed);
  EXPECT_NE(out[0].reason.find("Unable to allocate resources"), std::string::npos) << out[0].reason;
}

// A host that prints without end is stopped at the report limit, not
// waited for, and its cut output is never taken for a report.
TEST(SshLauncherTest, AFloodingHostIsAnUnknownNodeAtTheReportLimit) {
  LaunchOptions opts;
  opts.ssh_program = stand_in("ssh-flood", R"(
for a; do host=$cmd; cmd=$a; done
case "$host" in
  flood) exec cat /dev/zero ;;
  noisy) head -c 1000000 /dev/zero | tr '\0' x >&2; echo >&2; echo "root@noisy: Permission denied (publickey)." >&2; exit 255 ;;
  ok) echo '{"schema":"gdrcheck.node/1"}' ;;
esac
)");
  opts.hosts = {"flood", "noisy", "ok"};
  opts.timeout = std::chrono::seconds(60);
  auto start = std::chrono::steady_clock::now();
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].how, How::NotAReport);
  EXPECT_EQ(out[0].reason.rfind("report larger than 8 MiB", 0), 0u) << out[0].reason;
  EXPECT_EQ(out[0].raw.size(), kNodeReportLimit);
  // A megabyte of stderr before ssh's own words: the words are kept.
  EXPECT_EQ(out[1].how, How::Unreachable);
  EXPECT_NE(out[1].reason.find("Permission denied"), std::string::npos) << out[1].reason.substr(0, 200);
  EXPECT_LT(out[1].reason.size(), 10000u);
  EXPECT_EQ(out[2].how, How::Report);
}

// pdsh: one host's endless line and another's endless lines each cost that
// host its report, not the others theirs.
TEST(PdshLauncherTest, AFloodingHostIsCutWithoutTouchingTheOthers) {
  LaunchOptions opts;
  opts.launcher = Launcher::Pdsh;
  opts.pdsh_program = stand_in("pdsh-flood", R"(
echo 'n1: {"schema":"gdrcheck.node/1"}'
printf 'n2: '; head -c 9000000 /dev/zero | tr '\0' x; echo
yes 'n3: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy' | head -n 120000
head -c 200000 /dev/zero | tr '\0' e >&2
echo >&2
echo 'pdsh@login: n1: ssh exited with exit code 99999999999999' >&2
echo 'n4: {"schema":"gdrcheck.node/1"}'
exit 1
)");
  opts.hosts = {"n[1-4]"};
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].how, How::Failed);  // an absurd exit code is a failure, not a crash of gdrcheck
  EXPECT_EQ(out[1].how, How::NotAReport);
  EXPECT_EQ(out[1].reason.rfind("report larger than 8 MiB", 0), 0u) << out[1].reason;
  EXPECT_LE(out[1].raw.size(), kNodeReportLimit);
  EXPECT_EQ(out[2].how, How::NotAReport);
  EXPECT_EQ(out[2].raw.size(), kNodeReportLimit);
  EXPECT_EQ(out[3].how, How::Report);
  EXPECT_EQ(out[3].raw, "{\"schema\":\"gdrcheck.node/1\"}\n");
}

// srun stand-in for hostile per-task files: a link to a file elsewhere, a
// FIFO nobody writes, and a report over the limit. It also records the
// mode of the directory it was given.
const char* kHostileSrun = R"sh(
for a; do case "$a" in --output=*) out=${a#--output=} ;; esac; done
dir=${out%/%t.out}
stat -c %a "$dir" > "$GDRCHECK_TEST_SRUN_MODE"
ln -s "$GDRCHECK_TEST_SRUN_SECRET" "$dir/0.out"
mkfifo "$dir/1.out"
head -c 9000000 /dev/zero > "$dir/2.out"
head -c 200000 /dev/zero | tr '\0' e > "$dir/3.err"; printf '\nthe last words\n' >> "$dir/3.err"; : > "$dir/3.out"
for t in 0 1 2 3; do echo "srun: launching StepId=7.0 on host c$t, 1 tasks: $t" >&2; done
for t in 0 1 2 3; do echo "srun: launch/slurm: _task_finish: c$t: task $t: Completed" >&2; done
)sh";

TEST(SlurmLauncherTest, TaskFilesAreReadWithoutLinksFifosOrUnboundedSize) {
  std::string scratch = testing::scratch_dir();
  std::ofstream(scratch + "/secret") << "{\"schema\":\"not mine\"}";
  ::setenv("GDRCHECK_TEST_SRUN_SECRET", (scratch + "/secret").c_str(), 1);
  ::setenv("GDRCHECK_TEST_SRUN_MODE", (scratch + "/mode").c_str(), 1);
  ::umask(0);  // the directory must be private whatever the umask
  LaunchOptions opts;
  opts.launcher = Launcher::Slurm;
  opts.srun_program = stand_in("srun-hostile", kHostileSrun);
  opts.slurm.nodelist = "c[0-3]";
  opts.scratch_dir = scratch;
  opts.timeout = std::chrono::seconds(20);
  auto start = std::chrono::steady_clock::now();
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ::umask(022);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));  // the FIFO did not block
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].how, How::NotAReport);
  EXPECT_NE(out[0].reason.find("0.out: is a symbolic link; not followed"), std::string::npos) << out[0].reason;
  EXPECT_EQ(out[0].raw, "");
  EXPECT_EQ(out[1].how, How::NotAReport);
  EXPECT_NE(out[1].reason.find("1.out: not a regular file"), std::string::npos) << out[1].reason;
  EXPECT_EQ(out[2].how, How::NotAReport);
  EXPECT_EQ(out[2].reason.rfind("report larger than 8 MiB", 0), 0u) << out[2].reason;
  EXPECT_EQ(out[2].raw.size(), kNodeReportLimit);
  EXPECT_EQ(out[3].how, How::NotAReport);  // exit 0, no output: the tail of stderr says why
  EXPECT_NE(out[3].reason.find("the last words"), std::string::npos);
  std::ifstream mode(scratch + "/mode");
  std::string m;
  mode >> m;
  EXPECT_EQ(m, "700");
  ProcessResult ls = run_process(ProcessSpec::command({"find", scratch, "-name", ".gdrcheck-srun-*"}));
  EXPECT_EQ(ls.out, "");  // removed, links and FIFOs included
  std::ifstream secret(scratch + "/secret");
  EXPECT_TRUE(secret.good()) << "the link's target was removed";
}

}  // namespace
}  // namespace gdrcheck

#include "host/termination.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host/process.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::slurp;

// The processes of a group that are not zombies, from /proc/*/stat.
std::vector<pid_t> live_members(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = ::opendir("/proc");
  if (!proc) return members;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::string stat = slurp(std::string("/proc/") + e->d_name + "/stat");
    std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 2));
    char state = 0;
    long ppid = 0, group = 0;
    if (!(fields >> state >> ppid >> group)) continue;
    if (group == pgid && state != 'Z') members.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return members;
}

// True once the group has `count` live members: the shell writes the group
// file before it starts its last sleep, so a test that counted at once
// raced the shell (seen on a slow machine).
bool group_reaches_within(pid_t pgid, std::size_t count, milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (live_members(pgid).size() != count) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return true;
}

bool group_ends_within(pid_t pgid, milliseconds limit) {
  return group_reaches_within(pgid, 0, limit);
}

// The wait status of `pid` once it ends, or nullopt after `limit` (the
// process is then killed, so a failing test leaves nothing behind).
std::optional<int> wait_status(pid_t pid, milliseconds limit) {
  auto deadline = Clock::now() + limit;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    if (Clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
}

bool still_running(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == 0;
}

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/gdrcheck-termination-XXXXXX";
    path_ = ::mkdtemp(name) ? name : "";
  }
  // Flat: the tests make no subdirectories.
  ~TempDir() {
    if (path_.empty()) return;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") ::unlink((path_ + "/" + name).c_str());
      }
      ::closedir(d);
    }
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Kills the groups a test started when it ends, even after a failed
// assertion: a test of the stop must not leave programs behind itself.
class KillAtEnd {
 public:
  ~KillAtEnd() {
    for (pid_t c : children_) {
      int status = 0;
      // Only a child not yet reaped: its pid cannot have been reused.
      if (::waitpid(c, &status, WNOHANG) == 0) {
        ::kill(c, SIGKILL);
        ::waitpid(c, &status, 0);
      }
    }
    for (pid_t g : groups_) {
      if (g > 1) ::kill(-g, SIGKILL);
    }
  }
  void add(pid_t group) { groups_.push_back(group); }
  void add_child(pid_t pid) {
    if (pid > 0) children_.push_back(pid);
  }

 private:
  std::vector<pid_t> children_, groups_;
};

// Waits for the group id a script wrote to `file` (written under a
// temporary name and renamed, so it is never read half-written).
pid_t group_from(const std::string& file, milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    std::string text = slurp(file);
    if (!text.empty()) return static_cast<pid_t>(std::atol(text.c_str()));
    std::this_thread::sleep_for(milliseconds(20));
  }
  return -1;
}

// `sh -c` text that records its group in `file`, then waits on a
// grandchild in the same group; with `ignore_term` the shell and both
// sleeps ignore SIGTERM, as a launcher stuck in cleanup would.
std::string sleeper_script(const std::string& file, bool ignore_term) {
  return std::string(ignore_term ? "trap '' TERM; " : "") + "sleep 300 & echo $$ > '" + file + ".tmp'; mv '" + file +
         ".tmp' '" + file + "'; sleep 300";
}

// A forked copy of this test that plays gdrcheck: installs the handlers
// (after `before_install`), then runs `body`; its stderr goes to a file.
struct Stopper {
  pid_t pid = -1;
  std::string stderr_file;

  std::string messages() const { return slurp(stderr_file); }
};

// A child models gdrcheck started from a terminal: the signals at their
// defaults, whatever the test process inherited (a shell starts background
// jobs with SIGINT ignored, and an ignored signal stays ignored by design).
void default_signal_dispositions() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
}

Stopper start_stopper(const TempDir& dir, const std::function<void()>& body,
                      const std::function<void()>& before_install = {}) {
  Stopper s;
  s.stderr_file = dir.path() + "/stderr";
  s.pid = ::fork();
  if (s.pid == 0) {
    int err = ::open(s.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    default_signal_dispositions();
    if (before_install) before_install();
    install_termination_handlers();
    ::close(::open((dir.path() + "/ready").c_str(), O_WRONLY | O_CREAT, 0600));
    body();
    ::_exit(99);  // the body returned: no stop happened
  }
  return s;
}

Stopper start_sleeper(const TempDir& dir, bool ignore_term = false, const std::function<void()>& before_install = {}) {
  std::string file = dir.path() + "/group";
  return start_stopper(
      dir,
      [file, ignore_term] {
        run_process(ProcessSpec::command({"/bin/sh", "-c", sleeper_script(file, ignore_term)}));
      },
      before_install);
}

struct SignalCase {
  int sig;
  int exit_code;
  const char* name;
};

class TerminationSignalTest : public ::testing::TestWithParam<SignalCase> {};

TEST_P(TerminationSignalTest, EndsTheChildGroupAndExitsWith128PlusTheSignal) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  Stopper s = start_sleeper(dir);
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  ASSERT_GT(s.pid, 0);
  pid_t group = group_from(dir.path() + "/group", seconds(10));
  cleanup.add(group);
  ASSERT_GT(group, 1);
  ASSERT_TRUE(group_reaches_within(group, 3u, seconds(10))) << live_members(group).size();  // sh and its two sleeps

  ::kill(s.pid, GetParam().sig);
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value()) << "did not exit after " << GetParam().name;
  ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), GetParam().exit_code);
  EXPECT_TRUE(group_ends_within(group, seconds(5))) << live_members(group).size() << " left";
  EXPECT_NE(s.messages().find(std::string("stopping on ") + GetParam().name), std::string::npos) << s.messages();
}

INSTANTIATE_TEST_SUITE_P(Signals, TerminationSignalTest,
                         ::testing::Values(SignalCase{SIGINT, 130, "SIGINT"}, SignalCase{SIGTERM, 143, "SIGTERM"},
                                           SignalCase{SIGHUP, 129, "SIGHUP"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(TerminationTest, ProgramsThatIgnoreSigtermAreKilledAfterTheGrace) {
  TempDir dir;
  Stopper s = start_sleeper(dir, /*ignore_term=*/true);
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  pid_t group = group_from(dir.path() + "/group", seconds(10));
  cleanup.add(group);
  ASSERT_GT(group, 1);

  auto sent = Clock::now();
  ::kill(s.pid, SIGTERM);
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_TRUE(still_running(s.pid)) << "no grace was given";
  EXPECT_FALSE(live_members(group).empty());

  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  EXPECT_GE(Clock::now() - sent, kTerminationGrace - milliseconds(100));
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 143);
  EXPECT_TRUE(group_ends_within(group, seconds(5)));
}

TEST(TerminationTest, ASecondSignalDuringTheGraceKillsAtOnce) {
  TempDir dir;
  Stopper s = start_sleeper(dir, /*ignore_term=*/true);
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  pid_t group = group_from(dir.path() + "/group", seconds(10));
  cleanup.add(group);
  ASSERT_GT(group, 1);

  ::kill(s.pid, SIGINT);
  std::this_thread::sleep_for(milliseconds(500));
  ASSERT_TRUE(still_running(s.pid));
  auto second = Clock::now();
  ::kill(s.pid, SIGTERM);
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  EXPECT_LT(Clock::now() - second, milliseconds(1000)) << "waited for the grace";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 143);  // the signal that ended it
  EXPECT_TRUE(group_ends_within(group, seconds(5)));
  EXPECT_NE(s.messages().find("SIGTERM again"), std::string::npos) << s.messages();
}

TEST(TerminationTest, TheSameSignalDeliveredTwiceAtOnceIsOneRequest) {
  // timeout(1) signals the program and then its process group.
  TempDir dir;
  Stopper s = start_sleeper(dir, /*ignore_term=*/true);
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  pid_t group = group_from(dir.path() + "/group", seconds(10));
  cleanup.add(group);
  ASSERT_GT(group, 1);

  ::kill(s.pid, SIGTERM);
  ::kill(s.pid, SIGTERM);
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_TRUE(still_running(s.pid)) << "the repeat cut the grace short";
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 143);
  EXPECT_TRUE(group_ends_within(group, seconds(5)));
}

TEST(TerminationTest, ASignalIgnoredAtStartStaysIgnored) {
  // nohup: the operator asked for the run to survive the terminal.
  TempDir dir;
  Stopper s = start_sleeper(dir, false, [] { ::signal(SIGHUP, SIG_IGN); });
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  pid_t group = group_from(dir.path() + "/group", seconds(10));
  cleanup.add(group);
  ASSERT_GT(group, 1);
  ASSERT_TRUE(group_reaches_within(group, 3u, seconds(10))) << live_members(group).size();

  ::kill(s.pid, SIGHUP);
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_TRUE(still_running(s.pid));
  EXPECT_EQ(live_members(group).size(), 3u);

  ::kill(s.pid, SIGTERM);
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 143);
  EXPECT_TRUE(group_ends_within(group, seconds(5)));
}

TEST(TerminationTest, EveryGroupOfParallelRunsIsEnded) {
  // Several children at once, each supervised by its own thread: the
  // signal lands on any of them.
  TempDir dir;
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) files.push_back(dir.path() + "/group" + std::to_string(i));
  Stopper s = start_stopper(dir, [&files] {
    std::vector<ProcessSpec> specs;
    for (const auto& f : files) specs.push_back(ProcessSpec::command({"/bin/sh", "-c", sleeper_script(f, false)}));
    run_processes(specs, specs.size());
  });
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  std::vector<pid_t> groups;
  for (const auto& f : files) {
    groups.push_back(group_from(f, seconds(10)));
    cleanup.add(groups.back());
  }
  for (pid_t g : groups) ASSERT_GT(g, 1);

  ::kill(s.pid, SIGTERM);
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 143);
  for (pid_t g : groups) {
    EXPECT_TRUE(group_ends_within(g, seconds(5))) << "group " << g;
  }
}

TEST(TerminationTest, WithoutChildrenItExitsAtOnce) {
  TempDir dir;
  Stopper s = start_stopper(dir, [] {
    for (;;) ::pause();
  });
  KillAtEnd cleanup;
  cleanup.add_child(s.pid);
  auto deadline = Clock::now() + seconds(10);
  while (::access((dir.path() + "/ready").c_str(), F_OK) != 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(10));
  auto sent = Clock::now();
  ::kill(s.pid, SIGINT);
  std::optional<int> status = wait_status(s.pid, seconds(5));
  ASSERT_TRUE(status.has_value());
  EXPECT_LT(Clock::now() - sent, kTerminationGrace);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 130);
}

TEST(TerminationTest, AForkedCopyIsEndedByTheSignalAsWithoutTheHandlers) {
  // run_isolated forks copies of gdrcheck that inherit the handlers but
  // start no programs: a signal must end them, not leave them waiting.
  TempDir dir;
  Stopper s = start_stopper(dir, [] {
    pid_t copy = ::fork();
    if (copy == 0) {
      ::alarm(10);  // should the signal not end it, it still ends
      for (;;) ::pause();
    }
    ::usleep(100 * 1000);
    ::kill(copy, SIGINT);
    int status = 0;
    ::waitpid(copy, &status, 0);
    ::_exit(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? 0 : 1);
  });
  std::optional<int> status = wait_status(s.pid, seconds(10));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

// --- through the gdrcheck binary ---------------------------------------------

TEST(TerminationCliTest, SigtermToClusterOverSshEndsEverySsh) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  // A stand-in ssh that records its group and hangs, as ssh to a host
  // that never answers does.
  std::string ssh = dir.path() + "/ssh";
  {
    std::ofstream out(ssh);
    out << "#!/bin/sh\nsleep 300 &\necho $$ > \"" << dir.path() << "/ssh.$$.tmp\"\nmv \"" << dir.path()
        << "/ssh.$$.tmp\" \"" << dir.path() << "/ssh.$$\"\nwait\n";
  }
  ASSERT_EQ(::chmod(ssh.c_str(), 0755), 0);

  std::string path = "PATH=" + dir.path() + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
  std::vector<std::string> args = {GDRCHECK_BINARY, "cluster", "--ssh", "h1,h2"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {path.data(), nullptr};
  std::string err_file = dir.path() + "/stderr";

  auto started = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = ::open("/dev/null", O_WRONLY);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
    default_signal_dispositions();
    ::execve(argv[0], argv.data(), envp);
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  KillAtEnd cleanup;
  cleanup.add_child(pid);

  // Both stand-ins running, and a second gone by.
  std::vector<pid_t> groups;
  for (int host = 0; host < 2; ++host) {
    pid_t g = -1;
    auto deadline = Clock::now() + seconds(15);
    while (g <= 1 && Clock::now() < deadline) {
      DIR* d = ::opendir(dir.path().c_str());
      while (dirent* e = d ? ::readdir(d) : nullptr) {
        std::string name = e->d_name;
        if (name.rfind("ssh.", 0) != 0 || name.find(".tmp") != std::string::npos) continue;
        pid_t candidate = static_cast<pid_t>(std::atol(name.c_str() + 4));
        if (std::find(groups.begin(), groups.end(), candidate) == groups.end()) g = candidate;
      }
      if (d) ::closedir(d);
      if (g <= 1) std::this_thread::sleep_for(milliseconds(20));
    }
    ASSERT_GT(g, 1) << "the stand-in ssh did not start: " << slurp(err_file);
    groups.push_back(g);
    cleanup.add(g);
  }
  std::this_thread::sleep_until(started + seconds(1));

  ::kill(pid, SIGTERM);
  std::optional<int> status = wait_status(pid, seconds(10));
  ASSERT_TRUE(status.has_value()) << "gdrcheck did not exit after SIGTERM";
  ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 143) << slurp(err_file);
  for (pid_t g : groups) {
    EXPECT_TRUE(group_ends_within(g, seconds(5))) << "a stand-in ssh survived (group " << g << ")";
  }
}

}  // namespace
}  // namespace gdrcheck

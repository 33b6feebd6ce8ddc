#include "host/termination.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "host/child_groups.h"

namespace gdrcheck {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free &&
                  std::atomic<pid_t>::is_always_lock_free,
              "read and written from a signal handler");

// A signal this soon after the first is the same request delivered twice,
// not an operator insisting: timeout(1) signals the program and then its
// whole process group, and a closed terminal's SIGHUP can come from the
// kernel and from the shell.
constexpr long long kRepeatWindowMs = 250;

// The signal that started the stop (0: none yet), and when (0: not yet
// recorded).
std::atomic<int> first_signal{0};
std::atomic<long long> first_signal_at_ms{0};
// The process that installed the handlers: a copy forked from it
// (run_isolated) inherits them but has no children of its own to end.
std::atomic<pid_t> owner{0};

const char* caught_signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return "a signal";
}

// Direct to the descriptor: stdio locks and buffers are not safe here.
void say(const char* a, const char* b = "", const char* c = "") {
  for (const char* text : {"gdrcheck: ", a, b, c, "\n"}) {
    ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
  }
}

long long monotonic_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void pause_briefly() {
  timespec step{0, 20 * 1000 * 1000};
  ::nanosleep(&step, nullptr);
}

// Gives the groups up to `grace` to end after their SIGTERM.
void wait_for_groups(std::chrono::milliseconds grace) {
  long long deadline = monotonic_ms() + grace.count();
  while (child_groups_alive() && monotonic_ms() < deadline) pause_briefly();
}

[[noreturn]] void kill_groups_and_exit(int sig) {
  signal_child_groups(SIGKILL);
  ::_exit(128 + sig);
}

// A forked copy (run_isolated's child) ends as it would have without the
// handler: by the signal.
void act_as_default(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void on_termination_signal(int sig) {
  int saved_errno = errno;  // for the interrupted code, on the paths that return
  if (::getpid() != owner.load()) {
    act_as_default(sig);
    errno = saved_errno;
    return;
  }
  long long now = monotonic_ms();
  int none = 0;
  if (!first_signal.compare_exchange_strong(none, sig)) {
    long long first_at = first_signal_at_ms.load();
    if (first_at == 0 || now - first_at < kRepeatWindowMs) {
      errno = saved_errno;  // the first handler goes on
      return;
    }
    say(caught_signal_name(sig), " again: killing the programs it started now");
    kill_groups_and_exit(sig);
  }
  first_signal_at_ms.store(now);
  // From here no group is forgotten, even one whose leader a thread reaps
  // meanwhile: the final SIGKILL reaches what that leader left behind.
  freeze_child_groups();
  if (child_group_count() > 0) {
    say("stopping on ", caught_signal_name(sig),
        ": ending the programs it started (a second signal kills them at once)");
  } else {
    say("stopping on ", caught_signal_name(sig));
  }
  signal_child_groups(SIGTERM);
  wait_for_groups(kTerminationGrace);
  kill_groups_and_exit(sig);
}

// A thread that finishes main while the handler runs on another must not
// exit with its own status (or before the children are ended).
void wait_if_stopping_at_exit() {
  if (termination_requested() && ::getpid() == owner.load()) await_termination();
}

}  // namespace

void install_termination_handlers() {
  owner.store(::getpid());
  static bool hooked = std::atexit(wait_if_stopping_at_exit) == 0;
  (void)hooked;
  for (int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction act {};
    act.sa_handler = on_termination_signal;
    // Nothing blocked while the handler runs (SA_NODEFER, empty mask): a
    // second signal during the grace must interrupt it, on this thread too.
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_NODEFER;
    ::sigaction(sig, &act, nullptr);
  }
}

bool termination_requested() {
  return first_signal.load() != 0;
}

void await_termination() {
  long long deadline = monotonic_ms() + kTerminationGrace.count() + 1000;
  while (monotonic_ms() < deadline) pause_briefly();
  int sig = first_signal.load();
  kill_groups_and_exit(sig != 0 ? sig : SIGTERM);
}

}  // namespace gdrcheck

#include "host/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

namespace gdrcheck {
namespace {

// The child's exit status when `work` threw: not 0 (finished), not 1 (what
// sanitizers exit with after a fault).
constexpr int kThrewExitCode = 86;

void silence_child_output() {
  int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

// The pipe a refusal travels back through: the child writes one message
// (the file's length in 4 bytes, the file, the problem) and exits; the
// parent reads it once the child has ended.
struct RefusalPipe {
  int read_end = -1;
  int write_end = -1;
  RefusalPipe() {
    int fds[2];
    // Non-blocking: a child never waits on its parent to read.
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
    read_end = fds[0];
    write_end = fds[1];
  }
  ~RefusalPipe() {
    close_write_end();
    if (read_end >= 0) ::close(read_end);
  }
  RefusalPipe(const RefusalPipe&) = delete;
  RefusalPipe& operator=(const RefusalPipe&) = delete;
  void close_write_end() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
};

void send_refusal(int fd, const InputError& e) {
  if (fd < 0 || 4 + e.file().size() + e.problem().size() > kMaxReturnedInputError) return;
  auto length = static_cast<std::uint32_t>(e.file().size());
  std::string message(reinterpret_cast<const char*>(&length), 4);
  message += e.file();
  message += e.problem();
  // One write of less than PIPE_BUF bytes: it is whole or not there.
  if (::write(fd, message.data(), message.size()) < 0) {
  }
}

std::optional<InputError> receive_refusal(int fd) {
  if (fd < 0) return std::nullopt;
  char buffer[kMaxReturnedInputError + 1];
  ssize_t n;
  do n = ::read(fd, buffer, sizeof buffer);
  while (n < 0 && errno == EINTR);
  if (n < 4 || static_cast<std::size_t>(n) > kMaxReturnedInputError) return std::nullopt;
  std::uint32_t length;
  std::memcpy(&length, buffer, 4);
  if (length > static_cast<std::size_t>(n) - 4) return std::nullopt;
  return InputError(std::string(buffer + 4, length), std::string(buffer + 4 + length, buffer + n));
}

[[noreturn]] void run_child(const std::function<void()>& work, std::chrono::milliseconds limit, int refusal_fd) {
  silence_child_output();
  rlimit cpu{};
  cpu.rlim_cur = cpu.rlim_max = static_cast<rlim_t>(limit.count() / 1000 + 1);
  ::setrlimit(RLIMIT_CPU, &cpu);
  int code = 0;
  try {
    work();
  } catch (const InputError& e) {
    send_refusal(refusal_fd, e);
    code = kThrewExitCode;
  } catch (...) {
    code = kThrewExitCode;
  }
  // _exit: no atexit handlers or static destructors of the parent's state.
  ::_exit(code);
}

IsolatedEnd end_of(int status) {
  IsolatedEnd end;
  if (WIFSIGNALED(status)) {
    end.kind = WTERMSIG(status) == SIGXCPU ? IsolatedEnd::Kind::TimedOut : IsolatedEnd::Kind::Crashed;
    end.signal = WTERMSIG(status);
  } else if (WEXITSTATUS(status) == 0) {
    end.kind = IsolatedEnd::Kind::Finished;
  } else if (WEXITSTATUS(status) == kThrewExitCode) {
    end.kind = IsolatedEnd::Kind::Failed;
  } else {
    end.kind = IsolatedEnd::Kind::Crashed;
    end.exit_code = WEXITSTATUS(status);
  }
  return end;
}

IsolatedEnd kill_late_child(pid_t pid) {
  int status = 0;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return {IsolatedEnd::Kind::TimedOut, SIGKILL, 0, "", std::nullopt};
}

// Sleeps until the child ends or the deadline passes: a pidfd becomes
// readable the moment its process exits, so the parent neither polls nor
// oversleeps (a 2 ms child used to cost up to 6 ms of naps).
// Returns false when the kernel has no pidfd_open (before Linux 5.3).
bool wait_on_pidfd(pid_t pid, std::chrono::steady_clock::time_point deadline, bool& ended) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count()) + 1) : 0;
    if (ready < 0 && errno == EINTR) continue;
    ended = ready > 0;
    ::close(fd);
    return true;
  }
}

// The fallback: short naps, doubling up to 10 ms.
IsolatedEnd wait_by_polling(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    int status = 0;
    pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return end_of(status);
    if (got < 0 && errno != EINTR) return {IsolatedEnd::Kind::NotStarted, 0, 0, std::strerror(errno), std::nullopt};
    if (std::chrono::steady_clock::now() >= deadline) return kill_late_child(pid);
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(10)) pause *= 2;
  }
}

IsolatedEnd wait_for(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  bool ended = false;
  if (!wait_on_pidfd(pid, deadline, ended)) return wait_by_polling(pid, deadline);
  if (!ended) return kill_late_child(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return {IsolatedEnd::Kind::NotStarted, 0, 0, std::strerror(errno), std::nullopt};
  return end_of(status);
}

}  // namespace

std::string IsolatedEnd::describe() const {
  switch (kind) {
    case Kind::Finished:
      return "finished";
    case Kind::Failed:
      return "failed";
    case Kind::Crashed: {
      if (signal == 0) return "crashed (exit status " + std::to_string(exit_code) + ")";
      const char* name = ::sigabbrev_np(signal);
      return "crashed (signal " + std::to_string(signal) + (name ? std::string(", SIG") + name : "") + ")";
    }
    case Kind::TimedOut:
      return "did not finish in time";
    case Kind::NotStarted:
      return "could not be started (" + detail + ")";
  }
  return "unknown";
}

IsolatedEnd run_isolated(const std::function<void()>& work, std::chrono::milliseconds limit) {
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  RefusalPipe refusal;
  pid_t pid = ::fork();
  if (pid < 0) return {IsolatedEnd::Kind::NotStarted, 0, 0, std::strerror(errno), std::nullopt};
  if (pid == 0) run_child(work, limit, refusal.write_end);
  refusal.close_write_end();
  IsolatedEnd end = wait_for(pid, limit);
  if (end.kind == IsolatedEnd::Kind::Failed) end.input_error = receive_refusal(refusal.read_end);
  return end;
}

}  // namespace gdrcheck

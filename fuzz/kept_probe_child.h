// A forked copy of the fuzzing process kept for many inputs, where hwloc
// meets each input before the fuzzer loads it in its own process: the
// product forks one copy per load (run_isolated), which cost the hwloc
// targets most of their time (the page tables of a sanitized fuzzing
// process are copied at every fork). The copy runs `work` on each request
// and answers with one byte; a copy that crashes or hangs is replaced at
// the next request. The requests and the work must be the ones the product
// probes: only the number of forks differs.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "topology/input_error.h"

namespace fuzz_probe {

enum class End { Finished, Refused, Failed, Crashed, TimedOut };

class KeptProbeChild {
 public:
  using Work = std::function<void(const std::string& request)>;

  KeptProbeChild(Work work, std::chrono::milliseconds limit) : work_(std::move(work)), limit_(limit) {}
  KeptProbeChild(const KeptProbeChild&) = delete;
  KeptProbeChild& operator=(const KeptProbeChild&) = delete;
  ~KeptProbeChild() { stop(); }

  // How `work(request)` ended in the kept copy: Finished (returned), Refused
  // (threw an InputError: the product reports it from its probe child and
  // does not load the input again), Failed (threw anything else), Crashed
  // (the copy died) or TimedOut (killed at the limit).
  End run(const std::string& request) {
    if (pid_ >= 0 && requests_ >= kRequestsPerCopy) stop();
    if (pid_ < 0) start();
    ++requests_;
    std::uint64_t size = request.size();
    if (!send_all(&size, sizeof size) || !send_all(request.data(), request.size())) return end_of_copy();
    pollfd p{fd_, POLLIN, 0};
    int ready;
    do ready = ::poll(&p, 1, static_cast<int>(limit_.count()));
    while (ready < 0 && errno == EINTR);
    if (ready <= 0) {
      stop();
      return End::TimedOut;
    }
    char answer = 0;
    if (::recv(fd_, &answer, 1, 0) != 1) return end_of_copy();
    if (answer == 'F') return End::Finished;
    return answer == 'I' ? End::Refused : End::Failed;
  }

 private:
  void start() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      ::close(fds[0]);
      serve(fds[1]);
    }
    ::close(fds[1]);
    fd_ = fds[0];
  }

  // In the copy: a fault ends it quietly, with no report and no crash file
  // from the fuzzer's handlers (they would name the parent's input of the
  // moment the copy was made).
  [[noreturn]] void serve(int fd) {
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    __sanitizer_set_death_callback(+[] { ::syscall(SYS_exit_group, 1); });
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(sig, SIG_DFL);
    std::string request;
    for (;;) {
      std::uint64_t size = 0;
      if (!recv_all(fd, &size, sizeof size)) break;
      request.resize(size);
      if (!recv_all(fd, request.data(), size)) break;
      char answer = 'F';
      try {
        work_(request);
      } catch (const gdrcheck::InputError&) {
        answer = 'I';
      } catch (...) {
        answer = 'T';
      }
      if (::send(fd, &answer, 1, MSG_NOSIGNAL) != 1) break;
    }
    ::syscall(SYS_exit_group, 0);
    __builtin_unreachable();
  }

  static bool recv_all(int fd, void* data, std::size_t size) {
    auto* p = static_cast<char*>(data);
    while (size > 0) {
      ssize_t n = ::recv(fd, p, size, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  bool send_all(const void* data, std::size_t size) {
    auto* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = ::send(fd_, p, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // The copy stopped answering: it died; a new one is made at the next
  // request.
  End end_of_copy() {
    stop();
    return End::Crashed;
  }

  void stop() {
    if (pid_ < 0) return;
    ::kill(pid_, SIGKILL);
    ::close(fd_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    fd_ = -1;
    requests_ = 0;
  }

  // hwloc leaks what it had set up for a document it gives up on, so a copy
  // is replaced after this many requests before its heap grows large.
  static constexpr int kRequestsPerCopy = 10'000;

  Work work_;
  std::chrono::milliseconds limit_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int requests_ = 0;
};

}  // namespace fuzz_probe

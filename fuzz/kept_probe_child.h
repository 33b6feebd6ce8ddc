// A forked copy of the fuzzing process kept for many inputs, where hwloc
// meets each input before the fuzzer loads it in its own process: the
// product forks one copy per load (run_isolated), which cost the hwloc
// targets most of their time (the page tables of a sanitized fuzzing
// process are copied at every fork). The copy runs `work` on each request
// and answers with one byte; a copy that crashes or hangs is replaced at
// the next request. The requests and the work must be the ones the product
// probes: only the number of forks differs.
//
// Copies are not forked from the fuzzing process itself but from a small
// process forked once, at construction (LLVMFuzzerInitialize, before the
// corpus is read): hwloc crashes on about one malformed XML in fifty, and
// every fork of the grown fuzzing process cost a copy of its page tables
// and, afterwards, a copy-on-write fault for each page it wrote again.
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
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "topology/input_error.h"

namespace fuzz_probe {

enum class End { Finished, Refused, Failed, Crashed, TimedOut };

class KeptProbeChild {
 public:
  using Work = std::function<void(const std::string& request)>;

  // Forks the process that forks the copies: construct it while the
  // fuzzing process is still small.
  KeptProbeChild(Work work, std::chrono::milliseconds limit) : work_(std::move(work)), limit_(limit) { start_forker(); }
  KeptProbeChild(const KeptProbeChild&) = delete;
  KeptProbeChild& operator=(const KeptProbeChild&) = delete;
  // Closing the control socket makes the forker kill the copy and exit.
  ~KeptProbeChild() {
    drop_copy();
    ::close(control_);
    while (::waitpid(forker_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }

  // How `work(request)` ended in the kept copy: Finished (returned), Refused
  // (threw an InputError: the product reports it from its probe child and
  // does not load the input again), Failed (threw anything else), Crashed
  // (the copy died) or TimedOut (killed at the limit).
  End run(const std::string& request) {
    if (copy_ >= 0 && requests_ >= kRequestsPerCopy) drop_copy();
    if (copy_ < 0) new_copy();
    ++requests_;
    std::uint64_t size = request.size();
    if (!send_all(&size, sizeof size) || !send_all(request.data(), request.size())) return end_of_copy();
    pollfd p{copy_, POLLIN, 0};
    int ready;
    do ready = ::poll(&p, 1, static_cast<int>(limit_.count()));
    while (ready < 0 && errno == EINTR);
    if (ready <= 0) {
      drop_copy();
      return End::TimedOut;
    }
    char answer = 0;
    if (!recv_all(copy_, &answer, 1)) return end_of_copy();
    if (answer == 'F') return End::Finished;
    return answer == 'I' ? End::Refused : End::Failed;
  }

 private:
  void start_forker() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
    forker_ = ::fork();
    if (forker_ < 0) std::abort();
    if (forker_ == 0) {
      ::close(fds[0]);
      serve_forks(fds[1]);
    }
    ::close(fds[1]);
    control_ = fds[0];
  }

  // Asks the forker for a new copy (which first ends the old one) and
  // hands it one end of the copy's socket.
  void new_copy() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
    if (!send_fd(control_, fds[1])) std::abort();
    ::close(fds[1]);
    // recv_all retries a read that a signal interrupted: libFuzzer's
    // SIGALRM (every -timeout/2 + 1 s) has no SA_RESTART, and one arriving
    // while the forker was forking made this abort as a false crash.
    char answer = 0;
    if (!recv_all(control_, &answer, 1) || answer != 'N') std::abort();
    copy_ = fds[0];
    requests_ = 0;
  }

  // The copy itself is ended by the forker at the next request (or when
  // the control socket closes); a copy that is not hung has already seen
  // its socket close and left.
  void drop_copy() {
    if (copy_ < 0) return;
    ::close(copy_);
    copy_ = -1;
  }

  End end_of_copy() {
    drop_copy();
    return End::Crashed;
  }

  // In the forker and its copies: a fault ends them quietly, with no report
  // and no crash file from the fuzzer's handlers (they would name the
  // parent's input of the moment the forker was made).
  static void quiet() {
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    __sanitizer_set_death_callback(+[] { ::syscall(SYS_exit_group, 1); });
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(sig, SIG_DFL);
  }

  [[noreturn]] void serve_forks(int control) {
    quiet();
    pid_t copy = -1;
    for (;;) {
      int fd = recv_fd(control);
      end(copy);
      if (fd < 0) break;
      copy = ::fork();
      if (copy == 0) {
        ::close(control);
        serve(fd);
      }
      ::close(fd);
      if (copy < 0 || ::send(control, "N", 1, MSG_NOSIGNAL) != 1) break;
    }
    end(copy);
    ::syscall(SYS_exit_group, 0);
    __builtin_unreachable();
  }

  static void end(pid_t& copy) {
    if (copy <= 0) return;
    ::kill(copy, SIGKILL);
    while (::waitpid(copy, nullptr, 0) < 0 && errno == EINTR) {
    }
    copy = -1;
  }

  [[noreturn]] void serve(int fd) {
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

  // One byte on a socket with room beside it for one descriptor
  // (SCM_RIGHTS): how the fuzzing process hands the forker a copy's end.
  struct FdMessage {
    char byte = 'N';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    FdMessage() {
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
    }
    FdMessage(const FdMessage&) = delete;
    FdMessage& operator=(const FdMessage&) = delete;
  };

  static bool send_fd(int socket, int fd) {
    FdMessage m;
    cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n;
    do n = ::sendmsg(socket, &m.msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == 1;
  }

  // The descriptor the fuzzing process sent, or -1 once it has gone.
  static int recv_fd(int socket) {
    FdMessage m;
    ssize_t n;
    do n = ::recvmsg(socket, &m.msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    cmsghdr* c = n == 1 ? CMSG_FIRSTHDR(&m.msg) : nullptr;
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) return -1;
    int fd;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
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
      ssize_t n = ::send(copy_, p, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // hwloc leaks what it had set up for a document it gives up on, so a copy
  // is replaced after this many requests before its heap grows large.
  static constexpr int kRequestsPerCopy = 10'000;

  Work work_;
  std::chrono::milliseconds limit_;
  pid_t forker_ = -1;
  int control_ = -1;
  int copy_ = -1;
  int requests_ = 0;
};

}  // namespace fuzz_probe

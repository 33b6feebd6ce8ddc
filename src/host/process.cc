#include "host/process.h"
#include "host/child_groups.h"
#include "host/termination.h"
#include "host/unique_fd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

extern char** environ;

namespace gdrcheck {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Pipe {
  UniqueFd read, write;
};

bool make_pipe(Pipe& p) {
  int fds[2];
  // O_CLOEXEC: a pipe end must not leak into a child started by another
  // thread at the same moment, or that child would hold it open.
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read.reset(fds[0]);
  p.write.reset(fds[1]);
  return true;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The child's environment: ours, minus env_unset, with env_set applied.
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string name = name_of(entry);
    bool removed = std::find(spec.env_unset.begin(), spec.env_unset.end(), name) != spec.env_unset.end();
    bool replaced =
        std::any_of(spec.env_set.begin(), spec.env_set.end(), [&](const auto& kv) { return kv.first == name; });
    if (!removed && !replaced) env.push_back(std::move(entry));
  }
  for (const auto& [name, value] : spec.env_set) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Writing to the stdin of a child that already exited must be an EPIPE
// error, not a SIGPIPE that ends gdrcheck. Children get the default back.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

void trim_to_tail(std::string& into, bool& truncated, std::size_t& dropped, std::size_t limit) {
  if (into.size() <= limit) return;
  truncated = true;
  dropped += into.size() - limit;
  into.erase(0, into.size() - limit);
}

// Grows `into` to hold `extra` more bytes without passing `limit` by much:
// std::string's doubling would otherwise reserve up to twice the limit.
void reserve_within(std::string& into, std::size_t extra, std::size_t limit) {
  std::size_t needed = into.size() + extra;
  if (needed <= into.capacity()) return;
  into.reserve(std::min(std::max(needed, 2 * into.capacity()), std::max(limit, needed)));
}

// Keeps the first `limit` bytes of a stream and counts what it drops.
void keep_head(std::string& into, bool& truncated, std::size_t& dropped, std::size_t limit, const char* data,
               std::size_t n) {
  std::size_t room = into.size() < limit ? limit - into.size() : 0;
  std::size_t kept = std::min(room, n);
  reserve_within(into, kept, limit);
  into.append(data, kept);
  if (n > kept) {
    truncated = true;
    dropped += n - kept;
  }
}

// Keeps the last `limit` bytes of a stream (trimmed in batches, so each byte
// is moved a bounded number of times) and counts what it drops.
void keep_tail(std::string& into, bool& truncated, std::size_t& dropped, std::size_t limit, const char* data,
               std::size_t n) {
  into.append(data, n);
  if (into.size() > 2 * limit + 65536) trim_to_tail(into, truncated, dropped, limit);
}

bool write_all_bytes(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

struct Spawned {
  pid_t pid = -1;
  std::string error;
};

Spawned spawn(const ProcessSpec& spec, const std::string& program, Pipe& in, Pipe& out, Pipe& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, spec.merge_stderr ? out.write.get() : err.write.get(), 2);
  // Nothing but the three standard streams reaches the child: a descriptor
  // some library opened without O_CLOEXEC (a report file, a socket) would
  // otherwise stay open in ssh or mpirun for as long as they run.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (!spec.working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.working_dir.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout can end the launcher and
  // everything it started (mpirun's daemons, ssh's children).
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = child_environment(spec);
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);
  Spawned s;
  int rc = ::posix_spawn(&s.pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  if (rc != 0) {
    s.pid = -1;
    s.error = spec.argv[0] + ": " + std::strerror(rc);
    if (!spec.working_dir.empty()) s.error += " (working directory " + spec.working_dir + ")";
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return s;
}

// Reads the child's output, feeds its stdin, and enforces the timeout;
// returns when the child has been reaped and its pipes are closed (or
// their holders killed).
class Supervisor {
 public:
  Supervisor(const ProcessSpec& spec, ProcessResult& result, int out_file)
      : spec_(spec), result_(result), out_file_(out_file) {}

  void run(pid_t pid, Pipe& in, Pipe& out, Pipe& err) {
    pid_ = pid;
    start_ = Clock::now();
    fds_[0] = {out.read.get(), POLLIN, 0};
    fds_[1] = {spec_.merge_stderr ? -1 : err.read.get(), POLLIN, 0};
    fds_[2] = {spec_.stdin_text.empty() ? -1 : in.write.get(), POLLOUT, 0};
    if (spec_.stdin_text.empty())
      in.write.reset();
    else
      ::fcntl(in.write.get(), F_SETFL, O_NONBLOCK);
    while (!finished()) {
      poll_once(in);
      reap();
      enforce_deadlines();
    }
    if (spec_.keep_error_tail) trim_to_tail(result_.err, result_.err_truncated, result_.err_dropped, spec_.error_limit);
    result_.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start_);
  }

 private:
  bool pipes_open() const { return fds_[0].fd >= 0 || fds_[1].fd >= 0; }
  bool finished() const { return reaped_ && (!pipes_open() || pipes_abandoned_); }

  void poll_once(Pipe& in) {
    if (!pipes_open() && fds_[2].fd < 0) {
      ::poll(nullptr, 0, 10);  // only waiting for the exit now
      return;
    }
    int n = ::poll(fds_, 3, 50);
    if (n <= 0) return;
    for (int i = 0; i < 2; ++i) {
      if (fds_[i].fd >= 0 && (fds_[i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(i);
    }
    if (fds_[2].fd >= 0 && (fds_[2].revents & (POLLOUT | POLLERR | POLLHUP))) feed_stdin(in);
  }

  void read_from(int i) {
    char buf[65536];
    ssize_t n = ::read(fds_[i].fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {
      fds_[i].fd = -1;
      return;
    }
    auto size = static_cast<std::size_t>(n);
    if (i == 0) {
      if (out_file_ >= 0) write_all_bytes(out_file_, buf, size);
      keep_stdout(buf, size);
    } else {
      keep_stderr(buf, size);
    }
  }

  void keep_stdout(const char* data, std::size_t n) {
    if (spec_.stdout_sink) {
      spec_.stdout_sink(std::string_view(data, n));
      return;
    }
    keep_head(result_.out, result_.out_truncated, result_.out_dropped, spec_.output_limit, data, n);
    if (result_.out_truncated && spec_.stop_at_output_limit && !term_sent_ && !reaped_) {
      result_.stopped_at_output_limit = true;
      terminate_group(Clock::now());
    }
  }

  void keep_stderr(const char* data, std::size_t n) {
    if (spec_.stderr_sink) {
      spec_.stderr_sink(std::string_view(data, n));
    } else if (spec_.keep_error_tail) {
      keep_tail(result_.err, result_.err_truncated, result_.err_dropped, spec_.error_limit, data, n);
    } else {
      keep_head(result_.err, result_.err_truncated, result_.err_dropped, spec_.error_limit, data, n);
    }
  }

  void terminate_group(Clock::time_point now) {
    ::kill(-pid_, SIGTERM);
    term_sent_ = true;
    term_at_ = now;
  }

  void feed_stdin(Pipe& in) {
    const std::string& text = spec_.stdin_text;
    ssize_t w = ::write(in.write.get(), text.data() + stdin_written_, text.size() - stdin_written_);
    if (w > 0) stdin_written_ += static_cast<std::size_t>(w);
    bool failed = w < 0 && errno != EAGAIN && errno != EINTR;
    if (failed || stdin_written_ == text.size()) {
      in.write.reset();  // EOF for the child
      fds_[2].fd = -1;
    }
  }

  void reap() {
    if (reaped_) return;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r != pid_) return;
    reaped_ = true;
    reaped_at_ = Clock::now();
    if (result_.end == ProcessResult::End::TimedOut) {
      if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
      if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result_.end = ProcessResult::End::Signaled;
      result_.signal = WTERMSIG(status);
    } else {
      result_.end = ProcessResult::End::Exited;
      result_.exit_code = WEXITSTATUS(status);
    }
  }

  void enforce_deadlines() {
    auto now = Clock::now();
    if (!reaped_ && spec_.timeout.count() > 0 && !term_sent_ && now - start_ >= spec_.timeout) {
      result_.end = ProcessResult::End::TimedOut;
      terminate_group(now);
    }
    if (!reaped_ && term_sent_ && !kill_sent_ && now - term_at_ >= spec_.kill_grace) {
      ::kill(-pid_, SIGKILL);
      kill_sent_ = true;
    }
    // The child is gone but something it started still holds the output
    // open: give it the grace period, then end the group and stop reading.
    if (reaped_ && pipes_open() && now - reaped_at_ >= spec_.kill_grace) {
      ::kill(-pid_, SIGKILL);
      pipes_abandoned_ = true;
    }
  }

  const ProcessSpec& spec_;
  ProcessResult& result_;
  int out_file_;
  pid_t pid_ = -1;
  pollfd fds_[3] = {};
  std::size_t stdin_written_ = 0;
  Clock::time_point start_, term_at_, reaped_at_;
  bool reaped_ = false, term_sent_ = false, kill_sent_ = false, pipes_abandoned_ = false;
};

// Keeps a child's group in the table of groups a stop ends
// (host/child_groups.h) for as long as run_process supervises it.
class RegisteredGroup {
 public:
  explicit RegisteredGroup(pid_t pgid) : pgid_(pgid) {}
  RegisteredGroup(const RegisteredGroup&) = delete;
  RegisteredGroup& operator=(const RegisteredGroup&) = delete;
  ~RegisteredGroup() { unregister_child_group(pgid_); }

 private:
  pid_t pgid_;
};

void end_unregistered(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

ProcessResult not_started(std::string why) {
  ProcessResult r;
  r.end = ProcessResult::End::NotStarted;
  r.start_error = std::move(why);
  return r;
}

}  // namespace

std::string find_in_path(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string ProcessResult::describe() const {
  switch (end) {
    case End::Exited:
      return "exit status " + std::to_string(exit_code);
    case End::Signaled: {
      const char* abbrev = ::sigabbrev_np(signal);
      return "killed by signal " + std::to_string(signal) + (abbrev ? " (SIG" + std::string(abbrev) + ")" : "");
    }
    case End::TimedOut: {
      auto ms = elapsed.count();
      return "timed out after " + (ms >= 1000 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
    }
    case End::NotStarted:
      return "could not start: " + start_error;
  }
  return "unknown";
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) return not_started("empty command");
  std::string program = find_in_path(spec.argv[0]);
  if (program.empty()) {
    return not_started(spec.argv[0] + (spec.argv[0].find('/') == std::string::npos ? ": not found in PATH"
                                                                                   : ": no such executable file"));
  }
  UniqueFd out_file;
  if (!spec.output_file.empty()) {
    out_file.reset(::open(spec.output_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out_file.get() < 0) {
      int e = errno;
      return not_started(spec.output_file + ": " +
                         (e == EEXIST ? std::string("already exists; not overwritten") : std::strerror(e)));
    }
  }
  ignore_sigpipe_once();
  Pipe in, out, err;
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err))
    return not_started(std::string("pipe: ") + std::strerror(errno));
  // Nothing new starts once gdrcheck is stopping.
  if (termination_requested()) await_termination();
  Spawned child = spawn(spec, program, in, out, err);
  if (child.pid < 0) return not_started(child.error);
  if (!register_child_group(child.pid)) {
    // A child a stop could not reach is not run at all.
    end_unregistered(child.pid);
    return not_started(spec.argv[0] + ": more than " + std::to_string(kMaxChildGroups) +
                       " programs running at once; not started");
  }
  RegisteredGroup registered(child.pid);
  // A stop that began between the check above and the registration may
  // not have seen this group; it has done no work yet and is ended
  // outright.
  if (termination_requested()) {
    ::kill(-child.pid, SIGKILL);
    await_termination();
  }
  // Only the child keeps these ends; EOF on our side then means it closed them.
  in.read.reset();
  out.write.reset();
  err.write.reset();
  ProcessResult result;
  Supervisor(spec, result, out_file.get()).run(child.pid, in, out, err);
  // Its group was ended by a stop: what it left is not a result to act on.
  if (termination_requested()) await_termination();
  return result;
}

std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs, std::size_t parallel,
                                         const std::function<void(std::size_t, const ProcessResult&)>& on_done) {
  std::vector<ProcessResult> results(specs.size());
  std::mutex mutex;
  std::condition_variable done_cv;
  std::deque<std::size_t> done;
  std::size_t next = 0;

  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard lock(mutex);
        if (next >= specs.size()) return;
        i = next++;
      }
      ProcessResult r = run_process(specs[i]);
      std::lock_guard lock(mutex);
      results[i] = std::move(r);
      done.push_back(i);
      done_cv.notify_one();
    }
  };
  std::size_t threads = std::min(std::max<std::size_t>(parallel, 1), specs.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);

  // Completions are reported from this thread, one at a time.
  for (std::size_t reported = 0; reported < specs.size(); ++reported) {
    std::unique_lock lock(mutex);
    done_cv.wait(lock, [&] { return !done.empty(); });
    std::size_t i = done.front();
    done.pop_front();
    lock.unlock();
    if (on_done) on_done(i, results[i]);
  }
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace gdrcheck

#include "hostile_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "fixture/node_description.h"
#include "fixture/root_builder.h"
#include "host/address_space_limit.h"
#include "terminal_checks.h"

namespace fs = std::filesystem;

namespace gdrcheck::testing {
namespace {

constexpr rlim_t kAddressSpaceLimit = rlim_t{4} << 30;
// A child that ended while a descendant still holds its output open is not
// waited for longer than this.
constexpr auto kOutputGrace = std::chrono::seconds(2);

bool address_space_limited() {
  return !sanitizer_reserves_address_space() && std::getenv("GDRCHECK_HOSTILE_NO_AS_LIMIT") == nullptr;
}

// argv[0] looked up in PATH before the fork, so the child only calls execve.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

std::vector<std::string> child_environment(const HostileSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : spec.env_set) replaced |= entry.rfind(name + "=", 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : spec.env_set) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> argv_pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// In the child after fork: only async-signal-safe calls.
[[noreturn]] void exec_child(int in_fd, int out_fd, int err_fd, const char* dir, char* const* argv, char* const* envp) {
  setpgid(0, 0);
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  signal(SIGPIPE, SIG_DFL);
  if (address_space_limited()) {
    rlimit limit{kAddressSpaceLimit, kAddressSpaceLimit};
    setrlimit(RLIMIT_AS, &limit);
  }
  if (dir && chdir(dir) != 0) _exit(126);
  execve(argv[0], argv, envp);
  _exit(127);
}

void append_kept(std::string& to, const char* data, std::size_t n) {
  std::size_t room = to.size() < kHostileOutputKept ? kHostileOutputKept - to.size() : 0;
  to.append(data, n < room ? n : room);
}

// Moves bytes between the pipes until both outputs are closed, the child
// has ended and its outputs stayed open past the grace period, or the
// deadline passes. Returns whether the deadline passed.
struct Pipes {
  int in = -1, out = -1, err = -1;
};

bool pump(Pipes& p, pid_t pid, const HostileSpec& spec, HostileResult& r, int& status, rusage& usage, bool& reaped) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + spec.timeout;
  std::size_t written = 0;
  std::chrono::steady_clock::time_point ended{};
  char buf[65536];
  while (p.out >= 0 || p.err >= 0 || !reaped) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return true;
    if (reaped && now - ended > kOutputGrace) return false;
    if (p.in >= 0 && written == spec.stdin_text.size()) {
      close(p.in);
      p.in = -1;
    }
    pollfd fds[3] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}, {p.in, POLLOUT, 0}};
    poll(fds, 3, 50);
    if (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
      ssize_t n = write(p.in, spec.stdin_text.data() + written, spec.stdin_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = spec.stdin_text.size();  // reader gone
    }
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? p.out : p.err;
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        append_kept(i == 0 ? r.out : r.err, buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(fd);
        fd = -1;
      }
    }
    if (!reaped && wait4(pid, &status, WNOHANG, &usage) == pid) {
      reaped = true;
      ended = std::chrono::steady_clock::now();
    }
  }
  return false;
}

std::string entry_signature(const fs::path& p) {
  struct stat st {};
  if (lstat(p.c_str(), &st) != 0) return "gone";
  return std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_ino) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string HostileResult::describe() const {
  if (!start_error.empty()) return "not started: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(elapsed.count()) + " ms";
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

std::string hostile_binary() {
  if (const char* b = std::getenv("GDRCHECK_HOSTILE_BINARY")) return b;
  return GDRCHECK_BINARY;
}

HostileResult run_hostile(const HostileSpec& spec) {
  HostileResult r;
  std::vector<std::string> argv = spec.wrapper;
  argv.push_back(hostile_binary());
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  argv[0] = resolve_program(argv[0]);
  // A TMPDIR of its own: what the run leaves there is its own, whatever
  // other tests do in /tmp at the same time.
  char tmp_template[] = "/tmp/hostile-tmpdir-XXXXXX";
  const char* tmpdir = ::mkdtemp(tmp_template);
  HostileSpec with_tmp = spec;
  if (tmpdir) with_tmp.env_set.push_back({"TMPDIR", tmpdir});
  std::vector<std::string> env = child_environment(with_tmp);
  std::vector<char*> argv_p = argv_pointers(argv), env_p = argv_pointers(env);
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.start_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  // A child that stops reading its stdin must not end this process.
  signal(SIGPIPE, SIG_IGN);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    r.start_error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0)
    exec_child(in[0], out[1], err[1], spec.working_dir.empty() ? nullptr : spec.working_dir.c_str(), argv_p.data(),
               env_p.data());
  setpgid(pid, pid);  // also here, so the kill below cannot race the child's own call
  close(in[0]);
  close(out[1]);
  close(err[1]);
  fcntl(in[1], F_SETFL, O_NONBLOCK);
  Pipes p{in[1], out[0], err[0]};
  int status = 0;
  rusage usage{};
  bool reaped = false;
  r.timed_out = pump(p, pid, spec, r, status, usage, reaped);
  kill(-pid, SIGKILL);  // the group: also any descendant still holding the output
  if (!reaped) wait4(pid, &status, 0, &usage);
  for (int fd : {p.in, p.out, p.err})
    if (fd >= 0) close(fd);
  r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  r.peak_rss_kib = usage.ru_maxrss;
  if (tmpdir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(tmpdir, ec)) r.temp_left.push_back(e.path().filename().string());
    fs::remove_all(tmpdir, ec);
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !r.timed_out) r.signal = WTERMSIG(status);
  if (r.exit_code == 127 && r.err.empty()) r.start_error = "execve " + argv[0] + " failed";
  return r;
}

std::string random_token() {
  unsigned char bytes[16] = {};
  std::ifstream("/dev/urandom", std::ios::binary).read(reinterpret_cast<char*>(bytes), sizeof bytes);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

HostileDir::HostileDir() : token_("CANARY" + random_token()) {
  char pattern[] = "/tmp/hostile-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  base_ = pattern;
  fs::create_directory(in());
  // Several lines, each a plausible value, so any reader that followed a
  // link here would have something to print.
  std::ofstream(canary_path(), std::ios::binary) << token_ << "\nmodel name\t: " << token_ << "\n"
                                                 << "{\"host\": \"" << token_ << "\"}\n";
}

HostileDir::~HostileDir() {
  std::error_code ec;
  fs::remove_all(base_, ec);
}

std::string HostileDir::write(const std::string& relative, const std::string& text) const {
  fs::path p = fs::path(in()) / relative;
  fs::create_directories(p.parent_path());
  std::error_code ec;
  fs::remove(p, ec);
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

void HostileDir::make_fifo(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  fs::create_directories(fs::path(path).parent_path());
  if (mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path + ": " + std::strerror(errno));
}

void HostileDir::make_link(const std::string& path, const std::string& target) {
  std::error_code ec;
  fs::remove(path, ec);
  fs::create_directories(fs::path(path).parent_path());
  fs::create_symlink(target, path);
}

TreeSnapshot snapshot_tree(const std::string& dir) {
  TreeSnapshot s;
  std::error_code ec;
  s[dir] = entry_signature(dir);
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    s[it->path().string()] = entry_signature(it->path());
  }
  return s;
}

std::string tree_difference(const TreeSnapshot& before, const TreeSnapshot& after) {
  std::string diff;
  for (const auto& [path, sig] : after) {
    auto it = before.find(path);
    if (it == before.end())
      diff += "created " + path + "\n";
    else if (it->second != sig)
      diff += "modified " + path + "\n";
  }
  for (const auto& [path, sig] : before)
    if (!after.count(path)) diff += "removed " + path + "\n";
  return diff.substr(0, 2000);
}

::testing::AssertionResult ran_safely(const HostileResult& r, const HostileDir& dir) {
  auto fail = [&](const std::string& what) {
    return ::testing::AssertionFailure() << what << " (" << r.describe() << ")\nstderr: " << r.err.substr(0, 1500)
                                         << "\nstdout: " << r.out.substr(0, 1500);
  };
  if (!r.start_error.empty()) return fail("the binary did not start");
  if (r.timed_out) return fail("no answer within the timeout");
  if (r.signal) return fail("ended by a signal");
  for (const char* report : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"})
    if (r.err.find(report) != std::string::npos) return fail(std::string("sanitizer report: ") + report);
  if (r.out.find(dir.token()) != std::string::npos || r.err.find(dir.token()) != std::string::npos)
    return fail("bytes of the canary outside the input reached the output");
  if (std::string bad = terminal_offence(r.out, false); !bad.empty()) return fail("stdout: " + bad);
  if (std::string bad = terminal_offence(r.err, false); !bad.empty()) return fail("stderr: " + bad);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult refused_naming(const HostileResult& r, const HostileDir& dir, const std::string& file) {
  if (auto safe = ran_safely(r, dir); !safe) return safe;
  if (r.exit_code == 0) return ::testing::AssertionFailure() << "exit 0 on input that must be refused: " << r.out;
  if (r.err.find(file) == std::string::npos)
    return ::testing::AssertionFailure() << "stderr does not name " << file << " (" << r.describe()
                                         << "): " << r.err.substr(0, 1500);
  return ::testing::AssertionSuccess();
}

void build_example_root(const std::string& dest) {
  fixture::build_root(fixture::load_node_description(std::string(GDRCHECK_TEST_DATA) + "/nodes/dgx-h100.json"), dest);
}

}  // namespace gdrcheck::testing

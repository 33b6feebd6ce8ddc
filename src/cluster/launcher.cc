#include "cluster/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cluster/hostlist.h"
#include "cluster/slurm_node_state.h"
#include "cluster/slurm_schedulable.h"
#include "host/process.h"

namespace gdrcheck {
namespace {

using How = NodeOutcome::How;

// What the remote side ended with, from whichever launcher ran it.
struct RemoteEnd {
  enum class Kind { Exited, TimedOut, NotStarted, LauncherKilled } kind = Kind::Exited;
  int exit_code = -1;
  std::string out;
  bool out_cut = false;         // stdout passed kNodeReportLimit
  std::size_t out_dropped = 0;  // bytes of it not kept (at least)
  std::string err;
  std::string detail;  // the launcher's own words when it did not exit normally
};

// Diagnostic lines (stderr, srun's log) are matched with std::regex, whose
// backtracking recurses per character: a line is cut here first, far
// below what could exhaust the stack, and far above any real message.
constexpr std::size_t kMaxDiagnosticLine = 4096;

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = std::string(without_cr(line).substr(0, kMaxDiagnosticLine));
    lines.push_back(std::move(line));
  }
  return lines;
}

// Keeps the last `limit` bytes of a text.
void trim_tail(std::string& text, std::size_t limit) {
  if (text.size() > limit) text.erase(0, text.size() - limit);
}
// Appends to a text kept to about its last `limit` bytes: trimmed in
// batches, so each byte moves a bounded number of times (trim_tail
// finishes it).
void append_tail(std::string& text, std::string_view more, std::size_t limit) {
  text.append(more);
  if (text.size() > 2 * limit) trim_tail(text, limit);
}

// Appends to a text kept to its first `limit` bytes; true when something
// did not fit.
bool append_head(std::string& text, std::string_view more, std::size_t limit, std::size_t& dropped) {
  std::size_t room = text.size() < limit ? limit - text.size() : 0;
  text.append(more.substr(0, room));
  if (more.size() <= room) return false;
  dropped += more.size() - room;
  return true;
}

std::string mib(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// The last few non-empty lines of stderr, joined: where ssh, pdsh and srun
// say what went wrong.
std::string tail_of(const std::string& err, std::size_t count = 3) {
  std::vector<std::string> kept;
  for (const auto& line : lines_of(err)) {
    if (line.find_first_not_of(" \t") != std::string::npos) kept.push_back(line);
  }
  std::string tail;
  std::size_t first = kept.size() > count ? kept.size() - count : 0;
  for (std::size_t i = first; i < kept.size(); ++i) {
    if (!tail.empty()) tail += " | ";
    tail += kept[i];
  }
  return tail;
}

std::string with_stderr(std::string reason, const std::string& err) {
  std::string tail = tail_of(err);
  if (!tail.empty()) reason += ": " + tail;
  return reason;
}

// ssh's own failures (as opposed to the remote command's) all end with
// status 255 and a message on stderr; a remote command killed by a signal
// also makes ssh exit 255, but without a message (OpenSSH does not turn
// "exit-signal" into a status).
bool ssh_reported_failure(const std::string& err) {
  // Line by line (each cut to kMaxDiagnosticLine), never the whole text.
  static const std::regex pattern(
      R"(^ssh: |Permission denied|Host key verification failed|Connection (refused|closed|reset|timed out)|)"
      R"(kex_exchange_identification|Could not resolve|No route to host|Network is unreachable|)"
      R"(client_loop|Broken pipe|REMOTE HOST IDENTIFICATION|Bad configuration option|)"
      R"(command-line line|Too many authentication failures|Connection to .* closed|)"
      R"(hostname contains invalid characters|Name or service not known|Temporary failure in name resolution)",
      std::regex::multiline);
  for (const auto& line : lines_of(err)) {
    if (std::regex_search(line, pattern)) return true;
  }
  return false;
}

std::string signal_name(int number) {
  const char* name = ::sigabbrev_np(number);
  return name ? std::string("SIG") + name : "signal " + std::to_string(number);
}

NodeOutcome classify(const std::string& host, RemoteEnd end, std::chrono::seconds timeout) {
  NodeOutcome outcome;
  outcome.host = host;
  outcome.raw = std::move(end.out);
  outcome.exit_code = end.kind == RemoteEnd::Kind::Exited ? end.exit_code : -1;
  if (end.out_cut) {
    // Whatever the host did after, the kept part is a report cut short:
    // never parsed, kept for --save to show.
    outcome.how = How::NotAReport;
    outcome.reason = "report larger than " + mib(kNodeReportLimit) + " (" + std::to_string(end.out_dropped) +
                     " more bytes dropped; not read)";
    return outcome;
  }
  switch (end.kind) {
    case RemoteEnd::Kind::NotStarted:
      outcome.how = How::Failed;
      outcome.reason = end.detail;
      return outcome;
    case RemoteEnd::Kind::TimedOut:
      outcome.how = How::TimedOut;
      outcome.reason = with_stderr("no complete answer within " + std::to_string(timeout.count()) + " s", end.err);
      return outcome;
    case RemoteEnd::Kind::LauncherKilled:
      outcome.how = How::Failed;
      outcome.reason = with_stderr(end.detail, end.err);
      return outcome;
    case RemoteEnd::Kind::Exited:
      break;
  }
  const int code = end.exit_code;
  if (code >= 0 && code <= 3) {
    // gdrcheck's own verdict codes: OK, WARNING, CRITICAL, UNKNOWN.
    if (outcome.raw.find_first_not_of(" \t\r\n") == std::string::npos) {
      outcome.how = How::NotAReport;
      outcome.reason = with_stderr("exit status " + std::to_string(code) + " but no output", end.err);
    } else {
      outcome.how = How::Report;
    }
    return outcome;
  }
  if (code == 255 && ssh_reported_failure(end.err)) {
    outcome.how = How::Unreachable;
    outcome.reason = tail_of(end.err, 2);
    return outcome;
  }
  if (code == 255) {
    outcome.how = How::Crashed;
    outcome.reason = with_stderr(
        "the remote command ended without an exit status (killed by a signal; ssh then exits 255)", end.err);
    return outcome;
  }
  if (code > 128 && code < 128 + 65) {
    // A POSIX shell between sshd and gdrcheck reports a signal as 128+N.
    outcome.how = How::Crashed;
    outcome.reason =
        with_stderr("killed by " + signal_name(code - 128) + " (exit status " + std::to_string(code) + ")", end.err);
    return outcome;
  }
  outcome.how = How::Failed;
  outcome.reason = with_stderr(code == 127   ? "exit status 127 (command not found on the host)"
                               : code == 126 ? "exit status 126 (not executable on the host)"
                                             : "exit status " + std::to_string(code),
                               end.err);
  return outcome;
}

RemoteEnd remote_end_of(ProcessResult&& result, const std::string& launcher) {
  RemoteEnd end;
  end.out = std::move(result.out);
  end.out_cut = result.out_truncated;
  end.out_dropped = result.out_dropped;
  end.err = std::move(result.err);
  end.exit_code = result.exit_code;
  switch (result.end) {
    case ProcessResult::End::Exited:
      end.kind = RemoteEnd::Kind::Exited;
      break;
    case ProcessResult::End::TimedOut:
      end.kind = RemoteEnd::Kind::TimedOut;
      break;
    case ProcessResult::End::NotStarted:
      end.kind = RemoteEnd::Kind::NotStarted;
      end.detail = launcher + ": " + result.describe();
      break;
    case ProcessResult::End::Signaled:
      end.kind = RemoteEnd::Kind::LauncherKilled;
      end.detail = launcher + " itself was " + result.describe();
      break;
  }
  return end;
}

std::vector<std::string> remote_words(const LaunchOptions& opts) {
  std::vector<std::string> words = {opts.remote_gdrcheck};
  words.insert(words.end(), opts.remote_args.begin(), opts.remote_args.end());
  return words;
}

bool has_space(const std::string& s) {
  return s.find_first_of(" \t\r\n") != std::string::npos;
}

// A pdsh host list item that pdsh would not take as a plain host name:
// '^file', '-exclusion', '/regex/', or white space (pdsh splits on it).
std::string pdsh_host_problem(const std::string& host) {
  if (host.empty()) return "empty host name";
  if (host[0] == '-' || host[0] == '^' || host[0] == '/')
    return "'" + host + "' is not a host name (pdsh reads a leading '-', '^' or '/' as an option)";
  if (has_space(host) || host.find(',') != std::string::npos)
    return "'" + host + "' is not a host name (white space or ',')";
  return "";
}

// --- ssh --------------------------------------------------------------------

std::vector<NodeOutcome> run_ssh(const LaunchOptions& opts) {
  std::vector<ProcessSpec> specs;
  for (const auto& host : opts.hosts) {
    ProcessSpec spec;
    spec.argv = ssh_argv(host, opts);
    spec.timeout = opts.timeout;
    spec.kill_grace = std::chrono::milliseconds(1000);
    spec.output_limit = kNodeReportLimit;
    spec.stop_at_output_limit = true;
    spec.error_limit = kNodeStderrLimit;
    spec.keep_error_tail = true;
    specs.push_back(std::move(spec));
  }
  std::vector<ProcessResult> results = run_processes(specs, std::max<std::size_t>(opts.fanout, 1));
  std::vector<NodeOutcome> outcomes;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (opts.hosts[i].empty()) {
      outcomes.push_back({opts.hosts[i], How::Unreachable, "", "empty host name", -1});
      continue;
    }
    outcomes.push_back(classify(opts.hosts[i], remote_end_of(std::move(results[i]), "ssh"), opts.timeout));
    results[i] = ProcessResult();  // each host's output is held once
  }
  return outcomes;
}

// --- pdsh -------------------------------------------------------------------

// pdsh's per-host status is recovered from its own stderr lines:
//   pdsh@LOCAL: HOST: ssh exited with exit code N    (no line: status 0)
//   pdsh@LOCAL: HOST: command timeout
//   pdsh@LOCAL: HOST: ssh exited on signal N / other pdsh errors
// and each host's output from the "HOST: " prefix pdsh puts on every line
// it prints for that host (stdout and stderr alike).
struct PdshHostState {
  std::string out, err;
  bool out_cut = false;
  std::size_t out_dropped = 0;
  int exit_code = 0;
  bool exit_line = false;  // pdsh said "exited with exit code N"
  bool timed_out = false;
  std::string pdsh_error;  // a pdsh message other than an exit code
};

using PdshHosts = std::map<std::string, PdshHostState>;

// Splits a stream into lines as it arrives. A line longer than `max_line`
// is handed over cut there (`cut` set; the rest up to its newline is
// dropped), so one endless line costs `max_line` bytes, not all of it.
class LineSplitter {
 public:
  using OnLine = std::function<void(std::string_view line, bool cut)>;
  LineSplitter(std::size_t max_line, OnLine on_line) : max_line_(max_line), on_line_(std::move(on_line)) {}

  void feed(std::string_view data) {
    while (!data.empty()) {
      std::size_t newline = data.find('\n');
      std::string_view piece = data.substr(0, newline);
      std::size_t room = line_.size() < max_line_ ? max_line_ - line_.size() : 0;
      line_.append(piece.substr(0, room));
      if (piece.size() > room) cut_ = true;
      if (newline == std::string_view::npos) return;
      emit();
      data.remove_prefix(newline + 1);
    }
  }
  // The last line, when the stream did not end with a newline.
  void finish() {
    if (!line_.empty() || cut_) emit();
  }

 private:
  void emit() {
    on_line_(without_cr(line_), cut_);
    line_.clear();
    cut_ = false;
  }

  std::size_t max_line_;
  OnLine on_line_;
  std::string line_;
  bool cut_ = false;
};

// One line of pdsh's stdout: "HOST: text" is a line of that host's output.
void pdsh_stdout_line(std::string_view line, bool cut, PdshHosts& hosts, std::string& unattributed) {
  std::size_t colon = line.find(": ");
  auto it = colon == std::string_view::npos ? hosts.end() : hosts.find(std::string(line.substr(0, colon)));
  std::string_view text = colon == std::string_view::npos ? "" : line.substr(colon + 2);
  if (it == hosts.end() && !line.empty() && line.back() == ':') {
    // pdsh prints "HOST: " (no text) for an empty line.
    it = hosts.find(std::string(line.substr(0, line.size() - 1)));
    text = "";
  }
  if (it == hosts.end()) {
    append_tail(unattributed, line.substr(0, kMaxDiagnosticLine), kNodeStderrLimit);
    append_tail(unattributed, "\n", kNodeStderrLimit);
    return;
  }
  PdshHostState& host = it->second;
  host.out_cut |= cut;
  host.out_cut |= append_head(host.out, text, kNodeReportLimit, host.out_dropped);
  host.out_cut |= append_head(host.out, "\n", kNodeReportLimit, host.out_dropped);
}

// One line of pdsh's stderr: pdsh's own word on a host, or a line of that
// host's stderr.
void pdsh_stderr_line(const std::string& line, PdshHosts& hosts, std::string& unattributed) {
  static const std::regex pdsh_line(R"(^pdsh@[^:]*: ([^:]+): (.*)$)");
  static const std::regex exit_code(R"(exited with exit code ([0-9]+))");
  std::smatch m;
  if (std::regex_match(line, m, pdsh_line)) {
    auto it = hosts.find(m[1].str());
    if (it == hosts.end()) {
      append_tail(unattributed, line + "\n", kNodeStderrLimit);
      return;
    }
    const std::string text = m[2].str();
    std::smatch code;
    PdshHostState& host = it->second;
    if (std::regex_search(text, code, exit_code)) {
      host.exit_code = std::stoi(code[1].str().substr(0, 9));
      host.exit_line = true;
    } else if (text.find("command timeout") != std::string::npos) {
      host.timed_out = true;
    } else if (host.pdsh_error.size() < kNodeStderrLimit) {
      host.pdsh_error += (host.pdsh_error.empty() ? "" : " | ") + text;
    }
    return;
  }
  std::size_t colon = line.find(": ");
  auto it = colon == std::string::npos ? hosts.end() : hosts.find(line.substr(0, colon));
  if (it == hosts.end()) {
    append_tail(unattributed, line + "\n", kNodeStderrLimit);
  } else {
    append_tail(it->second.err, line.substr(colon + 2) + "\n", kNodeStderrLimit);
  }
}

// pdsh's two streams, split into per-host state as they arrive: memory is
// bounded per host (kNodeReportLimit, kNodeStderrLimit), not by what the
// whole cluster prints.
struct PdshStreams {
  PdshHosts& hosts;
  std::string unattributed;
  // A report line may be the whole report (compact JSON), plus the prefix.
  LineSplitter out{kNodeReportLimit + kMaxDiagnosticLine,
                   [this](std::string_view line, bool cut) { pdsh_stdout_line(line, cut, hosts, unattributed); }};
  LineSplitter err{kMaxDiagnosticLine,
                   [this](std::string_view line, bool) { pdsh_stderr_line(std::string(line), hosts, unattributed); }};

  explicit PdshStreams(PdshHosts& h) : hosts(h) {}
  PdshStreams(const PdshStreams&) = delete;  // the splitters point back here
  PdshStreams& operator=(const PdshStreams&) = delete;
  void finish() {
    out.finish();
    err.finish();
    for (auto& [name, host] : hosts) trim_tail(host.err, kNodeStderrLimit);
    trim_tail(unattributed, kNodeStderrLimit);
  }
};

NodeOutcome pdsh_outcome(const std::string& host, PdshHostState state, const ProcessResult& run,
                         const std::string& unattributed, const LaunchOptions& opts) {
  RemoteEnd end;
  end.out = std::move(state.out);
  end.out_cut = state.out_cut;
  end.out_dropped = state.out_dropped;
  end.err = std::move(state.err);
  if (state.timed_out || (run.end == ProcessResult::End::TimedOut && state.exit_code == 0)) {
    end.kind = RemoteEnd::Kind::TimedOut;
  } else if (!state.pdsh_error.empty() && state.exit_code == 0) {
    end.kind = RemoteEnd::Kind::LauncherKilled;
    end.detail = "pdsh: " + state.pdsh_error;
    if (state.pdsh_error.find("signal") != std::string::npos) {
      NodeOutcome crashed{host, How::Crashed, std::move(end.out), with_stderr(end.detail, end.err), -1};
      return crashed;
    }
  } else if (run.end == ProcessResult::End::Signaled && !state.exit_line && !end.out.empty()) {
    // pdsh 2.34 can die by SIGSEGV as it exits, after every host ended (its
    // watchdog thread reads the host table main() is freeing:
    // src/pdsh/dsh.c:_wdog vs dsh()@pdsh-2.34). A host without a status
    // line then has an unknown exit status, but its output is whole only
    // if it ended: a node report is one JSON document, and no prefix of
    // one parses, so the cluster model's validation decides.
    NodeOutcome salvaged{host, How::Report, std::move(end.out),
                         "pdsh " + run.describe() + " before saying how this host ended", -1};
    return salvaged;
  } else if (run.end != ProcessResult::End::Exited && run.end != ProcessResult::End::TimedOut && !state.exit_line) {
    // pdsh itself did not run or was killed: nothing says how this host ended.
    end.kind = RemoteEnd::Kind::LauncherKilled;
    end.detail = "pdsh: " + run.describe();
    end.err += unattributed;
  } else {
    end.kind = RemoteEnd::Kind::Exited;
    end.exit_code = state.exit_code;
  }
  return classify(host, std::move(end), opts.timeout);
}

std::vector<NodeOutcome> run_pdsh(const LaunchOptions& opts) {
  std::vector<std::string> expected;
  std::map<std::string, std::string> rejected;
  std::vector<std::string> usable;
  for (const auto& item : opts.hosts) {
    std::string problem = pdsh_host_problem(item);
    std::vector<std::string> names;
    if (problem.empty()) {
      try {
        names = expand_hostlist(item);
      } catch (const std::invalid_argument& e) {
        problem = e.what();
      }
    }
    if (!problem.empty()) {
      expected.push_back(item);
      rejected[item] = problem;
      continue;
    }
    usable.push_back(item);
    expected.insert(expected.end(), names.begin(), names.end());
  }

  PdshHosts states;
  for (const auto& host : expected) {
    if (!rejected.count(host)) states[host];
  }
  ProcessResult run;
  PdshStreams streams(states);
  if (!usable.empty()) {
    std::string list;
    for (const auto& item : usable) list += (list.empty() ? "" : ",") + item;
    ProcessSpec spec;
    spec.argv = pdsh_argv(list, opts);
    spec.env_set = pdsh_env(opts);
    spec.env_unset = {"PDSH_SSH_ARGS_APPEND", "WCOLL", "PDSH_RCMD_TYPE"};
    // pdsh enforces the per-host limit (-u); this only guards against pdsh
    // itself hanging: every wave of `fanout` hosts at its worst, and slack.
    const std::size_t waves =
        (states.size() + std::max<std::size_t>(opts.fanout, 1) - 1) / std::max<std::size_t>(opts.fanout, 1);
    spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        (opts.timeout + opts.connect_timeout) * static_cast<long>(std::max<std::size_t>(waves, 1)) +
        std::chrono::seconds(10));
    spec.stdout_sink = [&streams](std::string_view data) { streams.out.feed(data); };
    spec.stderr_sink = [&streams](std::string_view data) { streams.err.feed(data); };
    run = run_process(spec);
    streams.finish();
  }

  std::vector<NodeOutcome> outcomes;
  std::set<std::string> done;
  for (const auto& host : expected) {
    if (!done.insert(host).second) continue;
    auto bad = rejected.find(host);
    if (bad != rejected.end()) {
      outcomes.push_back({host, How::Unreachable, "", bad->second, -1});
      continue;
    }
    outcomes.push_back(pdsh_outcome(host, std::move(states[host]), run, streams.unattributed, opts));
  }
  return outcomes;
}

// --- Slurm ------------------------------------------------------------------

// The private directory srun writes the per-node files into, held open so
// every file in it is opened relative to it (a path component replaced
// after creation changes nothing), and removed with its contents.
class SrunOutputDir {
 public:
  explicit SrunOutputDir(const LaunchOptions& opts);
  SrunOutputDir(const SrunOutputDir&) = delete;
  SrunOutputDir& operator=(const SrunOutputDir&) = delete;
  ~SrunOutputDir();
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
};

SrunOutputDir::SrunOutputDir(const LaunchOptions& opts) {
  std::string base = opts.scratch_dir.empty() ? "." : opts.scratch_dir;
  if (base[0] != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) base = std::string(cwd) + "/" + base;
  }
  std::string pattern = base + "/.gdrcheck-srun-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkdtemp makes a new directory, mode 0700, under a name nobody could
  // have prepared: no other user can plant or replace a task's file.
  if (!::mkdtemp(buffer.data())) {
    throw std::runtime_error("cannot create a directory in " + base + ": " + std::strerror(errno));
  }
  path_ = buffer.data();
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0 || ::fchmod(fd_, 0700) != 0) {
    std::string why = std::strerror(errno);
    ::rmdir(path_.c_str());
    throw std::runtime_error("cannot open the directory " + path_ + " just created: " + why);
  }
}

SrunOutputDir::~SrunOutputDir() {
  // Everything in it is a task's file: unlinked without being opened (a
  // link is removed, never followed).
  if (DIR* d = ::fdopendir(::dup(fd_))) {
    while (const dirent* entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlinkat(fd_, name.c_str(), 0);
    }
    ::closedir(d);
  }
  ::close(fd_);
  ::rmdir(path_.c_str());
}

// A task's output file, as far as it may be read.
struct TaskFile {
  bool found = false;
  std::string text;
  bool cut = false;         // longer than the limit
  std::size_t dropped = 0;  // bytes not read
  std::string problem;      // why it was not read ("" = read, or missing)
};

// Reads DIR/NAME without following a link, without blocking on a FIFO,
// only when it is a regular file: its first `limit` bytes, or with `tail`
// its last.
TaskFile read_task_file(int dir_fd, const std::string& name, std::size_t limit, bool tail) {
  TaskFile f;
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) {
      f.found = true;
      f.problem = errno == ELOOP ? "is a symbolic link; not followed" : std::strerror(errno);
    }
    return f;
  }
  f.found = true;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    f.problem = "not a regular file";
    ::close(fd);
    return f;
  }
  auto size = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  if (tail && size > limit && ::lseek(fd, static_cast<off_t>(size - limit), SEEK_SET) >= 0) {
    f.cut = true;
    f.dropped = size - limit;
  }
  // One byte past the limit tells a file that is longer than it.
  char buf[65536];
  while (f.text.size() <= limit) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit + 1 - f.text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) f.problem = std::strerror(errno);
    if (n <= 0) break;
    f.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (f.text.size() > limit) {
    f.text.resize(limit);
    f.cut = true;
    f.dropped = size > limit ? size - limit : 1;
  }
  return f;
}

// srun -v prints three lines of about 100 bytes per node: room for tens of
// thousands of nodes, and a bound on an srun that prints without end.
constexpr std::size_t kSrunLogLimit = 16u << 20;

// What srun (with -v) says on its stderr about each node:
//   srun: launching StepId=12.0 on host gpu01, 1 tasks: 0
//   srun: launch/slurm: _task_finish: gpu01: task 0: Completed
//   srun: error: gpu02: task 1: Exited with exit code 2
//   srun: error: gpu03: task 2: Segmentation fault (core dumped)
// With one task per node, the task id names the node's output files.
struct SrunNode {
  std::string task;  // "" when srun never said it launched there
  bool ended = false, exited = false;
  int exit_code = -1;
  std::string end_text;
};

struct SrunLog {
  std::vector<std::string> order;  // nodes in the order srun launched them
  std::map<std::string, SrunNode> nodes;
};

SrunLog read_srun_log(const std::string& err) {
  static const std::regex launching(R"(^srun: launching \S+ on host ([^, ]+), [0-9]+ tasks?: ([0-9]+))");
  static const std::regex task_end(R"(^srun: .*?([^: ]+): tasks? [0-9][0-9,\-]*: (.*)$)");
  static const std::regex exited(R"(^Exited with exit code ([0-9]+))");
  SrunLog log;
  for (const auto& line : lines_of(err)) {
    std::smatch m;
    if (std::regex_search(line, m, launching)) {
      SrunNode& node = log.nodes[m[1].str()];
      if (node.task.empty()) log.order.push_back(m[1].str());
      node.task = m[2].str();
    } else if (std::regex_match(line, m, task_end)) {
      SrunNode& node = log.nodes[m[1].str()];
      node.ended = true;
      node.end_text = m[2].str();
      std::smatch code;
      if (node.end_text == "Completed") {
        node.exited = true;
        node.exit_code = 0;
      } else if (std::regex_search(node.end_text, code, exited)) {
        node.exited = true;
        node.exit_code = std::stoi(code[1].str().substr(0, 9));
      }
    }
  }
  return log;
}

// srun's own messages, without its -v chatter: what explains a failure.
std::string srun_errors(const std::string& err) {
  std::string kept;
  for (const auto& line : lines_of(err)) {
    if (line.rfind("srun: error:", 0) == 0 || line.rfind("srun: fatal:", 0) == 0 ||
        line.rfind("srun: Job step aborted", 0) == 0 || line.rfind("srun: ", 0) != 0)
      kept += line + "\n";
  }
  return kept;
}

NodeOutcome srun_outcome(const std::string& node_name, const SrunNode& node, const SrunOutputDir& dir,
                         const ProcessResult& run, const LaunchOptions& opts) {
  if (node.task.empty()) {
    return {node_name, How::Unreachable, "",
            with_stderr("srun did not start gdrcheck on this node (srun " + run.describe() + ")", srun_errors(run.err)),
            -1};
  }
  const std::string out_name = node.task + ".out", err_name = node.task + ".err";
  TaskFile out = read_task_file(dir.fd(), out_name, kNodeReportLimit, false);
  TaskFile err = read_task_file(dir.fd(), err_name, kNodeStderrLimit, true);
  for (const auto& [file, name] : {std::pair{&out, &out_name}, std::pair{&err, &err_name}}) {
    if (!file->problem.empty())
      return {node_name, How::NotAReport, "", dir.path() + "/" + *name + ": " + file->problem, -1};
  }
  if (!out.found && !err.found) {
    return {node_name, How::Unreachable, "",
            "srun started gdrcheck here but its output file " + dir.path() + "/" + out_name +
                " is missing (the directory must be on a file system the nodes share)",
            -1};
  }
  RemoteEnd end;
  end.out = std::move(out.text);
  end.out_cut = out.cut;
  end.out_dropped = out.dropped;
  end.err = std::move(err.text);
  if (node.ended && !node.exited) {
    return {node_name, How::Crashed, std::move(end.out), with_stderr("srun: " + node.end_text, end.err), -1};
  }
  if (!node.ended) {
    end.kind = RemoteEnd::Kind::TimedOut;
    if (run.end != ProcessResult::End::TimedOut) {
      return {node_name, How::Failed, std::move(end.out),
              with_stderr("srun " + run.describe() + " before this node's gdrcheck ended", srun_errors(run.err)), -1};
    }
    return classify(node_name, std::move(end), opts.timeout);
  }
  end.kind = RemoteEnd::Kind::Exited;
  end.exit_code = node.exit_code;
  return classify(node_name, std::move(end), opts.timeout);
}

// The nodes srun should reach, when they can be known beforehand.
std::vector<std::string> expected_slurm_nodes(const LaunchOptions& opts) {
  if (!opts.slurm.nodelist.empty()) return expand_hostlist(opts.slurm.nodelist);
  const char* allocation = std::getenv("SLURM_JOB_NODELIST");
  if (opts.slurm.nodes.empty() && allocation && *allocation) return expand_hostlist(allocation);
  return {};
}

// What Slurm says of the -w nodes; empty when scontrol cannot tell (then
// srun is asked for every node, as without this step).
std::map<std::string, SlurmNodeState> slurm_node_states(const LaunchOptions& opts) {
  ProcessSpec spec = ProcessSpec::command({opts.scontrol_program, "-o", "show", "node", opts.slurm.nodelist});
  spec.timeout = std::chrono::seconds(20);
  spec.output_limit = kSrunLogLimit;
  ProcessResult r = run_process(spec);
  // scontrol exits 1 when one name is unknown but still prints the others.
  return r.end == ProcessResult::End::Exited ? parse_slurm_nodes(r.out) : std::map<std::string, SlurmNodeState>{};
}

// The options for the srun of the nodes that can take a job: -w without
// the others, and -N no larger than what is left.
LaunchOptions runnable_only(const LaunchOptions& opts, const std::vector<std::string>& runnable) {
  LaunchOptions narrowed = opts;
  narrowed.slurm.nodelist = fold_hostlist(runnable);
  if (!opts.slurm.nodes.empty()) {
    std::size_t asked = std::strtoul(opts.slurm.nodes.c_str(), nullptr, 10);
    if (asked > runnable.size()) narrowed.slurm.nodes = std::to_string(runnable.size());
  }
  return narrowed;
}

std::vector<NodeOutcome> run_srun(const LaunchOptions& opts, std::vector<std::string> expected);

std::vector<NodeOutcome> run_slurm(const LaunchOptions& opts) {
  std::vector<std::string> expected = expected_slurm_nodes(opts);
  if (opts.slurm.nodelist.empty()) return run_srun(opts, std::move(expected));
  SchedulableSplit split = split_schedulable(expected, slurm_node_states(opts));
  if (split.skipped.empty()) return run_srun(opts, std::move(expected));
  std::vector<NodeOutcome> outcomes;
  if (!split.runnable.empty()) outcomes = run_srun(runnable_only(opts, split.runnable), split.runnable);
  for (auto& s : split.skipped) outcomes.push_back(std::move(s));
  return outcomes;
}

std::vector<NodeOutcome> run_srun(const LaunchOptions& opts, std::vector<std::string> expected) {
  const SrunOutputDir dir(opts);
  ProcessSpec spec;
  spec.argv = srun_argv(opts, dir.path());
  spec.timeout = opts.timeout;
  // The nodes' output goes to files; srun's own streams are its log.
  spec.output_limit = kNodeStderrLimit;
  spec.error_limit = kSrunLogLimit;
  ProcessResult run = run_process(spec);
  SrunLog log = read_srun_log(run.err);

  std::vector<std::string> nodes = expected;
  std::set<std::string> listed(expected.begin(), expected.end());
  for (const auto& node : log.order) {
    if (listed.insert(node).second) nodes.push_back(node);
  }
  std::vector<NodeOutcome> outcomes;
  for (const auto& node : nodes) outcomes.push_back(srun_outcome(node, log.nodes[node], dir, run, opts));
  if (nodes.empty()) {
    // Nothing ran and nothing says which nodes should have: srun's own words.
    outcomes.push_back({"srun", How::Failed, std::move(run.out),
                        with_stderr("no node ran gdrcheck (srun " + run.describe() + ")", srun_errors(run.err)),
                        run.end == ProcessResult::End::Exited ? run.exit_code : -1});
  }
  return outcomes;
}

}  // namespace

std::string remote_shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string remote_command_line(const LaunchOptions& opts) {
  std::string line;
  for (const auto& word : remote_words(opts)) {
    if (!line.empty()) line += ' ';
    line += remote_shell_quote(word);
  }
  return line;
}

std::vector<std::string> ssh_argv(const std::string& host, const LaunchOptions& opts) {
  std::vector<std::string> argv = {opts.ssh_program,
                                   "-T",
                                   "-a",
                                   "-x",
                                   "-o",
                                   "BatchMode=yes",
                                   "-o",
                                   "ConnectTimeout=" + std::to_string(opts.connect_timeout.count())};
  for (const auto& option : opts.ssh_options) {
    argv.push_back("-o");
    argv.push_back(option);
  }
  if (!opts.ssh_user.empty()) {
    argv.push_back("-l");
    argv.push_back(opts.ssh_user);
  }
  argv.push_back("--");
  argv.push_back(host);
  // ssh sends one string that the remote shell parses: quote each word.
  argv.push_back(remote_command_line(opts));
  return argv;
}

std::vector<std::string> pdsh_argv(const std::string& hostlist, const LaunchOptions& opts) {
  std::vector<std::string> argv = {opts.pdsh_program,
                                   "-R",
                                   "ssh",
                                   "-w",
                                   hostlist,
                                   "-f",
                                   std::to_string(std::max<std::size_t>(opts.fanout, 1)),
                                   "-t",
                                   std::to_string(opts.connect_timeout.count()),
                                   "-u",
                                   std::to_string(opts.timeout.count())};
  if (!opts.ssh_user.empty()) {
    argv.push_back("-l");
    argv.push_back(opts.ssh_user);
  }
  argv.push_back("--");
  // pdsh hands these to ssh, which joins them for the remote shell.
  for (const auto& word : remote_words(opts)) argv.push_back(remote_shell_quote(word));
  return argv;
}

std::vector<std::pair<std::string, std::string>> pdsh_env(const LaunchOptions& opts) {
  // PDSH_SSH_ARGS replaces pdsh's default ssh arguments so that "--" comes
  // before the host; pdsh splits it at white space (see
  // launch_options_error).
  std::string args = "-T -a -x -oBatchMode=yes";
  for (const auto& option : opts.ssh_options) args += " -o" + option;
  if (!opts.ssh_user.empty()) args += " -l%u";
  args += " -- %h";
  return {{"PDSH_SSH_ARGS", args}};
}

std::vector<std::string> srun_argv(const LaunchOptions& opts, const std::string& output_dir) {
  std::vector<std::string> argv = {opts.srun_program, "--job-name=gdrcheck", "--ntasks-per-node=1"};
  if (!opts.slurm.nodes.empty()) argv.push_back("--nodes=" + opts.slurm.nodes);
  if (!opts.slurm.nodelist.empty()) argv.push_back("--nodelist=" + opts.slurm.nodelist);
  if (!opts.slurm.partition.empty()) argv.push_back("--partition=" + opts.slurm.partition);
  argv.push_back("--kill-on-bad-exit=0");
  argv.push_back("--input=none");
  // One file per task (= per node). Not --label: srun cuts lines longer
  // than 1 KiB into labelled pieces, which cannot be told from real line
  // breaks. Not %N: that is the node's host name, not its Slurm name.
  argv.push_back("--output=" + output_dir + "/%t.out");
  argv.push_back("--error=" + output_dir + "/%t.err");
  // -v makes srun say on which node it launched each task and how each
  // task ended, success included.
  argv.push_back("--verbose");
  argv.insert(argv.end(), opts.slurm.extra_args.begin(), opts.slurm.extra_args.end());
  argv.push_back("--");
  for (const auto& word : remote_words(opts)) argv.push_back(word);
  return argv;
}

std::string launch_options_error(const LaunchOptions& opts) {
  if (opts.remote_gdrcheck.empty()) return "the remote gdrcheck path is empty";
  if (opts.launcher != Launcher::Slurm && opts.hosts.empty()) return "no hosts given";
  for (const auto& option : opts.ssh_options) {
    if (option.empty() || option.find('=') == std::string::npos) return "ssh option '" + option + "' is not Key=Value";
    if (opts.launcher == Launcher::Pdsh && has_space(option))
      return "ssh option '" + option + "' holds white space, which pdsh cannot pass to ssh";
  }
  if (opts.timeout.count() <= 0) return "the timeout must be at least 1 s";
  if (opts.connect_timeout.count() <= 0) return "the connect timeout must be at least 1 s";
  if (!opts.slurm.nodelist.empty()) {
    try {
      expand_hostlist(opts.slurm.nodelist);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  }
  return "";
}

std::vector<NodeOutcome> run_on_hosts(const LaunchOptions& opts) {
  std::string problem = launch_options_error(opts);
  if (!problem.empty()) throw std::invalid_argument(problem);
  switch (opts.launcher) {
    case Launcher::Ssh:
      return run_ssh(opts);
    case Launcher::Pdsh:
      return run_pdsh(opts);
    case Launcher::Slurm:
      return run_slurm(opts);
  }
  return {};
}

}  // namespace gdrcheck

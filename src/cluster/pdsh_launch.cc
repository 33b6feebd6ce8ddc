#include "cluster/pdsh_launch.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cluster/hostlist.h"
#include "cluster/remote_end.h"
#include "host/process.h"

namespace gdrcheck::launch {
namespace {

// A pdsh host list item that pdsh would not take as a plain host name:
// '^file', '-exclusion', '/regex/', or white space (pdsh splits on it).
std::string pdsh_host_problem(const std::string& host) {
  if (host.empty()) return "empty host name";
  if (host[0] == '-' || host[0] == '^' || host[0] == '/')
    return "'" + host + "' is not a host name (pdsh reads a leading '-', '^' or '/' as an option)";
  if (host.find_first_of(" \t\r\n,") != std::string::npos)
    return "'" + host + "' is not a host name (white space or ',')";
  return "";
}

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
      NodeOutcome crashed{host, NodeOutcome::How::Crashed, std::move(end.out), with_stderr(end.detail, end.err), -1};
      return crashed;
    }
  } else if (run.end == ProcessResult::End::Signaled && !state.exit_line && !end.out.empty()) {
    // pdsh 2.34 can die by SIGSEGV as it exits, after every host ended (its
    // watchdog thread reads the host table main() is freeing:
    // src/pdsh/dsh.c:_wdog vs dsh()@pdsh-2.34). A host without a status
    // line then has an unknown exit status, but its output is whole only
    // if it ended: a node report is one JSON document, and no prefix of
    // one parses, so the cluster model's validation decides.
    NodeOutcome salvaged{host, NodeOutcome::How::Report, std::move(end.out),
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

}  // namespace

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
      outcomes.push_back({host, NodeOutcome::How::Unreachable, "", bad->second, -1});
      continue;
    }
    outcomes.push_back(pdsh_outcome(host, std::move(states[host]), run, streams.unattributed, opts));
  }
  return outcomes;
}

}  // namespace gdrcheck::launch

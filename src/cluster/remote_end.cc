#include "cluster/remote_end.h"

#include <cstring>
#include <regex>
#include <sstream>

#include "cluster/launcher.h"

namespace gdrcheck::launch {

using How = NodeOutcome::How;

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
std::string tail_of(const std::string& err, std::size_t count) {
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

}  // namespace gdrcheck::launch

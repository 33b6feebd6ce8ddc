// How a command started on a remote host ended, whichever launcher (ssh,
// pdsh, srun) started it, turned into a NodeOutcome by one set of rules
// (docs/cluster.md, "How each host ended"); and the bounded text helpers
// the launchers share for what hosts print.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/node_result.h"
#include "host/process.h"

namespace gdrcheck::launch {

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
inline constexpr std::size_t kMaxDiagnosticLine = 4096;

std::string_view without_cr(std::string_view line);
// The lines of a text, each without its CR and cut to kMaxDiagnosticLine.
std::vector<std::string> lines_of(const std::string& text);
// Keeps the last `limit` bytes of a text.
void trim_tail(std::string& text, std::size_t limit);
// Appends to a text kept to about its last `limit` bytes (trim_tail
// finishes it).
void append_tail(std::string& text, std::string_view more, std::size_t limit);
// Appends to a text kept to its first `limit` bytes; true when something
// did not fit (`dropped` counts what did not).
bool append_head(std::string& text, std::string_view more, std::size_t limit, std::size_t& dropped);
// The last `count` non-empty lines of stderr, joined with " | ".
std::string tail_of(const std::string& err, std::size_t count = 3);
// `reason`, then ": " and the tail of stderr when there is one.
std::string with_stderr(std::string reason, const std::string& err);

// The outcome for `host` of a remote command that ended as `end`.
NodeOutcome classify(const std::string& host, RemoteEnd end, std::chrono::seconds timeout);
// A launcher process's result as a RemoteEnd (`launcher` names it in messages).
RemoteEnd remote_end_of(ProcessResult&& result, const std::string& launcher);

}  // namespace gdrcheck::launch

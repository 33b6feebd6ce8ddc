// The real `promtool` (Debian package "prometheus") as the judge of every
// exposition and rules file gdrcheck writes. A machine without it skips
// these checks with a message saying so; nothing is judged by a copy of
// the format's rules written here. Also what the exposition tests share:
// their stamp and a whole-line lookup.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "host/process.h"
#include "report/prometheus_text.h"

namespace gdrcheck {

inline std::string promtool_path() {
  return find_in_path("promtool");
}

// `promtool ARGS...` with `stdin_text`; the result as it ended.
inline ProcessResult run_promtool(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  ProcessSpec spec = ProcessSpec::command({promtool_path()});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdin_text = stdin_text;
  spec.timeout = std::chrono::seconds(60);
  return run_process(spec);
}

// `promtool check metrics` accepts `text` with no problem and no lint
// complaint.
inline ::testing::AssertionResult promtool_accepts_metrics(const std::string& text) {
  ProcessResult r = run_promtool({"check", "metrics"}, text);
  if (r.succeeded() && r.out.empty() && r.err.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "promtool check metrics: " << r.describe() << "\n"
                                       << r.out << r.err << "\n--- input ---\n"
                                       << text;
}

// What promtool does not check: no series twice, no family's # HELP or
// # TYPE twice. A sample line is "series value"; label values never hold a
// raw space-free line break, so the last space ends the series.
inline ::testing::AssertionResult series_unique(const std::string& text) {
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    std::string key = line.rfind("# ", 0) == 0 ? line.substr(0, line.find(' ', line.find(' ', 2) + 1))
                                               : line.substr(0, line.rfind(' '));
    if (!seen.insert(key).second) return ::testing::AssertionFailure() << "twice: " << key << "\n" << text;
  }
  return ::testing::AssertionSuccess();
}

// The stamp the exposition tests write with.
inline const PrometheusStamp kTestStamp{"0.1.0", 1700000000};

// `line` is a whole line of `text`, not its first (an exposition starts
// with a # HELP line).
inline bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

#define GDRCHECK_SKIP_WITHOUT_PROMTOOL()                                                        \
  if (::gdrcheck::promtool_path().empty())                                                      \
  GTEST_SKIP() << "promtool not found in PATH (Debian package \"prometheus\"): the exposition " \
                  "is not validated on this machine"

}  // namespace gdrcheck

// Running the real gdrcheck binary on hostile input, and what every such run
// must show. The binary runs as a separate process (fork/exec, its own
// process group) under a wall-clock timeout and an address-space limit, so
// a hang, a crash or a runaway allocation is a failed assertion, never a
// stuck or killed test binary. Each test works in a fresh HostileDir: its
// inputs below `in()`, and a canary file with a random token beside them,
// outside every input, whose bytes must never reach the output.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace gdrcheck::testing {

struct HostileSpec {
  // A spec with only the arguments set (aggregate initialisation with some
  // fields trips -Wmissing-field-initializers).
  static HostileSpec command(std::vector<std::string> args) {
    HostileSpec spec;
    spec.args = std::move(args);
    return spec;
  }

  std::vector<std::string> args;  // after the binary's own path
  std::string stdin_text;         // written to stdin through a pipe, which is then closed
  std::string working_dir;        // "" = the test's
  std::chrono::seconds timeout{20};
  std::vector<std::pair<std::string, std::string>> env_set;
  // Programs run in front of the binary, e.g. {"strace", "-f", ...}.
  std::vector<std::string> wrapper;
};

struct HostileResult {
  int exit_code = -1;  // -1 unless the process exited
  int signal = 0;      // the signal that ended it, 0 when it exited
  bool timed_out = false;
  std::string start_error;  // the process could not be started
  std::string out, err;     // at most kHostileOutputKept bytes each
  long peak_rss_kib = 0;    // ru_maxrss of the process (and waited-for children)
  std::chrono::milliseconds elapsed{0};
  // What the run left in its own TMPDIR (a private directory each run gets,
  // removed afterwards): a temporary file gdrcheck did not clean up.
  std::vector<std::string> temp_left;

  // "exit 3", "signal 11", "timed out", for messages.
  std::string describe() const;
};

inline constexpr std::size_t kHostileOutputKept = 16u << 20;

// The binary under test: $GDRCHECK_HOSTILE_BINARY when set, else the one the
// build names (GDRCHECK_BINARY).
std::string hostile_binary();

// Runs hostile_binary() with spec.args. RLIMIT_AS is 4 GiB unless the build
// uses AddressSanitizer (which reserves terabytes of shadow memory) or
// $GDRCHECK_HOSTILE_NO_AS_LIMIT is set.
HostileResult run_hostile(const HostileSpec& spec);
inline HostileResult run_hostile(std::vector<std::string> args) {
  return run_hostile(HostileSpec::command(std::move(args)));
}

// A fresh directory /tmp/hostile-XXXXXX (never "gdrcheck-*": the tests look
// for files the binary leaves there under that name) holding `canary` (a
// file with a random token) and `in/`, where the inputs go. Removed (without
// following links) on destruction.
class HostileDir {
 public:
  HostileDir();
  ~HostileDir();
  HostileDir(const HostileDir&) = delete;
  HostileDir& operator=(const HostileDir&) = delete;

  const std::string& base() const { return base_; }
  std::string in() const { return base_ + "/in"; }
  std::string canary_path() const { return base_ + "/canary"; }
  const std::string& token() const { return token_; }

  // Writes `text` to in()/relative (parents created) and returns the path.
  std::string write(const std::string& relative, const std::string& text) const;
  // A FIFO at `path` (an existing file there is removed first).
  static void make_fifo(const std::string& path);
  // A symbolic link at `path` to `target` (an existing file is removed first).
  static void make_link(const std::string& path, const std::string& target);

 private:
  std::string base_, token_;
};

// Every entry below `dir` (not following links): path -> type, size, mtime
// and inode, for "nothing created or modified here" assertions.
using TreeSnapshot = std::map<std::string, std::string>;
TreeSnapshot snapshot_tree(const std::string& dir);
// "" when equal; else the first paths that differ.
std::string tree_difference(const TreeSnapshot& before, const TreeSnapshot& after);

// What every run on hostile input must show, whatever the input: it ended
// by itself (no signal, no timeout), no sanitizer report, no byte of the
// canary's token, and nothing on stdout or stderr a terminal would act on
// (colour is off on a pipe, so no ESC at all).
::testing::AssertionResult ran_safely(const HostileResult& r, const HostileDir& dir);

// ran_safely, a non-zero exit and `file` named in stderr: input the binary
// must refuse, saying which file.
::testing::AssertionResult refused_naming(const HostileResult& r, const HostileDir& dir, const std::string& file);

// Builds the example root (tests/data/nodes/dgx-h100.json, the node the
// binary shows on a machine without GPUs) at `dest`, which must not exist.
void build_example_root(const std::string& dest);

// The random token as hex, 16 bytes from /dev/urandom.
std::string random_token();

}  // namespace gdrcheck::testing

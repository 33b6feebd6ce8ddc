// The one way gdrcheck starts other programs (mpirun, srun, ssh, pdsh,
// nccl-tests, perftest): an argument vector, never a shell string, so a
// host name like "a;rm -rf /" is only ever an argument. The child gets the
// three standard streams and no other descriptor. Output is captured up to
// a limit per stream (and optionally written to a file as it arrives, so a
// run that hangs still leaves its output behind), a timeout kills the whole
// process group, a descendant that keeps the output open after the child
// ended is killed (or abandoned) after a grace period, and every way a run
// can end is a value, not an exception. Each child's group is recorded
// while it runs (host/child_groups.h), so that gdrcheck stopping on
// Ctrl-C, SIGTERM or SIGHUP ends it too (host/termination.h); once a stop
// has begun, run_process starts nothing and returns nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gdrcheck {

struct ProcessSpec {
  // A spec with only the argument vector set (aggregate initialisation
  // with one field trips -Wmissing-field-initializers).
  static ProcessSpec command(std::vector<std::string> argv) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    return spec;
  }

  // argv[0] is looked up in PATH when it has no '/'.
  std::vector<std::string> argv;
  // Set (or overridden) on top of this process's environment.
  std::vector<std::pair<std::string, std::string>> env_set;
  // Removed from the environment the child gets.
  std::vector<std::string> env_unset;
  std::string stdin_text;   // written to the child's stdin, which is then closed
  std::string working_dir;  // "" = this process's
  // Zero: no limit. On expiry the process group gets SIGTERM, then SIGKILL
  // after `kill_grace`.
  std::chrono::milliseconds timeout{0};
  std::chrono::milliseconds kill_grace{2000};
  // Bytes of stdout kept in ProcessResult::out; the rest is counted in
  // out_dropped (and still written to output_file). A child's output is
  // data from elsewhere: without a bound, a flooding child would take the
  // memory of the machine running gdrcheck.
  std::size_t output_limit = 64u << 20;
  // The same for stderr. With `keep_error_tail` the last `error_limit`
  // bytes are kept instead of the first: launchers explain a failure with
  // their final lines.
  std::size_t error_limit = 64u << 20;
  bool keep_error_tail = false;
  // When stdout passes output_limit the process group is ended as on a
  // timeout (SIGTERM, then SIGKILL): output that is already known to be
  // unusable is not waited for.
  bool stop_at_output_limit = false;
  // When set, each stream's bytes are handed here as they arrive instead of
  // being kept in out/err (the limits above then do not apply): for output
  // that interleaves several sources and is split as it is read.
  std::function<void(std::string_view)> stdout_sink, stderr_sink;
  // stderr goes into `out` (and the file) interleaved with stdout.
  bool merge_stderr = false;
  // When set, stdout (and merged stderr) is also written here as it
  // arrives. The file is created; an existing file is never overwritten
  // (the run does not start; start_error says why).
  std::string output_file;
};

struct ProcessResult {
  enum class End { Exited, Signaled, TimedOut, NotStarted };
  End end = End::NotStarted;
  int exit_code = -1;       // End::Exited
  int signal = 0;           // End::Signaled (and the signal that ended a timed-out run)
  std::string start_error;  // End::NotStarted: "mpirun: not found in PATH", ...
  std::string out, err;
  bool out_truncated = false, err_truncated = false;
  std::size_t out_dropped = 0, err_dropped = 0;  // bytes read but not kept
  bool stopped_at_output_limit = false;          // the group was ended for stop_at_output_limit
  std::chrono::milliseconds elapsed{0};

  bool succeeded() const { return end == End::Exited && exit_code == 0; }
  // "exit status 3", "killed by signal 11 (SIGSEGV)", "timed out after 30 s",
  // "could not start: ...".
  std::string describe() const;
};

ProcessResult run_process(const ProcessSpec& spec);

// Runs every spec with at most `parallel` running at once (at least 1).
// Results come back in the order of `specs`. `on_done(i, result)`, when
// given, is called as each run ends (from the caller's thread, one at a
// time), e.g. for progress output.
std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs, std::size_t parallel,
                                         const std::function<void(std::size_t, const ProcessResult&)>& on_done = {});

// The full path of `program` in PATH (or `program` itself when it has a
// '/' and is executable); "" when not found.
std::string find_in_path(const std::string& program);

}  // namespace gdrcheck

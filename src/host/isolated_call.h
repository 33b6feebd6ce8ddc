// Runs a piece of work in a forked copy of this process first, so that a
// crash or endless loop inside a library we cannot fix (hwloc 2.9's XML
// importers segfault on some malformed documents; its sysfs reader spins on
// a device file) ends a throwaway child instead of gdrcheck. The caller
// repeats the work in-process only when the child finished it cleanly: the
// same code on the same bytes behaves the same way. When the work refuses
// its input (an InputError), the refusal itself comes back, so the caller
// can report it without running the failing work a second time.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "topology/input_error.h"

namespace gdrcheck {

struct IsolatedEnd {
  enum class Kind { Finished, Failed, Crashed, TimedOut, NotStarted };
  Kind kind = Kind::NotStarted;
  int signal = 0;      // Crashed: the signal that ended the child (0: it exited)
  int exit_code = 0;   // Crashed without a signal: the child's unexpected exit status
  std::string detail;  // NotStarted: why fork failed
  // Failed: the InputError the work threw, when it threw one whose file
  // and problem fit in kMaxReturnedInputError bytes (else only Failed).
  std::optional<InputError> input_error;

  bool finished() const { return kind == Kind::Finished; }
  // "crashed (signal 11, SIGSEGV)", "did not finish within 20 s", ...
  std::string describe() const;
};

// At most this much of a refusal (file and problem) travels back from the
// child: less than the 4 KiB a pipe holds even when the system is short of
// pipe buffers, so the child never blocks on writing it.
inline constexpr std::size_t kMaxReturnedInputError = 4000;

// Forks; the child runs `work` and exits 0 when it returns, and a code of
// its own when it throws (Failed; an InputError is sent back through a
// pipe). Any other end is Crashed: a sanitizer that catches a fault in the
// child reports it and exits 1 instead of dying by the signal. The child
// gets a CPU-time limit equal to `limit` and is killed when the wall clock
// passes it. The child writes nothing: stdout and stderr are redirected to
// /dev/null so a partial report never reaches the user twice.
IsolatedEnd run_isolated(const std::function<void()>& work, std::chrono::milliseconds limit);

}  // namespace gdrcheck

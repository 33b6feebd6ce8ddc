#include "host/isolated_call.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <string>

namespace gdrcheck {
namespace {

using namespace std::chrono_literals;

TEST(IsolatedCall, WorkThatReturnsFinished) {
  IsolatedEnd end = run_isolated([] {}, 5s);
  EXPECT_TRUE(end.finished()) << end.describe();
}

TEST(IsolatedCall, WorkThatThrowsFailed) {
  IsolatedEnd end = run_isolated([] { throw std::runtime_error("bad input"); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Failed);
  EXPECT_FALSE(end.finished());
  EXPECT_FALSE(end.input_error.has_value());
}

// A refusal comes back whole, so the caller reports it without running
// the failing work again.
TEST(IsolatedCall, AnInputErrorComesBackWithItsFileAndProblem) {
  IsolatedEnd end = run_isolated([] { throw InputError("/srv/roots/gpu07", "hwloc could not read a topology"); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Failed);
  ASSERT_TRUE(end.input_error.has_value());
  EXPECT_EQ(end.input_error->file(), "/srv/roots/gpu07");
  EXPECT_EQ(end.input_error->problem(), "hwloc could not read a topology");
}

TEST(IsolatedCall, AnEmptyFileNameAndBytesOfAnyKindComeBack) {
  const char raw[] = "line\nwith \0 NUL and \xff";
  std::string problem(raw, sizeof raw - 1);
  IsolatedEnd end = run_isolated([&] { throw InputError("", problem); }, 5s);
  ASSERT_TRUE(end.input_error.has_value());
  EXPECT_EQ(end.input_error->file(), "");
  EXPECT_EQ(end.input_error->problem(), problem);
}

// Any other exception is only "failed": the caller repeats the work so
// that the exception surfaces as itself.
TEST(IsolatedCall, AnotherExceptionCarriesNoInputError) {
  IsolatedEnd end = run_isolated([] { throw std::runtime_error("a bug"); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Failed);
  EXPECT_FALSE(end.input_error.has_value());
}

// A refusal too long to travel in one pipe write is only "failed", never a
// truncated message; the child still ends at once.
TEST(IsolatedCall, ARefusalTooLongToReturnIsOnlyFailed) {
  auto start = std::chrono::steady_clock::now();
  std::string file(kMaxReturnedInputError, 'r');
  IsolatedEnd end = run_isolated([&] { throw InputError(file, "too long"); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Failed);
  EXPECT_FALSE(end.input_error.has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(IsolatedCall, TheLongestRefusalThatFitsComesBack) {
  std::string problem(kMaxReturnedInputError - 4 - 3, 'p');
  IsolatedEnd end = run_isolated([&] { throw InputError("a/b", problem); }, 5s);
  ASSERT_TRUE(end.input_error.has_value());
  EXPECT_EQ(end.input_error->problem(), problem);
}

TEST(IsolatedCall, CrashInTheChildIsReportedNotInherited) {
  IsolatedEnd end = run_isolated([] { std::raise(SIGSEGV); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Crashed);
  // Under AddressSanitizer its handler reports the fault and exits 1.
  if (end.signal != 0) {
    EXPECT_EQ(end.signal, SIGSEGV);
    EXPECT_NE(end.describe().find("SIGSEGV"), std::string::npos) << end.describe();
  } else {
    EXPECT_EQ(end.exit_code, 1) << end.describe();
  }
}

// A sanitizer reports a fault and exits 1: that is a crash too, never
// "failed with our own error".
TEST(IsolatedCall, AnUnexpectedExitIsACrash) {
  IsolatedEnd end = run_isolated([] { ::_exit(1); }, 5s);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::Crashed);
  EXPECT_EQ(end.exit_code, 1);
  EXPECT_EQ(end.describe(), "crashed (exit status 1)");
}

TEST(IsolatedCall, EndlessLoopIsStoppedAtTheLimit) {
  auto start = std::chrono::steady_clock::now();
  IsolatedEnd end = run_isolated(
      [] {
        volatile unsigned long spins = 0;
        for (;;) spins = spins + 1u;
      },
      300ms);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::TimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// A child that waits rather than spins uses no CPU time, so only the
// parent's wall-clock deadline can end it.
TEST(IsolatedCall, BlockedChildIsStoppedAtTheLimit) {
  auto start = std::chrono::steady_clock::now();
  IsolatedEnd end = run_isolated([] { ::pause(); }, 300ms);
  EXPECT_EQ(end.kind, IsolatedEnd::Kind::TimedOut);
  EXPECT_EQ(end.signal, SIGKILL);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(IsolatedCall, ChildStateDoesNotReachTheParent) {
  int value = 1;
  IsolatedEnd end = run_isolated([&] { value = 2; }, 5s);
  EXPECT_TRUE(end.finished());
  EXPECT_EQ(value, 1);
}

}  // namespace
}  // namespace gdrcheck

// Error messages quote file names, file contents and option values: on
// stderr they are one escaped line, whatever those held.
#include "cli/command_errors.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <sstream>

#include "cli/exit_codes.h"
#include "terminal_checks.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using testing::kHostile;
using testing::kHostileShown;
using testing::terminal_offence;

// stderr as a string while `body` runs.
std::string captured_stderr(const std::function<void()>& body) {
  std::ostringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  body();
  std::cerr.rdbuf(old);
  return err.str();
}

TEST(CommandErrors, InputErrorIsOneEscapedLine) {
  int code = -1;
  std::string err = captured_stderr([&] {
    code = run_reporting_errors("topo", [&]() -> int { throw InputError("/tmp/" + kHostile, "line 3: " + kHostile); });
  });
  EXPECT_EQ(code, kExitUnknown);
  EXPECT_EQ(terminal_offence(err, false), "") << err;
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;  // one line
  EXPECT_EQ(err.rfind("gdrcheck topo: /tmp/evil\\x1b]0;pwned\\x07", 0), 0u) << err;
  for (const auto& shown : kHostileShown) EXPECT_NE(err.find(shown), std::string::npos) << shown << " in " << err;
}

TEST(CommandErrors, ValidationErrorIsEscaped) {
  int code = -1;
  std::string err = captured_stderr([&] {
    code = run_reporting_errors("cluster", [&]() -> int { throw CLI::ValidationError("--from " + kHostile); });
  });
  EXPECT_EQ(code, kExitUsage);
  EXPECT_EQ(terminal_offence(err, false), "") << err;
  EXPECT_NE(err.find("\\x1b[2J"), std::string::npos) << err;
}

TEST(CommandErrors, PlainMessageUnchanged) {
  std::string err = captured_stderr(
      [&] { run_reporting_errors("node", []() -> int { throw InputError("/x/Ménage.xml", "not a topology"); }); });
  EXPECT_EQ(err, "gdrcheck node: /x/Ménage.xml: not a topology\n");
}

}  // namespace
}  // namespace gdrcheck

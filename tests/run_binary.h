// Runs the gdrcheck binary through the process runner (argument vector, no
// shell) and captures its exit code, stdout and stderr, for end-to-end
// tests of the CLI.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

RunResult run_gdrcheck(const std::vector<std::string>& args, const std::string& stdin_text = "");

}  // namespace gdrcheck::testing

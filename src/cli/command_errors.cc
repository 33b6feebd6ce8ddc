#include "cli/command_errors.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/exit_codes.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"

namespace gdrcheck {

// Both messages quote what the user gave or a file held (a file name, a
// line of it, an option value): they reach the terminal escaped, on one
// line (report/terminal_text.h).
int run_reporting_errors(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "gdrcheck " << command << ": " << safe_line(e.what()) << "\n";
    return kExitUnknown;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "gdrcheck " << command << ": " << safe_line(e.what()) << "\n";
    return kExitUsage;
  }
}

}  // namespace gdrcheck

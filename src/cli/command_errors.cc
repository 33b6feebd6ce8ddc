#include "cli/command_errors.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <stdexcept>

#include "cli/exit_codes.h"
#include "host/root.h"
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
  } catch (const std::runtime_error& e) {
    // An output that could not be written ("cannot write PATH: ..."): the
    // run did not do what was asked, so it is not OK; never an abort.
    std::cerr << "gdrcheck " << command << ": " << safe_line(e.what()) << "\n";
    return kExitUnknown;
  }
}

void require_recorded_root(const std::string& dir) {
  if (std::string problem = recorded_root_problem(dir); !problem.empty()) throw InputError(dir, problem);
}

}  // namespace gdrcheck

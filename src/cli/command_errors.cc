#include "cli/command_errors.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/exit_codes.h"
#include "topology/input_error.h"

namespace gdrcheck {

int run_reporting_errors(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "gdrcheck " << command << ": " << e.what() << "\n";
    return kExitUnknown;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "gdrcheck " << command << ": " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace gdrcheck

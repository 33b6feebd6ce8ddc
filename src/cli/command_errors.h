// The errors every command turns into a message and an exit code the same
// way: a file the user named that cannot be used (InputError) is
// "gdrcheck CMD: FILE: problem" and exit 3; options that do not go together
// (CLI::ValidationError) are "gdrcheck CMD: problem" and exit 64.
#pragma once

#include <functional>
#include <string>

namespace gdrcheck {

int run_reporting_errors(const std::string& command, const std::function<int()>& body);

}  // namespace gdrcheck

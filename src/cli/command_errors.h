// The errors every command turns into a message and an exit code the same
// way: a file the user named that cannot be used (InputError) is
// "gdrcheck CMD: FILE: problem" and exit 3; options that do not go together
// (CLI::ValidationError) are "gdrcheck CMD: problem" and exit 64; an output
// that cannot be written (std::runtime_error) is "gdrcheck CMD: problem" and
// exit 3.
#pragma once

#include <functional>
#include <string>

namespace gdrcheck {

int run_reporting_errors(const std::string& command, const std::function<int()>& body);

// Throws InputError(dir, …) when `dir`, given as --root, has no sys/ and so
// stands for no host (host/root.h: recorded_root_problem), with the path
// the user probably meant.
void require_recorded_root(const std::string& dir);

}  // namespace gdrcheck

// Subcommands. Each registers its options on the CLI11 app and returns the
// function that runs it once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace gdrcheck {

using CommandRun = std::function<int()>;

// `gdrcheck topo`.
CommandRun add_topo_command(CLI::App& app);

// The first-run default: topo of this machine, and when it has no NVIDIA GPU,
// the same report for the bundled example so the output is useful anyway.
int run_default(const std::string& data_dir);

}  // namespace gdrcheck

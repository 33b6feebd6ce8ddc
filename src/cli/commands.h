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
// `gdrcheck topo FILE` with default options (the first-run example).
int run_topo_file(const std::string& file);

// `gdrcheck node`.
CommandRun add_node_command(CLI::App& app);
// `gdrcheck node --root DIR` with default options.
int run_node_on(const std::string& root_dir);

// `gdrcheck analyze`.
CommandRun add_analyze_command(CLI::App& app);

// `gdrcheck bench nccl|rdma`.
CommandRun add_bench_command(CLI::App& app);

// `gdrcheck cluster`.
CommandRun add_cluster_command(CLI::App& app);

// Plain `gdrcheck`: `node` on this machine; when it has no NVIDIA GPU it
// says so and checks the bundled example root, so the first run is useful.
int run_default(const std::string& example_root);

}  // namespace gdrcheck

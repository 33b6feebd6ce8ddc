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

// `gdrcheck snapshot`.
CommandRun add_snapshot_command(CLI::App& app);

// `gdrcheck gds`.
CommandRun add_gds_command(CLI::App& app);

// `gdrcheck cluster`.
CommandRun add_cluster_command(CLI::App& app);

// `gdrcheck demo`: the node check of the bundled example root; exit 0 when
// it runs (the example's verdict is not this machine's), 3 when it cannot.
// `example_root` is where the build made it; an installed copy beside the
// binary comes first (cli/example_root.h), looked up only when shown.
CommandRun add_demo_command(CLI::App& app, const std::string& example_root);
int run_demo(const std::string& example_root);

// Plain `gdrcheck`: `node` on this machine. Without an NVIDIA GPU (and
// without the NVIDIA driver) it says so and exits 3 (UNKNOWN); on a
// terminal it also shows the bundled example, labelled as such.
int run_default(const std::string& example_root);

}  // namespace gdrcheck

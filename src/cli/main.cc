// gdrcheck: is GPUDirect RDMA really on the data path, on every GPU of
// every node — and if not, why, and what is the fix?
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"

int main(int argc, char** argv) {
  CLI::App app{"gdrcheck " GDRCHECK_VERSION " — proves GPUDirect RDMA is active and correctly routed"};
  app.set_version_flag("--version", "gdrcheck " GDRCHECK_VERSION);
  app.require_subcommand(0, 1);
  gdrcheck::CommandRun node = gdrcheck::add_node_command(app);
  gdrcheck::CommandRun topo = gdrcheck::add_topo_command(app);
  gdrcheck::CommandRun analyze = gdrcheck::add_analyze_command(app);
  gdrcheck::CommandRun cluster = gdrcheck::add_cluster_command(app);
  gdrcheck::CommandRun bench = gdrcheck::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return gdrcheck::kExitUsage;
  }
  if (app.got_subcommand("node")) return node();
  if (app.got_subcommand("topo")) return topo();
  if (app.got_subcommand("analyze")) return analyze();
  if (app.got_subcommand("cluster")) return cluster();
  if (app.got_subcommand("bench")) return bench();
  return gdrcheck::run_default(GDRCHECK_EXAMPLE_ROOT);
}

// gdrcheck: is GPUDirect RDMA really on the data path, on every GPU of
// every node — and if not, why, and what is the fix?
#include <CLI/CLI.hpp>
#include <iostream>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "host/termination.h"
#include "report/check_list_text.h"
#include "report/output_style.h"
#include "report/report_meta.h"

// What a report written by this build says about itself: the schemas of
// its documents and the NCCL releases whose rules it follows.
std::string version_text() {
  return "gdrcheck " GDRCHECK_VERSION
         "\nschemas: gdrcheck.node/1 gdrcheck.topo/1 gdrcheck.analyze/1 gdrcheck.cluster/1 gdrcheck.bench/1 "
         "gdrcheck.manifest/1 gdrcheck.bandwidth/1 gdrcheck.policy/1 gdrcheck.snapshot/1 gdrcheck.gds/1\nNCCL rules: " +
         gdrcheck::modelled_nccl_rules();
}

int main(int argc, char** argv) {
  // Before anything can start a child: a stop must reach every program gdrcheck runs.
  gdrcheck::install_termination_handlers();
  CLI::App app{"gdrcheck " GDRCHECK_VERSION " — proves GPUDirect RDMA is active and correctly routed"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(0, 1);
  bool list_checks = false;
  app.add_flag("--list-checks", list_checks, "list every check: its id, the statuses it gives, what it looks at");
  // One line per subcommand: its name and the function that runs it.
  const std::vector<std::pair<std::string, gdrcheck::CommandRun>> commands = {
      {"node", gdrcheck::add_node_command(app)},
      {"topo", gdrcheck::add_topo_command(app)},
      {"analyze", gdrcheck::add_analyze_command(app)},
      {"cluster", gdrcheck::add_cluster_command(app)},
      {"bench", gdrcheck::add_bench_command(app)},
      {"demo", gdrcheck::add_demo_command(app, GDRCHECK_EXAMPLE_ROOT)},
      {"snapshot", gdrcheck::add_snapshot_command(app)},
      {"gds", gdrcheck::add_gds_command(app)},
  };
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
  if (list_checks) {
    std::cout << gdrcheck::render_check_list(gdrcheck::stdout_output_style(gdrcheck::ColorChoice::Never));
    return gdrcheck::kExitOk;
  }
  for (const auto& [name, run] : commands)
    if (app.got_subcommand(name)) return run();
  return gdrcheck::run_default(GDRCHECK_EXAMPLE_ROOT);
}

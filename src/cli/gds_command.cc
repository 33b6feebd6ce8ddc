// `gdrcheck gds`: GPUDirect Storage readiness of this node (or a recorded
// root): the nvidia-fs driver route and the cuFile configuration so far
// (docs/gds.md says what is checked and what is still to come).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "checks/gds_report.h"
#include "checks/node_evidence.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/gds_gdscheck.h"
#include "cli/gds_watch.h"
#include "host/gds_state.h"
#include "host/host_state.h"
#include "report/gds_json.h"
#include "report/gds_text.h"
#include "report/json_text.h"
#include "snapshot/snapshot_root.h"
#include "topology/input_error.h"
#include "topology/path_matrix.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

struct GdsCliOptions {
  std::string root = "/";
  bool json = false;
  std::vector<std::string> env;  // CUFILE_ENV_PATH_JSON=... as the job has it
  GdsWatchCliOptions watch;      // --watch -- COMMAND
  std::string path;              // --path DIR: the data directory whose mount is judged
  std::string gdscheck;          // --gdscheck FILE: gdscheck -p output to cross-check with the files
};

// --path inside the root: absolute (a relative path on this machine is
// taken from the working directory), and it must exist there, or the user
// meant another path.
std::string data_path(const GdsCliOptions& o, const Root& root) {
  if (o.path.empty()) return "";
  std::string p = o.path;
  if (p[0] != '/') {
    if (!root.is_live()) throw InputError(o.path, "--path must be absolute inside the root " + root.dir());
    p = std::filesystem::absolute(p).lexically_normal().string();
  }
  if (!root.exists(p)) throw InputError(o.path, root.is_live() ? "not found" : "not found in the root " + root.dir());
  return p;
}

// CUFILE_ENV_PATH_JSON: --env first, else this process's environment when
// checking this machine (a recorded root's job environment is not known).
GdsReadOptions gds_command_read_options(const GdsCliOptions& o) {
  GdsReadOptions r;
  for (const auto& kv : o.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--env", "'" + kv + "' is not NAME=VALUE");
    if (kv.substr(0, eq) != "CUFILE_ENV_PATH_JSON")
      throw CLI::ValidationError("--env", "'" + kv.substr(0, eq) + "': gds reads CUFILE_ENV_PATH_JSON only");
    r.cufile_env_path = kv.substr(eq + 1);
  }
  if (!r.cufile_env_path && o.root == "/")
    if (const char* v = std::getenv("CUFILE_ENV_PATH_JSON")) r.cufile_env_path = v;
  return r;
}

// The report, with the drives judged against the GPUs: the node's topology
// and the host files of its PCI functions (ACS, IOMMU groups, links), read
// as `node` reads them.
GdsReport gds_report(const std::string& root, const GdsState& g) {
  const std::string host = read_hostname(Root(root)).value.value_or("unknown");
  if (g.nvidia_gpus && *g.nvidia_gpus == 0) return build_gds_report(g, host);  // gds.gpu says it all
  Topology t = load_topology_root(root);
  name_nvme_endpoints(t, g.nvme_controllers);
  HostReadOptions ho;
  ho.run_nvidia_smi = false;  // nothing here needs it
  HostState h = read_host_state(Root(root), pci_functions(t), ho);
  TopologyPaths paths = compute_paths(t);
  const std::vector<GdrPrediction> no_predictions;
  NodeEvidence e{t, paths, h, no_predictions, NcclVersion{}, nullptr, nullptr, "sysfs", {}, false, false};
  return build_gds_report(g, host, &e);
}

int run_gds(const GdsCliOptions& o) {
  return run_reporting_errors("gds", [&]() -> int {
    GdsReadOptions ro = gds_command_read_options(o);
    std::optional<ExtractedRoot> unpacked;  // a snapshot tarball, unpacked for this run
    const std::string root = resolve_root_argument(o.root, unpacked);
    if (root != "/") require_recorded_root(root);
    validate_gds_watch(o.watch, unpacked.has_value());
    ro.path = data_path(o, Root(root));
    std::optional<GdscheckInput> gdscheck;  // read before the watched command runs: a wrong file stops here
    if (!o.gdscheck.empty()) gdscheck = read_gdscheck_input(o.gdscheck);
    std::optional<GdsWatch> watched;  // the command runs once every option has been checked
    if (o.watch.watch) watched = run_gds_watch(o.watch, Root(root), o.json);
    GdsState g = read_gds_state(Root(root), ro);
    GdsReport r = gds_report(root, g);
    if (unpacked) r.root = o.root;
    if (watched) append_gds_watch(r, std::move(*watched));
    if (gdscheck) append_gdscheck_crosscheck(r, g, *gdscheck);
    if (o.json)
      std::cout << json_text(gds_json(r)) << "\n";
    else
      std::cout << render_gds_text(r);
    return exit_code(r.status);
  });
}

}  // namespace

CommandRun add_gds_command(CLI::App& app) {
  auto o = std::make_shared<GdsCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gds", "GPUDirect Storage: the nvidia-fs driver route and the cuFile configuration of this node (or a root)");
  cmd->add_option("--root", o->root, "directory (or snapshot .tar.gz) standing for /; default: this machine");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.gds/1)");
  cmd->add_option("--path", o->path, "judge the mount that holds this data directory (inside the root)");
  cmd->add_option("--gdscheck", o->gdscheck, "cross-check this gdscheck -p output (- for stdin) with the files");
  cmd->add_option("--env", o->env, "CUFILE_ENV_PATH_JSON=PATH as the job has it (a path inside the root)");
  add_gds_watch_options(cmd, o->watch);
  return [o] { return run_gds(*o); };
}

}  // namespace gdrcheck

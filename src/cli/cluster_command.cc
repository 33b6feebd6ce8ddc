// `gdrcheck cluster`: the passive node check on every node, and the
// cluster as a whole — a table of nodes × checks, the summary, the
// outliers, and the Slurm drain commands. Reports come from a launcher
// (src/cluster/launcher.h) or from a directory collected earlier (--from).
#include <filesystem>
#include <iostream>
#include <memory>

#include "checks/manifest.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/launcher_options.h"
#include "cli/manifest_file.h"
#include "cluster/cluster_model.h"
#include "cluster/cluster_verdict.h"
#include "cluster/drain.h"
#include "cluster/launcher.h"
#include "cluster/report_dir.h"
#include "cluster/report_store.h"
#include "host/root.h"
#include "report/cluster_json.h"
#include "report/cluster_text.h"
#include "report/json_text.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

struct ClusterCliOptions {
  std::string from, save, manifest, threshold;
  std::string remote_gdrcheck = "gdrcheck";
  std::string scontrol = "scontrol";
  bool json = false, drain = false, verbose = false;
};

struct Gathered {
  std::vector<NodeOutcome> outcomes;
  std::vector<std::string> sources;  // --from: the file of each outcome
};

Gathered gather(const ClusterCliOptions& o, const LauncherCli& l) {
  if (!o.from.empty()) {
    ReportDir dir = read_report_dir(o.from);
    return {std::move(dir.outcomes), std::move(dir.files)};
  }
  return {run_on_hosts(launch_options(l, o.remote_gdrcheck)), {}};
}

// False when something could not be kept: the run then cannot end OK.
bool save(const std::string& dir, const std::vector<NodeOutcome>& outcomes) {
  SaveResult saved = save_raw_outputs(dir, outcomes);
  for (const auto& p : saved.problems) std::cerr << "gdrcheck cluster: --save: " << safe_line(p) << "\n";
  if (!saved.written.empty() || saved.problems.empty())
    std::cerr << "gdrcheck cluster: saved " << saved.written.size() << " raw report"
              << (saved.written.size() == 1 ? "" : "s") << " in " << safe_line(dir) << "\n";
  return saved.problems.empty();
}

bool drain_nodes(const std::vector<Argv>& commands) {
  bool all = true;
  auto results = run_drain(commands);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i].succeeded()) {
      all = false;
      std::cerr << "gdrcheck cluster: " << safe_line(shell_line(commands[i])) << ": "
                << safe_line(results[i].describe()) << (results[i].err.empty() ? "" : ": " + safe_line(results[i].err))
                << "\n";
    }
  return all;
}

int run_cluster(const ClusterCliOptions& o, const LauncherCli& l) {
  std::optional<FailedNodeThreshold> threshold;
  if (!o.threshold.empty() && !(threshold = parse_threshold(o.threshold))) {
    std::cerr << "gdrcheck cluster: --threshold '" << safe_line(o.threshold)
              << "' is not a node count (3) or a percentage (5%)\n";
    return kExitUsage;
  }
  if ((o.from.empty() ? 0 : 1) + l.launchers() != 1) {
    std::cerr << "gdrcheck cluster: give one source of reports: --from DIR, --slurm, --pdsh HOSTLIST, or --ssh HOSTS / "
                 "--hostfile FILE\n";
    return kExitUsage;
  }
  try {
    ClusterOptions options;
    if (!o.manifest.empty()) options.manifest = load_manifest_file(o.manifest);
    Gathered g = gather(o, l);
    bool saved = o.save.empty() || save(o.save, g.outcomes);
    options.sources = std::move(g.sources);
    ClusterModel m = build_cluster_model(g.outcomes, options);
    Status verdict = cluster_verdict(m, threshold);
    DrainPlan plan = drain_plan(m, o.scontrol);
    // A CRITICAL node that cannot be drained safely is for a person to see.
    m.notes.insert(m.notes.end(), plan.refused.begin(), plan.refused.end());
    const std::vector<Argv>& drain = plan.commands;
    bool drained = o.drain && !drain.empty() && drain_nodes(drain);
    if (o.json) {
      std::optional<std::string> t = o.threshold.empty() ? std::nullopt : std::optional<std::string>(o.threshold);
      std::cout << json_text(cluster_json(m, {verdict, t, drain, drained})) << "\n";
    } else {
      std::cout << render_cluster_text(m, {o.verbose, verdict, drain, drained});
    }
    int code = exit_code(verdict);
    // Reports the operator asked to keep and that were not kept: not OK.
    return !saved && code == kExitOk ? kExitUnknown : code;
  } catch (const InputError& e) {
    std::cerr << "gdrcheck cluster: " << safe_line(e.what()) << "\n";
    return kExitUnknown;
  } catch (const std::invalid_argument& e) {  // launcher options that cannot be run
    std::cerr << "gdrcheck cluster: " << safe_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const std::runtime_error& e) {  // e.g. the Slurm output directory
    std::cerr << "gdrcheck cluster: " << safe_line(e.what()) << "\n";
    return kExitUnknown;
  }
}

}  // namespace

CommandRun add_cluster_command(CLI::App& app) {
  auto o = std::make_shared<ClusterCliOptions>();
  auto l = std::make_shared<LauncherCli>();
  CLI::App* cmd = app.add_subcommand(
      "cluster",
      "run the node check on every node (Slurm, pdsh, ssh) or read collected reports; the cluster as a whole");
  cmd->add_option("--from", o->from, "read node reports (gdrcheck node --json output, *.json) from this directory");
  cmd->add_option(
      "--save", o->save,
      "keep every raw report in this directory (created 0750; files 0640, never replaced; links are not followed)");
  cmd->add_option("--manifest", o->manifest, "the site's expected node (gdrcheck.manifest/1), applied to every node");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.cluster/1)");
  cmd->add_option("--threshold", o->threshold,
                  "failed nodes tolerated (N or N%): within it the exit status is at most WARNING");
  cmd->add_flag("--drain", o->drain, "run the printed scontrol commands that drain the CRITICAL nodes");
  cmd->add_option("--scontrol", o->scontrol, "the scontrol program for --drain (default: scontrol in PATH)");
  cmd->add_option("--gdrcheck", o->remote_gdrcheck, "path of gdrcheck on the nodes (default: gdrcheck in PATH)");
  cmd->add_flag("-v,--verbose", o->verbose, "list every node, also those OK in every check");
  add_launcher_options(cmd, *l);
  return [o, l] { return run_cluster(*o, *l); };
}

}  // namespace gdrcheck

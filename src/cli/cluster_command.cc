// `gdrcheck cluster`: the passive node check on every node, and the
// cluster as a whole — a table of nodes × checks, the summary, the
// outliers, and the Slurm drain commands. Reports come from a launcher
// (src/cluster/launcher.h) or from a directory collected earlier (--from).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "checks/manifest.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/launcher_options.h"
#include "cli/manifest_file.h"
#include "cli/output_format.h"
#include "cluster/cluster_model.h"
#include "cluster/cluster_verdict.h"
#include "cluster/drain.h"
#include "cluster/drain_limit.h"
#include "cluster/launcher.h"
#include "cluster/report_age.h"
#include "cluster/report_dir.h"
#include "cluster/report_store.h"
#include "cluster/slurm_node_state.h"
#include "host/root.h"
#include "report/cluster_json.h"
#include "report/cluster_prometheus.h"
#include "report/cluster_text.h"
#include "report/json_text.h"
#include "report/output_style.h"
#include "report/styled_text.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

struct ClusterCliOptions {
  std::string from, save, manifest, threshold;
  std::string remote_gdrcheck = "gdrcheck";
  std::string scontrol = "scontrol";
  std::string max_drain = "5%", max_age = "1h";
  bool drain = false, resume = false, dry_run = false, verbose = false;
  OutputCli output;
  // Options whose defaults cannot tell "not given" apart.
  const CLI::Option* remote_gdrcheck_option = nullptr;
  const CLI::Option* max_drain_option = nullptr;
};

// The guards of --drain and --resume, read from the options; a bad value
// is a usage error.
struct Guards {
  DrainLimit max_drain;
  std::int64_t max_age_s = kDefaultMaxAgeS;
};

// "" when the options go together; else the usage error. Checked before
// anything is started or read.
std::string usage_problem(const ClusterCliOptions& o, const LauncherCli& l) {
  if ((o.from.empty() ? 0 : 1) + l.launchers() != 1)
    return "give one source of reports: --from DIR, --slurm, --pdsh HOSTLIST, or --ssh HOSTS / --hostfile FILE";
  if (!o.from.empty()) {
    std::vector<std::string> given = l.tuning_given();
    if (o.remote_gdrcheck_option && o.remote_gdrcheck_option->count()) given.push_back("--gdrcheck");
    std::string names;
    for (const auto& g : given) names += (names.empty() ? "" : ", ") + g;
    if (!names.empty()) return names + ": only with a launcher (--slurm, --pdsh, --ssh); --from launches nothing";
  }
  bool acts = o.drain || o.resume;
  if (!acts && o.max_drain_option && o.max_drain_option->count()) return "--max-drain goes with --drain";
  if (!acts && o.dry_run) return "--dry-run goes with --drain or --resume";
  return "";
}

std::optional<Guards> guards(const ClusterCliOptions& o) {
  auto limit = parse_drain_limit(o.max_drain);
  if (!limit) {
    std::cerr << "gdrcheck cluster: --max-drain '" << safe_line(o.max_drain)
              << "' is not a node count of at least 1 (3) or a percentage (5%)\n";
    return std::nullopt;
  }
  auto age = parse_duration(o.max_age);
  if (!age) {
    std::cerr << "gdrcheck cluster: --max-age '" << safe_line(o.max_age)
              << "' is not a positive duration (90s, 30m, 2h, 1d or seconds)\n";
    return std::nullopt;
  }
  return Guards{*limit, *age};
}

struct Gathered {
  std::vector<NodeOutcome> outcomes;
  std::vector<std::string> sources;  // --from: the file of each outcome
};

Gathered gather(const ClusterCliOptions& o, const LauncherCli& l) {
  if (!o.from.empty()) {
    ReportDir dir = read_report_dir(o.from);
    return {std::move(dir.outcomes), std::move(dir.files)};
  }
  LaunchOptions launch = launch_options(l, o.remote_gdrcheck);
  launch.scontrol_program = o.scontrol;  // the one --drain and --resume use
  return {run_on_hosts(launch), {}};
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

// Asks Slurm which of the passing nodes it shows drained, and how. A
// failure leaves nothing resumed and says why.
std::map<std::string, SlurmNodeState> slurm_nodes(const std::vector<std::string>& hosts, const std::string& scontrol,
                                                  std::vector<std::string>& notes) {
  if (hosts.empty()) return {};
  Argv show = slurm_show_command(hosts, scontrol);
  ProcessSpec spec = ProcessSpec::command(show);
  spec.timeout = std::chrono::seconds(60);
  ProcessResult r = run_process(spec);
  auto nodes = parse_slurm_nodes(r.out);
  // scontrol exits 1 when one name is unknown but still prints the others.
  if (!r.succeeded() && nodes.empty())
    notes.push_back("--resume: " + show[0] + " -o show node: " + r.describe() +
                    (r.err.empty() ? "" : ": " + r.err.substr(0, 400)) + "; nothing resumed");
  return nodes;
}

void plan_resume(const ClusterModel& m, const DrainPolicy& policy, bool dry_run, SlurmActions& a) {
  a.resume_requested = true;
  auto slurm = slurm_nodes(resume_candidates(m), policy.scontrol, a.resume_notes);
  ResumePlan plan = resume_plan(m, slurm, policy);
  a.resume = plan.commands;
  a.not_resumed = plan.not_resumed;
  a.resume_notes.insert(a.resume_notes.end(), plan.others.begin(), plan.others.end());
  a.resumed = !dry_run && !a.resume.empty() && drain_nodes(a.resume);
}

UnixSeconds now_utc() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int run_cluster(const ClusterCliOptions& o, const LauncherCli& l) {
  std::optional<FailedNodeThreshold> threshold;
  if (!o.threshold.empty() && !(threshold = parse_threshold(o.threshold))) {
    std::cerr << "gdrcheck cluster: --threshold '" << safe_line(o.threshold)
              << "' is not a node count (3) or a percentage (5%)\n";
    return kExitUsage;
  }
  if (std::string problem = usage_problem(o, l); !problem.empty()) {
    std::cerr << "gdrcheck cluster: " << problem << "\n";
    return kExitUsage;
  }
  std::optional<Guards> g = guards(o);
  if (!g) return kExitUsage;
  // One time for the whole run: every report is aged against the same now.
  const UnixSeconds now = now_utc();
  try {
    ClusterOptions options;
    if (!o.manifest.empty()) options.manifest = load_manifest_file(o.manifest);
    Gathered gathered = gather(o, l);
    bool saved = o.save.empty() || save(o.save, gathered.outcomes);
    options.sources = std::move(gathered.sources);
    ClusterModel m = build_cluster_model(gathered.outcomes, options);
    Status verdict = cluster_verdict(m, threshold);
    DrainPolicy policy{o.scontrol, now, g->max_age_s, o.max_age};
    DrainPlan plan = drain_plan(m, policy);
    SlurmActions a;
    a.now = now;
    a.max_age = o.max_age;
    a.max_age_s = g->max_age_s;
    a.not_drained = plan.not_drained;
    a.max_drain = o.max_drain;
    a.drain_requested = o.drain;
    a.dry_run = o.dry_run;
    const std::vector<Argv>& drain = plan.commands;
    DrainLimitDecision limit = decide_drain_limit(drain.size(), m.nodes.size(), g->max_drain);
    a.max_drain_nodes = limit.limit;
    a.limit_refusal = limit.why;
    bool drained = o.drain && !o.dry_run && limit.allowed && !drain.empty() && drain_nodes(drain);
    if (o.resume) plan_resume(m, policy, o.dry_run, a);
    const PrometheusStamp stamp = prometheus_stamp(std::chrono::system_clock::time_point(std::chrono::seconds(now)));
    switch (o.output.resolved()) {
      case OutputFormat::Json: {
        // A CRITICAL node that cannot be drained safely is for a person to see.
        m.notes.insert(m.notes.end(), plan.refused.begin(), plan.refused.end());
        std::optional<std::string> t = o.threshold.empty() ? std::nullopt : std::optional<std::string>(o.threshold);
        std::cout << json_text(cluster_json(m, {verdict, t, drain, drained, a})) << "\n";
        break;
      }
      case OutputFormat::Prometheus:
        std::cout << cluster_prometheus(m, verdict, stamp);
        break;
      case OutputFormat::Text:
        std::cout << styled_text(render_cluster_text(m, {o.verbose, verdict, drain, drained, a}),
                                 stdout_output_style(ColorChoice::Never), TextLayout::Table);
        break;
    }
    write_prometheus_file(o.output, cluster_prometheus(m, verdict, stamp));
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
  add_output_options(cmd, o->output, "gdrcheck.cluster/1");
  cmd->add_option("--threshold", o->threshold,
                  "failed nodes tolerated (N or N%): within it the exit status is at most WARNING");
  cmd->add_flag("--drain", o->drain, "run the printed scontrol commands that drain the CRITICAL nodes");
  o->max_drain_option =
      cmd->add_option("--max-drain", o->max_drain,
                      "--drain: drain nothing when more nodes (N or N%) would be drained (default 5%, at least 1)");
  cmd->add_option("--max-age", o->max_age,
                  "drain or resume only on reports at most this old: 90s, 30m, 2h, 1d or seconds (default 1h)");
  cmd->add_flag("--resume", o->resume,
                "resume the nodes that pass and that Slurm shows drained by gdrcheck (reason 'gdrcheck: ...')");
  cmd->add_flag("--dry-run", o->dry_run, "with --drain or --resume: print what would run, run nothing");
  cmd->add_option("--scontrol", o->scontrol,
                  "the scontrol program for --drain and --resume (default: scontrol in PATH)");
  o->remote_gdrcheck_option =
      cmd->add_option("--gdrcheck", o->remote_gdrcheck, "path of gdrcheck on the nodes (default: gdrcheck in PATH)");
  cmd->add_flag("-v,--verbose", o->verbose, "list every node, also those OK in every check");
  add_launcher_options(cmd, *l);
  return [o, l] { return run_cluster(*o, *l); };
}

}  // namespace gdrcheck

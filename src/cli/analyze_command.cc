// `gdrcheck analyze FILE...`: what NCCL logs and pasted tool outputs prove.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "analyze/artifact.h"
#include "analyze/crosscheck.h"
#include "analyze/crosscheck_prediction.h"
#include "cli/bandwidth_file.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/nccl_version_option.h"
#include "report/analyze_json.h"
#include "report/analyze_text.h"
#include "report/json_text.h"
#include "report/output_style.h"
#include "report/styled_text.h"
#include "report/terminal_text.h"
#include "snapshot/snapshot_root.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> files;
  std::string kind;
  std::string bandwidth_file;
  bool json = false, detail = false;
  // The cross-check of a topology with the logs: a recorded root as the
  // topology, and the user's settings and release over the log's.
  std::string root;
  std::vector<std::string> env;
  std::string nccl_version;
};

CrosscheckUser crosscheck_user(const AnalyzeOptions& o) {
  CrosscheckUser u;
  for (const auto& kv : o.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--env", "'" + kv + "' is not NAME=VALUE");
    u.env.push_back({kv.substr(0, eq), kv.substr(eq + 1), "--env"});
  }
  if (!o.nccl_version.empty()) u.nccl_version = nccl_version_option(o.nccl_version);
  return u;
}

// Every topology given (files, or --root) against every NCCL log given.
std::vector<Crosscheck> crosschecks(const AnalyzeOptions& o, const std::vector<Artifact>& artifacts) {
  std::vector<const Artifact*> logs;
  for (const auto& a : artifacts)
    if (a.nccl_log && a.error.empty() && (a.nccl_log->records > 0)) logs.push_back(&a);
  std::vector<Crosscheck> out;
  if (logs.empty()) return out;
  CrosscheckUser user = crosscheck_user(o);
  if (!o.root.empty()) {
    require_recorded_root(o.root);
    Topology t = load_topology_root(o.root);
    for (const Artifact* l : logs) out.push_back(crosscheck_root(t, o.root, *l->nccl_log, l->file, user));
  }
  for (const auto& a : artifacts)
    if (a.topology && a.error.empty())
      for (const Artifact* l : logs)
        out.push_back(crosscheck_topology_file(*a.topology, a.file, *l->nccl_log, l->file, user));
  return out;
}

// Standard input can be read once: a second "-" (or /dev/stdin) would be
// analysed as empty and reported as a bad file.
void check_standard_input_once(std::vector<std::string> files, const std::string& bandwidth_file) {
  files.push_back(bandwidth_file);
  int reads = 0;
  for (const auto& f : files) reads += f == "-" || f == "/dev/stdin" || f == "/proc/self/fd/0" || f == "/dev/fd/0";
  if (reads > 1)
    throw CLI::ValidationError("files",
                               "standard input ('-' or /dev/stdin) can be read once; it is named more than once");
}

int run_analyze(const AnalyzeOptions& o) {
  check_standard_input_once(o.files, o.bandwidth_file);
  std::optional<ArtifactKind> forced;
  if (!o.kind.empty()) {
    ArtifactKind k{};
    if (!parse_artifact_kind(o.kind, &k)) {
      std::cerr << "gdrcheck analyze: --kind must be nccl-log, nccl-tests, topo-matrix, topology-xml, ibv, gdscheck, "
                   "perftest, gdsio or cufile-log\n";
      return kExitUsage;
    }
    forced = k;
  }
  // An unusable --bandwidth-file is an InputError (run_reporting_errors).
  BandwidthOverrides bandwidth = load_bandwidth_file(o.bandwidth_file);
  std::vector<Artifact> artifacts;
  for (const auto& f : o.files) {
    artifacts.push_back(analyze_file(f, forced, bandwidth));
    // Unreadable inputs are named on stderr too; the rest are still analysed.
    if (!artifacts.back().error.empty())
      std::cerr << "gdrcheck analyze: " << safe_line(f) << ": " << safe_line(artifacts.back().error) << "\n";
  }
  std::vector<Crosscheck> checks = crosschecks(o, artifacts);
  if (o.json)
    std::cout << json_text(analyze_json(artifacts, o.detail, std::chrono::system_clock::now(), checks)) << "\n";
  else
    std::cout << styled_text(render_analyze_text(artifacts, o.detail, checks), stdout_output_style(ColorChoice::Never),
                             TextLayout::Prose);
  return exit_code(worse(overall_status(artifacts), crosscheck_status(checks)));
}

}  // namespace

CommandRun add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "what NCCL logs, nccl-tests, nvidia-smi, ibstat, gdscheck, gdsio and perftest output and cuFile logs "
      "prove");
  cmd->add_option("files", o->files, "files to read ('-' = standard input; gzip and zstd read decompressed)")
      ->required();
  cmd->add_option("--kind", o->kind,
                  "force the kind: nccl-log, nccl-tests, topo-matrix, topology-xml, ibv, gdscheck, gdsio, cufile-log, "
                  "perftest");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.analyze/1)");
  cmd->add_flag("--detail", o->detail, "list every network connection");
  cmd->add_option("--root", o->root,
                  "a recorded root (or snapshot directory) as the topology to cross-check the NCCL logs with");
  cmd->add_option("--env", o->env,
                  "NCCL setting NAME=VALUE for the cross-check's prediction, over the log's own; repeatable");
  cmd->add_option("--nccl-version", o->nccl_version,
                  "predict the cross-check for this NCCL release (default: the log's NCCL version)");
  cmd->add_option("--bandwidth-file", o->bandwidth_file,
                  "site figures for relating nccl-tests busbw to the NICs (default /etc/gdrcheck/bandwidth.json)");
  return [o] { return run_reporting_errors("analyze", [&] { return run_analyze(*o); }); };
}

}  // namespace gdrcheck

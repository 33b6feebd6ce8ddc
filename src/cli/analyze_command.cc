// `gdrcheck analyze FILE...`: what NCCL logs and pasted tool outputs prove.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "analyze/artifact.h"
#include "cli/bandwidth_file.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "report/analyze_json.h"
#include "report/analyze_text.h"
#include "report/json_text.h"
#include "report/output_style.h"
#include "report/styled_text.h"
#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> files;
  std::string kind;
  std::string bandwidth_file;
  bool json = false, detail = false;
};

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
      std::cerr << "gdrcheck analyze: --kind must be nccl-log, nccl-tests, topo-matrix, ibv or gdscheck\n";
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
  if (o.json)
    std::cout << json_text(analyze_json(artifacts, o.detail)) << "\n";
  else
    std::cout << styled_text(render_analyze_text(artifacts, o.detail), stdout_output_style(ColorChoice::Never),
                             TextLayout::Prose);
  return exit_code(overall_status(artifacts));
}

}  // namespace

CommandRun add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd =
      app.add_subcommand("analyze", "what NCCL logs, nccl-tests, nvidia-smi, ibstat and gdscheck output prove");
  cmd->add_option("files", o->files, "files to read ('-' = standard input; gzip and zstd read decompressed)")
      ->required();
  cmd->add_option("--kind", o->kind, "force the kind: nccl-log, nccl-tests, topo-matrix, ibv, gdscheck");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.analyze/1)");
  cmd->add_flag("--detail", o->detail, "list every network connection");
  cmd->add_option("--bandwidth-file", o->bandwidth_file,
                  "site figures for relating nccl-tests busbw to the NICs (default /etc/gdrcheck/bandwidth.json)");
  return [o] { return run_reporting_errors("analyze", [&] { return run_analyze(*o); }); };
}

}  // namespace gdrcheck

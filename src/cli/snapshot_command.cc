// `gdrcheck snapshot`: writes what gdrcheck reads from this node (or from a
// recorded root) into one tarball, to be checked elsewhere with
// `gdrcheck node --root FILE.tar.gz`.
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "host/text_format.h"
#include "snapshot/snapshot.h"
#include "snapshot/snapshot_root.h"

namespace gdrcheck {
namespace {

int run_snapshot(const SnapshotOptions& given) {
  return run_reporting_errors("snapshot", [&]() -> int {
    SnapshotOptions o = given;
    std::optional<ExtractedRoot> unpacked;
    o.root = resolve_root_argument(given.root, unpacked);
    if (o.root != "/") require_recorded_root(o.root);
    SnapshotSummary s = write_snapshot(o);
    std::cerr << "gdrcheck snapshot: wrote " << (o.output == "-" ? "standard output" : printable(o.output)) << ": "
              << s.captured << " entries captured, " << s.missing << " missing (listed in gdrcheck-snapshot.json)\n";
    return kExitOk;
  });
}

}  // namespace

CommandRun add_snapshot_command(CLI::App& app) {
  auto o = std::make_shared<SnapshotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "snapshot", "write what gdrcheck reads from this node (or a recorded root) to a .tar.gz for --root elsewhere");
  cmd->add_option("--root", o->root, "directory (or snapshot) standing for /; default: this machine");
  cmd->add_option("-o,--output", o->output, "new file to write (never overwritten), or - for standard output")
      ->required();
  return [o] { return run_snapshot(*o); };
}

}  // namespace gdrcheck

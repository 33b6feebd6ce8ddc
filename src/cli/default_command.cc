// Plain `gdrcheck`, the command a new user runs first, and `gdrcheck demo`,
// the bundled example. The exit code of plain `gdrcheck` is always about
// this machine: a machine without GPUs is UNKNOWN, never the example's OK.
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/example_root.h"
#include "cli/exit_codes.h"
#include "host/host_state.h"
#include "host/root.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

constexpr const char* kNoGpu = "no NVIDIA GPU found (none under /sys/bus/pci/devices)";

// The example's check, labelled so nobody takes it for this machine's.
// Returns false when the example root is missing (the build makes it).
bool show_example(const std::string& build_example_root) {
  // Installed: beside the binary's prefix; in a build tree: where the build
  // made it. Looked up only when the example is shown.
  const std::string example_root = find_example_root(build_example_root);
  if (!Root(example_root).is_dir("/sys")) {
    std::cerr << "gdrcheck: the bundled example root is missing (" << safe_line(example_root)
              << "); build the project to create it\n";
    return false;
  }
  std::cout << "EXAMPLE, not this machine: a DGX H100-like node (8x H100, 8x ConnectX-7), built from\n"
            << "tests/data/nodes/dgx-h100.json. Same as: gdrcheck node --root " << safe_line(example_root) << "\n\n";
  int rc = run_node_on(example_root);
  return rc != kExitUnknown;
}

}  // namespace

int run_default(const std::string& example_root) {
  Root live("/");
  bool has_gpu = false;
  try {
    has_gpu = !load_topology_root("/").with_role(DeviceRole::Gpu).empty();
  } catch (const InputError& e) {
    // Unreadable is not "no GPU": say what failed, claim nothing more.
    std::cerr << "gdrcheck: " << safe_line(e.what()) << "\n";
    return kExitUnknown;
  }
  // A loaded driver without GPUs is a node whose GPUs fell off the bus: the
  // node check says so (CRITICAL), it is not a machine without GPUs.
  if (has_gpu || nvidia_driver_loaded(live)) return run_node_on("/");
  std::cout << "gdrcheck: " << kNoGpu << ": nothing on this machine to check (UNKNOWN).\n"
            << "Run it on a GPU node, or see a bundled example with: gdrcheck demo\n";
  if (::isatty(1)) {
    std::cout << "\n";
    show_example(example_root);
  }
  return kExitUnknown;
}

int run_demo(const std::string& example_root) {
  // The example's verdict is not this machine's: the demo succeeds when it runs.
  return show_example(example_root) ? kExitOk : kExitUnknown;
}

CommandRun add_demo_command(CLI::App& app, const std::string& example_root) {
  app.add_subcommand("demo", "the node check of a bundled example (a DGX H100-like node), not of this machine");
  return [example_root] { return run_demo(example_root); };
}

}  // namespace gdrcheck

// Plain `gdrcheck`, the command a new user runs first.
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "host/root.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"
#include "topology/topology_loader.h"

namespace gdrcheck {

int run_default(const std::string& example_root) {
  bool has_gpu = false;
  try {
    has_gpu = !load_topology_root("/").with_role(DeviceRole::Gpu).empty();
  } catch (const InputError& e) {
    std::cerr << "gdrcheck: " << safe_line(e.what()) << "\n";
  }
  if (has_gpu) return run_node_on("/");
  std::cout << "This machine has no NVIDIA GPU (none under /sys/bus/pci/devices): there is nothing here to check.\n";
  if (!Root(example_root).is_dir("/sys")) {
    std::cout << "The bundled example root is missing (" << safe_line(example_root)
              << "); build the project to create it.\n";
    return kExitUnknown;
  }
  std::cout << "Showing the check of a bundled example instead: a DGX H100-like node (8x H100, 8x ConnectX-7),\n"
            << "built from tests/data/nodes/dgx-h100.json. Same as: gdrcheck node --root " << safe_line(example_root)
            << "\n\n";
  run_node_on(example_root);
  // The example's verdict is not this machine's: the run itself succeeded.
  return kExitOk;
}

}  // namespace gdrcheck

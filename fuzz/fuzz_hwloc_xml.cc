// libFuzzer entry point for hwloc XML (`lstopo --of xml`, `topo FILE`)
// through the product's steps for it: refuse_xml_declarations, hwloc's load
// in a forked copy (one kept for many inputs here, see kept_probe_child.h;
// an input that crashes or hangs hwloc there, or that the load refuses
// there, is refused, as the product refuses it), then the load in this
// process, the paths and the topology rendered as `topo` renders it. Any
// input must end in a rendered Topology or an InputError; anything else (a
// crash, another exception, a sanitizer report) is a bug. Reading the file
// itself (links, FIFOs, size) is tested by tests/topology_loader_test.cc and
// the hostile-input suite.
#include <hwloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "host/pci_names.h"
#include "hwloc_allocation_cap.h"
#include "kept_probe_child.h"
#include "output_checks.h"
#include "report/json_text.h"
#include "report/topo_json.h"
#include "report/topo_text.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"
#include "topology/path_matrix.h"

namespace {

const std::string kSource = "fuzz.xml";

fuzz_probe::KeptProbeChild& probe() {
  static fuzz_probe::KeptProbeChild child(
      [](const std::string& text) { gdrcheck::load_hwloc_xml_unprobed(text, kSource); }, gdrcheck::kHwlocProbeLimit);
  return child;
}

}  // namespace

// hwloc's XML importer leaks the objects it had set up when it gives up on
// a malformed file (hwloc_alloc_setup_object, hwloc_bitmap_alloc inside
// libhwloc); the product cannot free them, so they are not reported.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhwloc.so\n";
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // hwloc loads its components (dlopen of its plugins) when the first
  // topology is set up and unloads them when the last one is destroyed, so
  // without a topology that lives as long as the process every run would
  // pay for loading them again. This one is never loaded nor destroyed.
  static hwloc_topology_t keep_components_loaded;
  if (hwloc_topology_init(&keep_components_loaded) != 0) std::abort();
  // The device names come from pci.ids, which libpci reads once per process
  // on the first lookup; read here, the copies forked later inherit the list
  // instead of each reading the file again (a sixth of the target's time).
  gdrcheck::pci_device_name(0x10de, 0x2330);
  probe();  // forks the process that makes the copies, while this one is small
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    gdrcheck::refuse_xml_declarations(text, kSource);
    fuzz_probe::End end = probe().run(text);
    if (end != fuzz_probe::End::Finished && end != fuzz_probe::End::Failed) return 0;
    gdrcheck::Topology t = gdrcheck::load_hwloc_xml_unprobed(text, kSource);
    gdrcheck::TopologyPaths paths = gdrcheck::compute_paths(t);
    fuzz_checks::text_is_clean(gdrcheck::render_topo_text(t, paths));
    fuzz_checks::json_parses_back(gdrcheck::json_text(gdrcheck::topo_json(t, paths)));
  } catch (const gdrcheck::InputError&) {
  }
  return 0;
}

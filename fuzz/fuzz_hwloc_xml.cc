// libFuzzer entry point for hwloc XML (`lstopo --of xml`, `topo FILE`)
// through the real loader: the input is written to a file in /dev/shm (or
// /tmp) and read with load_topology_file(kind HwlocXml), then the paths
// are computed and the topology rendered as `topo` does. Any input must
// end in a rendered Topology or an InputError; anything else (a crash,
// another exception, a sanitizer report) is a bug.
#include <fcntl.h>
#include <hwloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "report/json_text.h"
#include "report/topo_json.h"
#include "report/topo_text.h"
#include "topology/input_error.h"
#include "topology/path_matrix.h"
#include "topology/topology_loader.h"

namespace {

std::string g_path;  // one file per fuzzing process, rewritten every run

void remove_file() {
  if (!g_path.empty()) ::unlink(g_path.c_str());
}

bool write_input(const uint8_t* data, size_t size) {
  int fd = ::open(g_path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, data, size) == static_cast<ssize_t>(size);
  ::close(fd);
  return ok;
}

}  // namespace

// hwloc's XML importer leaks the objects it had set up when it gives up on
// a malformed file (hwloc_alloc_setup_object, hwloc_bitmap_alloc inside
// libhwloc); the product cannot free them, so they are not reported.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhwloc.so\n";
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // libxml2's importer crashes on entities; the product uses hwloc's
  // minimal importer, so the fuzzer must too.
  ::setenv("HWLOC_LIBXML_IMPORT", "0", 1);
  // hwloc loads its components (dlopen of its plugins) when the first
  // topology is set up and unloads them when the last one is destroyed, so
  // without a topology that lives as long as the process every run would
  // pay for loading them again. This one is never loaded nor destroyed.
  static hwloc_topology_t keep_components_loaded;
  if (hwloc_topology_init(&keep_components_loaded) != 0) std::abort();
  for (const char* dir : {"/dev/shm", "/tmp"}) {
    std::string tmpl = std::string(dir) + "/fuzz-hwloc-xml-XXXXXX";
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0) continue;
    ::close(fd);
    g_path = tmpl;
    std::atexit(remove_file);
    return 0;
  }
  std::abort();  // nowhere to write the input: the target cannot run
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!write_input(data, size)) std::abort();
  try {
    gdrcheck::Topology t = gdrcheck::load_topology_file(g_path, gdrcheck::TopologyFileKind::HwlocXml);
    gdrcheck::TopologyPaths paths = gdrcheck::compute_paths(t);
    (void)gdrcheck::render_topo_text(t, paths);
    (void)gdrcheck::json_text(gdrcheck::topo_json(t, paths));
  } catch (const gdrcheck::InputError&) {
  }
  return 0;
}

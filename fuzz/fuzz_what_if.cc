// libFuzzer entry point for `node --topo FILE --what-if`: the input is a
// move list (text, or a JSON edit file when it starts with '{') applied to
// a fixed topology with switches. Anything but a clean refusal
// (std::invalid_argument, InputError) must leave a tree: every parent and
// child link consistent, no cycle, every endpoint on a node; and the
// edited tree must compute its paths and plan.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checks/host_assumptions.h"
#include "checks/node_report.h"
#include "host/host_state.h"
#include "topology/input_error.h"
#include "topology/nccl_xml_source.h"
#include "topology/path_matrix.h"
#include "topology/topology_edit.h"

namespace {

using namespace gdrcheck;

const char* kDump = R"(<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:1b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>
      <pci busid="0000:1a:00.0" class="0x020700" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/></nic></pci>
      <pci busid="0000:1a:00.1" class="0x020700" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_1" dev="1" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/></nic></pci>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ff00" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:90:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:9b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="1" sm="90" rank="1" gdr="1"/></pci>
    </pci>
  </cpu>
</system>
)";

Topology* g_base = nullptr;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_tree(const Topology& t) {
  const int n = static_cast<int>(t.nodes.size());
  for (int i = 0; i < n; ++i) {
    int steps = 0;
    for (int p = t.nodes[i].parent; p >= 0; p = t.nodes[p].parent) {
      check(p < n && ++steps <= n);  // no cycle
    }
    int parent = t.nodes[i].parent;
    if (parent >= 0) {
      int links = 0;
      for (int c : t.nodes[parent].children) links += c == i;
      check(links == 1);
    }
    for (int c : t.nodes[i].children) check(c >= 0 && c < n && t.nodes[c].parent == i);
  }
  for (const auto& e : t.endpoints) check(e.node < n);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_base = new Topology(read_nccl_xml(kDump, "dump.xml"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Topology t = *g_base;
  try {
    auto moves =
        !text.empty() && text.front() == '{' ? parse_what_if_json(text, "edit.json") : parse_what_if_text(text);
    apply_moves(t, moves);
  } catch (const std::invalid_argument&) {
  } catch (const InputError&) {
  }
  check_tree(t);
  (void)compute_paths(t);
  return 0;
}

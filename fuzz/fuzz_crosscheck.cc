// libFuzzer entry point for the cross-check of `analyze TOPOLOGY LOG`: the
// input is an NCCL log (hostile in the same ways as any log: host names,
// ranks, bus ids, device lists and GDR lines from other machines), checked
// against two fixed topologies — an NCCL dump with bus ids and a pasted
// matrix without — whose predictions are made once. Every row must have a
// known verdict, the text no control byte, the JSON must parse back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analyze/crosscheck.h"
#include "checks/host_assumptions.h"
#include "checks/node_report.h"
#include "host/host_state.h"
#include "output_checks.h"
#include "report/crosscheck_json.h"
#include "report/crosscheck_text.h"
#include "report/json_text.h"
#include "topology/nccl_xml_source.h"
#include "topology/smi_text_source.h"

namespace {

using namespace gdrcheck;

const char* kDump = R"(<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:1b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>
      <pci busid="0000:1a:00.0" class="0x020700" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/></nic></pci>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ff00" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:90:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:9b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="1" sm="90" rank="1" gdr="1"/></pci>
    </pci>
    <pci busid="0000:a0:00.0" class="0x020700" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_1" dev="1" speed="400000" port="1" latency="0" guid="0x2" maxconn="131072" gdr="1"/></nic></pci>
  </cpu>
</system>
)";

const char* kMatrix =
    "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tSYS\tPIX\tSYS\t0-15\t0\n"
    "GPU1\tSYS\t X \tSYS\tNODE\t16-31\t1\n"
    "NIC0\tPIX\tSYS\t X \tSYS\n"
    "NIC1\tSYS\tNODE\tSYS\t X \n"
    "\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n";

NodeReport* g_dump = nullptr;
NodeReport* g_matrix = nullptr;

NodeReport predicted(Topology t) {
  NodeOptions no;
  no.topology_file_only = HostAssumptions{};
  return build_node_report(std::move(t), topology_file_host_state("fixed", {}), no);
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_rows(const Crosscheck& c) {
  for (const auto& r : c.rows) {
    check(r.agree == "yes" || r.agree == "no" || r.agree == "inconclusive");
    check(r.agree == "yes" || !r.cause.empty());
    check(r.gpu.empty() || r.gpu.rfind("GPU", 0) == 0);
  }
  fuzz_checks::text_is_clean(render_crosscheck_text(c));
  fuzz_checks::json_parses_back(json_text(crosscheck_json({c})));
  (void)crosscheck_status({c});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_dump = new NodeReport(predicted(read_nccl_xml(kDump, "dump.xml")));
  g_matrix = new NodeReport(predicted(read_smi_text(kMatrix, "topo.txt")));
  if (g_dump->pairs.size() != 2 || g_matrix->pairs.size() != 2) std::abort();  // the fixtures must hold
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  NcclLogReport log = parse_nccl_log(text);
  check_rows(crosscheck(*g_dump, log, "dump.xml", "job.log", "fixed"));
  check_rows(crosscheck(*g_matrix, log, "topo.txt", "job.log", "fixed"));
  return 0;
}

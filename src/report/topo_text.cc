#include "report/topo_text.h"

#include <algorithm>
#include <sstream>

#include "report/column_pad.h"
#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

std::string source_line(const Topology& t) {
  switch (t.kind) {
    case SourceKind::Sysfs:
      return "sysfs under " + safe_line(t.source);
    case SourceKind::HwlocXml:
      return "hwloc XML " + safe_line(t.source);
    case SourceKind::NcclXml:
      return "NCCL topology XML " + safe_line(t.source);
    case SourceKind::SmiText:
      return "nvidia-smi topo text " + safe_line(t.source);
  }
  return safe_line(t.source);
}

// `code` is terminal-safe already (safe_line()).
std::string paint(const std::string& code, const TextStyle& style) {
  if (code == "PIX" || code == "PXB" || code.rfind("NV", 0) == 0) return painted(code, sgr::kGreen, style.color);
  if (code == "PHB" || code == "NODE") return painted(code, sgr::kYellow, style.color);
  if (code == "SYS" || code == "?") return painted(code, sgr::kRed, style.color);
  return code;
}

std::string affinity_cell(const Endpoint& e, bool numa) {
  if (numa) {
    auto it = e.attributes.find("NUMA Affinity");
    if (it != e.attributes.end()) return safe_line(it->second);
    return e.locality.numa >= 0 ? std::to_string(e.locality.numa) : "N/A";
  }
  return e.locality.cpus.empty() ? "N/A" : safe_line(e.locality.cpus);
}

void write_matrix(std::ostream& out, const Topology& t, const TopologyPaths& p, const TextStyle& style) {
  std::size_t w = 6;
  for (const auto& id : p.ids) w = std::max(w, safe_line(id).size() + 2);
  out << pad_column("", w);
  for (const auto& id : p.ids) out << pad_column(safe_line(id), w);
  out << pad_column("CPU Affinity", 16) << "NUMA Affinity\n";
  for (const auto& row : p.ids) {
    out << pad_column(safe_line(row), w);
    for (const auto& col : p.ids) {
      std::string code = safe_line(p.smi_at(row, col).code);
      out << paint(code, style) << std::string(w > code.size() ? w - code.size() : 1, ' ');
    }
    const Endpoint* e = t.find(row);
    out << pad_column(affinity_cell(*e, false), 16) << affinity_cell(*e, true) << "\n";
  }
}

void write_legend(std::ostream& out, bool any_unknown) {
  out << "\nLegend:\n\n"
         "  X    = Self\n"
         "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
         "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA "
         "node\n"
         "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
         "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
         "  PIX  = Connection traversing at most a single PCIe bridge\n"
         "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (any_unknown)
    out << "  ?    = Cannot be told: the source does not record where these devices attach (NUMA locality unknown)\n";
}

std::string describe(const Endpoint& e) {
  std::string s = safe_line(e.name);
  if (e.address && e.name != e.address->str())
    s += " (" + safe_line(e.address->str()) + ")";
  else if (!e.address && e.role == DeviceRole::Nic)
    s += " (no PCI device)";
  if (!e.model.empty()) s += " " + safe_line(e.model);
  if (e.role == DeviceRole::Nic && !e.rdma_device) s += " — no RDMA device";
  return s;
}

void write_nic_legend(std::ostream& out, const Topology& t) {
  auto nics = t.with_role(DeviceRole::Nic);
  if (nics.empty()) return;
  out << "\nNIC Legend:\n\n";
  for (const Endpoint* n : nics) out << "  " << safe_line(n->id) << ": " << describe(*n) << "\n";
}

void write_other_legend(std::ostream& out, const Topology& t) {
  bool header = false;
  for (DeviceRole r : {DeviceRole::Gpu, DeviceRole::Nvme, DeviceRole::Extra})
    for (const Endpoint* e : t.with_role(r)) {
      if (!e->address && e->model.empty()) continue;
      if (!header) out << "\nDevices:\n\n";
      header = true;
      out << "  " << safe_line(e->id) << ": " << (e->address ? safe_line(e->address->str()) : std::string("?"));
      if (!e->model.empty()) out << " " << safe_line(e->model);
      out << "\n";
    }
}

void write_closest(std::ostream& out, const Topology& t, const TopologyPaths& p) {
  if (p.closest.empty()) return;
  out << "\nClosest NIC per GPU (nvidia-smi class; NCCL's view):\n\n";
  for (const auto& c : p.closest) {
    out << "  " << pad_column(safe_line(c.gpu), 6);
    if (c.nics.empty()) {
      out << "no NIC with a known path\n";
      continue;
    }
    for (std::size_t i = 0; i < c.nics.size(); ++i) {
      const Endpoint* n = t.find(c.nics[i]);
      out << (i ? ", " : "") << safe_line(c.nics[i]) << " " << (n ? safe_line(n->name) : std::string("?"));
    }
    out << "  " << safe_line(c.smi_code) << "; NCCL " << safe_line(c.nccl_code);
    if (c.smi_code == "PIX" || c.smi_code == "PXB" || c.nccl_code == "PIX" || c.nccl_code == "PXB")
      out << " (GPUDirect RDMA by default)\n";
    else
      out << " (NCCL stages through host memory by default)\n";
  }
}

// nvidia-smi NODE is always PHB for NCCL; only other differences are news.
bool differs(const std::string& smi, const std::string& nccl) {
  if (smi == nccl) return false;
  if (smi == "NODE" && nccl == "PHB") return false;
  if (smi == "X" && nccl == "LOC") return false;
  if (smi.rfind("NV", 0) == 0 && nccl == "NVL") return false;
  return true;
}

void write_nccl_differences(std::ostream& out, const Topology& t, const TopologyPaths& p) {
  std::ostringstream body;
  auto gpus = t.with_role(DeviceRole::Gpu);
  auto nics = t.with_role(DeviceRole::Nic);
  for (const Endpoint* g : gpus)
    for (const Endpoint* n : nics) {
      const PathCell& s = p.smi_at(g->id, n->id);
      const PathCell& c = p.nccl_at(g->id, n->id);
      if (!differs(s.code, c.code)) continue;
      body << "  " << safe_line(g->id) << "-" << safe_line(n->id) << ": nvidia-smi " << safe_line(s.code) << ", NCCL "
           << safe_line(c.code) << " — " << safe_line(c.why) << "\n";
    }
  if (body.str().empty()) {
    if (!gpus.empty() && !nics.empty()) out << "\nNCCL's view: same classes as above (NODE counts as PHB).\n";
    return;
  }
  out << "\nNCCL's view differs:\n\n" << body.str();
}

}  // namespace

std::string render_topo_text(const Topology& t, const TopologyPaths& p, const TextStyle& style) {
  std::ostringstream out;
  auto gpus = t.with_role(DeviceRole::Gpu);
  out << "Topology from " << source_line(t) << "\n";
  if (gpus.empty()) out << "No NVIDIA GPU found in " << safe_line(t.source) << ".\n";
  out << "\n";
  if (p.ids.empty()) {
    out << "No GPUs, NICs or selected devices to show.\n";
  } else {
    write_matrix(out, t, p, style);
    bool any_unknown = false;
    for (const auto& a : p.ids)
      for (const auto& b : p.ids) any_unknown = any_unknown || p.smi_at(a, b).code == "?";
    write_legend(out, any_unknown);
    write_nic_legend(out, t);
    write_other_legend(out, t);
    write_closest(out, t, p);
    write_nccl_differences(out, t, p);
  }
  if (!t.notes.empty()) {
    out << "\nNotes:\n";
    for (const auto& n : t.notes) out << "  - " << safe_line(n) << "\n";
  }
  return terminal_guard(out.str(), style.color);
}

}  // namespace gdrcheck

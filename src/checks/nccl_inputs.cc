// The facts NCCL's prediction needs, taken from the topology and the host
// state: per GPU what its device ID says (compute capability, whether CUDA
// reports GPUDirect RDMA support, NVLink-C2C), per RDMA port what ibverbs
// would show NCCL (uverbs device, state, link layer, rate).
#include <map>

#include "checks/node_evidence.h"
#include "evidence/nvidia_smi_nvlink.h"
#include "host/device_ids.h"
#include "host/sysfs_values.h"
#include "topology/input_error.h"
#include "topology/nvlink_facts.h"
#include "topology/smi_text_source.h"

namespace gdrcheck {
namespace {

// Grace Hopper / Grace Blackwell superchips: the GPU reaches its CPU over
// NVLink-C2C, which NCCL reads from NVML (2.27+: path P2C).
bool c2c_family(const std::string& family) {
  return family == "GH200" || family == "GB200";
}

// "4: ACTIVE" → "ACTIVE"; sysfs prints the number and the name.
std::string port_word(const Fact& f) {
  if (!f.value) return "";
  const std::string& v = *f.value;
  auto colon = v.find(':');
  std::string word = colon == std::string::npos ? v : v.substr(colon + 1);
  auto first = word.find_first_not_of(' ');
  return first == std::string::npos ? "" : word.substr(first);
}

Tri uverbs_of(const RdmaDevice& d) {
  if (!d.uverbs) return Tri::Unknown;
  return *d.uverbs ? Tri::Yes : Tri::No;
}

const Endpoint* nic_endpoint(const Topology& t, const RdmaDevice& d) {
  for (const Endpoint* n : t.with_role(DeviceRole::Nic))
    if ((d.pci && n->address == d.pci) || n->name == d.name) return n;
  return nullptr;
}

Tri tri_of(NvLinkAnswer a) {
  return a == NvLinkAnswer::Yes ? Tri::Yes : a == NvLinkAnswer::No ? Tri::No : Tri::Unknown;
}

// NVLink per GPU from the topology, nvidia-smi's outputs (captured in the
// root, or run on a live host) and the device IDs (topology/nvlink_facts.h).
NvLinkFacts nvlink_of(const Topology& t, const HostState& h) {
  std::optional<Topology> matrix;
  if (const auto& text = h.nvidia_smi.topo_matrix.text) try {
      matrix = read_smi_text(*text, h.nvidia_smi.topo_matrix.origin);
    } catch (const std::exception&) {
      matrix.reset();  // not a matrix: the other evidence decides
    }
  std::optional<NvLinkStatus> status;
  if (const auto& text = h.nvidia_smi.nvlink_status.text) status = parse_nvidia_smi_nvlink(*text);
  return nvlink_facts(t, {matrix ? &*matrix : nullptr, status ? &*status : nullptr});
}

// A GPU known to sit on an NVSwitch fabric or an HGX board reaches every
// other GPU of the host over NVLink, even when the evidence names no peer.
std::vector<std::string> peers_of(const Topology& t, const GpuNvLink& n) {
  if (!n.peers.empty() || n.answer != NvLinkAnswer::Yes || !(n.via_nvswitch || n.inferred)) return n.peers;
  std::vector<std::string> all;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu))
    if (g->id != n.gpu) all.push_back(g->id);
  return all;
}

int preference_of(NcclInstallKind k) {
  switch (k) {
    case NcclInstallKind::Library:
      return 0;
    case NcclInstallKind::Wheel:
      return 1;
    case NcclInstallKind::Conda:
      return 2;
    case NcclInstallKind::Header:
      return 3;
  }
  return 3;
}

}  // namespace

std::vector<NcclFound> nccl_found(const HostState& h) {
  std::vector<NcclFound> out;
  for (const auto& i : h.nccl_installed)
    out.push_back({i.version, std::string(nccl_install_kind_name(i.kind)) + " " + i.path, preference_of(i.kind)});
  return out;
}

std::optional<NetPluginFacts> net_plugin_facts(const HostState& h) {
  const NcclSetting* s = h.nccl.find("NCCL_NET_PLUGIN");
  const NetPluginFile* f = plugin_nccl_loads(h.net_plugins, s ? s->value : "");
  if (!f) return std::nullopt;
  return NetPluginFacts{f->plugin, f->path};
}

std::map<std::string, GpuFacts> gpu_facts(const Topology& t, const HostState& h) {
  std::map<std::string, GpuFacts> out;
  NvLinkFacts nvlink = nvlink_of(t, h);
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    GpuFacts f;
    f.model = g->model;
    if (const GpuNvLink* n = nvlink.find(g->id)) {
      f.nvlink = tri_of(n->answer);
      f.nvlink_peers = peers_of(t, *n);
      f.nvlink_evidence = n->evidence;
    }
    if (g->node >= 0)
      if (auto info = nvidia_gpu_info(t.nodes[g->node].device, g->model)) {
        f.sm = info->sm;
        f.gdr_capable = info->gdr_capable ? Tri::Yes : Tri::No;
        f.c2c = c2c_family(info->family) ? Tri::Yes : Tri::No;
      }
    out[g->id] = f;
  }
  return out;
}

std::optional<std::vector<NicPortFacts>> nic_port_facts(const Topology& t, const HostState& h) {
  if (h.rdma.empty()) return std::nullopt;
  std::vector<NicPortFacts> out;
  for (const auto& d : h.rdma) {
    const Endpoint* nic = nic_endpoint(t, d);
    if (!nic) continue;
    for (const auto& p : d.ports) {
      NicPortFacts f;
      f.nic_id = nic->id;
      f.device = d.name;
      f.port = p.number;
      f.uverbs = uverbs_of(d);
      f.state = port_word(p.state);
      f.link_layer = p.link_layer.value.value_or("");
      f.gbps = parse_ib_rate_gbps(p.rate.value.value_or("")).value_or(0);
      out.push_back(f);
    }
  }
  return out;
}

}  // namespace gdrcheck

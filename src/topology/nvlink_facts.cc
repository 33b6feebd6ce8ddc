#include "topology/nvlink_facts.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "host/device_ids.h"
#include "topology/path_class.h"

namespace gdrcheck {
namespace {

constexpr uint32_t kNvSwitchClass = 0x068000;  // NCCL's class for an NVSwitch (0x068001 is a CPU)

// What one piece of evidence says about one GPU. Unknown with a sentence
// is a remark ("does not list GPU 3") kept for an Unknown answer.
struct Verdict {
  NvLinkAnswer answer = NvLinkAnswer::Unknown;
  NvLinkSource source = NvLinkSource::None;
  std::vector<std::string> peers;
  bool via_nvswitch = false;
  bool inferred = false;
  std::string evidence;
  bool decided() const { return answer != NvLinkAnswer::Unknown; }
};

std::string list(const std::vector<std::string>& items) {
  constexpr std::size_t kMax = 8;
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kMax; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > kMax) out += " and " + std::to_string(items.size() - kMax) + " more";
  return out;
}

std::string hex4(uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04x", v);
  return buf;
}

// "GPU12" -> 12; -1 for anything else.
int gpu_number(const std::string& id) {
  if (id.size() < 4 || id.size() > 8 || id.compare(0, 3, "GPU") != 0) return -1;
  int n = 0;
  for (std::size_t i = 3; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return -1;
    n = n * 10 + (id[i] - '0');
  }
  return n;
}

// ------------------------------------------------------------- context

struct NvlinkContext {
  const Topology& t;
  std::vector<const Endpoint*> gpus;       // endpoint order
  std::vector<const Endpoint*> smi_order;  // nvidia-smi index -> GPU
  std::vector<const Endpoint*> nvswitches;
  const Topology* matrix = nullptr;      // usable `topo -m`
  const NvLinkStatus* status = nullptr;  // usable `nvlink --status`
  bool records_nvlinks = false;          // the topology source records NVLinks at all
};

const Endpoint* endpoint_at(const std::vector<const Endpoint*>& eps, const std::string& bus_id) {
  auto addr = PciAddress::parse(bus_id);
  if (!addr) return nullptr;
  for (const Endpoint* e : eps)
    if (e->address && *e->address == *addr) return e;
  return nullptr;
}

bool links_to_nvswitch(const NvlinkContext& c, const NvLinkPeer& l) {
  return l.target_class == kNvSwitchClass || endpoint_at(c.nvswitches, l.target) != nullptr;
}

bool has_nvswitch_link(const NvlinkContext& c, const Endpoint& g) {
  return std::any_of(g.nvlinks.begin(), g.nvlinks.end(),
                     [&](const NvLinkPeer& l) { return l.count > 0 && links_to_nvswitch(c, l); });
}

bool has_gpu_link(const NvlinkContext& c, const Endpoint& g) {
  return has_nvswitch_link(c, g) || std::any_of(g.nvlinks.begin(), g.nvlinks.end(), [&](const NvLinkPeer& l) {
           const Endpoint* peer = endpoint_at(c.gpus, l.target);
           return l.count > 0 && peer && peer != &g;
         });
}

// The matrix is usable when its GPUs are GPU0..GPUn-1 for the same n.
const Topology* usable_matrix(const NvlinkContext& c, const NvLinkInputs& in, std::vector<std::string>& notes) {
  const Topology* m = in.smi_matrix ? in.smi_matrix : (c.t.kind == SourceKind::SmiText ? &c.t : nullptr);
  if (!m || m == &c.t) return m;
  auto gpus = m->with_role(DeviceRole::Gpu);
  bool numbered = std::all_of(gpus.begin(), gpus.end(), [&](const Endpoint* g) {
    int n = gpu_number(g->id);
    return n >= 0 && static_cast<std::size_t>(n) < gpus.size();
  });
  if (gpus.size() != c.gpus.size() || !numbered) {
    notes.push_back("nvidia-smi topo -m lists " + std::to_string(gpus.size()) + " GPUs, the topology " +
                    std::to_string(c.gpus.size()) + ": its NV# codes were not used");
    return nullptr;
  }
  return m;
}

const NvLinkStatus* usable_status(const NvlinkContext& c, const NvLinkInputs& in, std::vector<std::string>& notes) {
  const NvLinkStatus* s = in.nvlink_status;
  if (!s) return nullptr;
  if (s->kind != NvLinkStatus::Kind::Found) {
    notes.push_back("nvidia-smi nvlink --status: " + s->problem);
    return nullptr;
  }
  for (const auto& g : s->gpus) {
    if (static_cast<std::size_t>(g.index) < c.gpus.size()) continue;
    notes.push_back("nvidia-smi nvlink --status lists GPU " + std::to_string(g.index) + " but the topology has " +
                    std::to_string(c.gpus.size()) + " GPUs: its link states were not used");
    return nullptr;
  }
  return s;
}

NvlinkContext make_nvlink_context(const Topology& t, const NvLinkInputs& in, std::vector<std::string>& notes) {
  NvlinkContext c{t, t.with_role(DeviceRole::Gpu), gpus_in_smi_order(t), t.with_role(DeviceRole::NvSwitch)};
  c.records_nvlinks = std::any_of(c.gpus.begin(), c.gpus.end(), [&](const Endpoint* g) { return has_gpu_link(c, *g); });
  bool wants_smi = in.smi_matrix || in.nvlink_status || t.kind == SourceKind::SmiText;
  if (wants_smi && c.smi_order.empty() && !c.gpus.empty()) {
    notes.push_back("a GPU has no bus id: nvidia-smi's GPU numbers cannot be matched, its evidence was not used");
    return c;
  }
  c.matrix = usable_matrix(c, in, notes);
  c.status = usable_status(c, in, notes);
  return c;
}

int smi_index(const NvlinkContext& c, const Endpoint& g) {
  auto it = std::find(c.smi_order.begin(), c.smi_order.end(), &g);
  return it == c.smi_order.end() ? -1 : static_cast<int>(it - c.smi_order.begin());
}

// ------------------------------------------------------------- evidence

std::string topology_name(const Topology& t) {
  return t.kind == SourceKind::NcclXml ? "the NCCL topology"
                                       : std::string("the ") + source_kind_name(t.kind) + " topology";
}

// 1. NVLinks the topology itself records.
Verdict from_topology(const NvlinkContext& c, const Endpoint& g) {
  Verdict v;
  v.source = NvLinkSource::Topology;
  int count = 0, to_itself = 0;
  for (const auto& l : g.nvlinks) {
    const Endpoint* peer = endpoint_at(c.gpus, l.target);
    if (l.count > 0 && peer == &g) to_itself += l.count;
    if (l.count <= 0 || !peer || peer == &g) continue;
    count += l.count;
    if (std::find(v.peers.begin(), v.peers.end(), peer->id) == v.peers.end()) v.peers.push_back(peer->id);
  }
  if (has_nvswitch_link(c, g)) {
    std::vector<std::string> switched;
    for (const Endpoint* o : c.gpus)
      if (o != &g && has_nvswitch_link(c, *o)) switched.push_back(o->id);
    if (!switched.empty()) {
      v.via_nvswitch = true;
      for (auto& id : switched)
        if (std::find(v.peers.begin(), v.peers.end(), id) == v.peers.end()) v.peers.push_back(id);
      v.answer = NvLinkAnswer::Yes;
      v.evidence = topology_name(c.t) + " records NVLinks from " + g.id + " to NVSwitches, as for " + list(switched);
      return v;
    }
  }
  if (!v.peers.empty()) {
    v.answer = NvLinkAnswer::Yes;
    v.evidence =
        topology_name(c.t) + " records " + std::to_string(count) + " NVLink(s) from " + g.id + " to " + list(v.peers);
  } else if (c.records_nvlinks) {
    v.answer = NvLinkAnswer::No;
    v.evidence = topology_name(c.t) + " records NVLinks for other GPUs but none from " + g.id + " to a GPU";
  } else if (to_itself > 0) {
    // Seen in VMs: NVML names the peer by the host's bus id, which NCCL
    // cannot find, so the link leads nowhere NCCL can use.
    v.evidence = topology_name(c.t) + " records " + std::to_string(to_itself) + " NVLink(s) from " + g.id +
                 " to its own bus id: the peer GPU is not visible (a VM?)";
  }
  return v;
}

// 2a. NV# codes in `nvidia-smi topo -m`.
Verdict from_matrix(const NvlinkContext& c, const Endpoint& g) {
  Verdict v;
  v.source = NvLinkSource::SmiMatrix;
  int k = smi_index(c, g);
  if (!c.matrix || k < 0) return v;
  std::string me = "GPU" + std::to_string(k);
  auto cell = [&](const std::string& a, const std::string& b) -> std::optional<std::string> {
    auto it = c.matrix->printed_matrix.find({a, b});
    if (it == c.matrix->printed_matrix.end()) return std::nullopt;
    return it->second;
  };
  std::vector<std::string> codes;
  bool complete = true;
  for (std::size_t j = 0; j < c.smi_order.size(); ++j) {
    if (static_cast<int>(j) == k) continue;
    std::string other = "GPU" + std::to_string(j);
    auto code = cell(me, other);
    if (!code || parse_smi_code(*code).path == SmiPath::Unknown) code = cell(other, me);
    if (!code || parse_smi_code(*code).path == SmiPath::Unknown) {
      complete = false;
      continue;
    }
    if (parse_smi_code(*code).path != SmiPath::NVLink) continue;
    v.peers.push_back(c.smi_order[j]->id);
    codes.push_back(*code + " to " + c.smi_order[j]->id);
  }
  if (!v.peers.empty()) {
    v.answer = NvLinkAnswer::Yes;
    v.evidence = "nvidia-smi topo -m shows " + list(codes);
  } else if (complete) {
    v.answer = NvLinkAnswer::No;
    v.evidence = "nvidia-smi topo -m shows no NV# between " + g.id + " and any other GPU";
  } else {
    v.evidence = "nvidia-smi topo -m has no code for some pairs with " + g.id;
  }
  return v;
}

// 2b. `nvidia-smi nvlink --status` (or -R) block of this GPU.
Verdict from_status(const NvlinkContext& c, const Endpoint& g) {
  Verdict v;
  v.source = NvLinkSource::SmiLinkStatus;
  int k = smi_index(c, g);
  if (!c.status || k < 0) return v;
  const NvLinkGpu* block = c.status->find(k);
  if (!block) {
    v.evidence = "nvidia-smi nvlink --status does not list GPU " + std::to_string(k);
    return v;
  }
  std::string said = "nvidia-smi nvlink --status GPU " + std::to_string(k) + ": " + block->describe();
  v.evidence = said;
  switch (block->state()) {
    case NvLinkGpuState::Active:
      v.answer = NvLinkAnswer::Yes;
      for (const auto& l : block->links) {
        if (l.remote_bus_id.empty()) continue;
        if (const Endpoint* peer = endpoint_at(c.gpus, l.remote_bus_id); peer && peer != &g) {
          if (std::find(v.peers.begin(), v.peers.end(), peer->id) == v.peers.end()) v.peers.push_back(peer->id);
        } else if (endpoint_at(c.nvswitches, l.remote_bus_id)) {
          v.via_nvswitch = true;
        }
      }
      if (!v.peers.empty()) v.evidence = said + " = " + list(v.peers);
      break;
    case NvLinkGpuState::AllInactive:
      v.answer = NvLinkAnswer::No;
      break;
    case NvLinkGpuState::Unknown:
      break;
  }
  return v;
}

NvLinkFormFactor form_factor(const NvlinkContext& c, const Endpoint& g) {
  if (g.node < 0 || static_cast<std::size_t>(g.node) >= c.t.nodes.size()) return NvLinkFormFactor::Unknown;
  const PciNode& n = c.t.nodes[static_cast<std::size_t>(g.node)];
  if (!n.ids_known || n.vendor != 0x10de) return NvLinkFormFactor::Unknown;
  return nvlink_form_factor(n.device, g.model);
}

// "GH100 [H100 SXM5 80GB] (device 0x2330)"; "device unknown" without ids.
std::string model_of(const NvlinkContext& c, const Endpoint& g) {
  if (g.node < 0 || static_cast<std::size_t>(g.node) >= c.t.nodes.size()) return "model unknown";
  const PciNode& n = c.t.nodes[static_cast<std::size_t>(g.node)];
  if (!n.ids_known) return "model unknown";
  std::string name = g.model;
  if (name.empty())
    if (auto info = nvidia_gpu_info(n.device)) name = info->family;
  std::string id = "device 0x" + hex4(n.device);
  return name.empty() ? id : name + " (" + id + ")";
}

std::vector<std::string> sxm_peers(const NvlinkContext& c, const Endpoint& g) {
  std::vector<std::string> out;
  for (const Endpoint* o : c.gpus)
    if (o != &g && form_factor(c, *o) == NvLinkFormFactor::Sxm) out.push_back(o->id);
  return out;
}

// 3. NVSwitch functions next to SXM modules: every GPU on the board is
// linked through them.
Verdict from_nvswitch(const NvlinkContext& c, const Endpoint& g) {
  Verdict v;
  v.source = NvLinkSource::NvSwitch;
  if (c.nvswitches.empty() || form_factor(c, g) != NvLinkFormFactor::Sxm) return v;
  v.peers = sxm_peers(c, g);
  if (v.peers.empty()) return v;
  std::vector<std::string> ids;
  for (const Endpoint* s : c.nvswitches) ids.push_back(s->id);
  v.answer = NvLinkAnswer::Yes;
  v.via_nvswitch = true;
  v.evidence = std::to_string(c.nvswitches.size()) + " NVSwitch function(s) (" + list(ids) + ") next to the SXM " +
               "module " + g.id + ": the baseboard links every GPU through them";
  return v;
}

// 4. The device ID's form factor.
Verdict from_device_id(const NvlinkContext& c, const Endpoint& g) {
  Verdict v;
  v.source = NvLinkSource::DeviceId;
  std::string model = g.id + ", " + model_of(c, g);
  switch (form_factor(c, g)) {
    case NvLinkFormFactor::Sxm: {
      std::size_t others = sxm_peers(c, g).size();
      if (others == 0) {
        v.evidence =
            model + ", is an SXM module but no other GPU here is one; what would tell: nvidia-smi nvlink --status";
        return v;
      }
      v.answer = NvLinkAnswer::Yes;
      v.inferred = true;
      v.evidence = model + ", is an SXM module with " + std::to_string(others) +
                   " more on this host: NVLink inferred from the form factor (an HGX baseboard always links its GPUs)";
      return v;
    }
    case NvLinkFormFactor::None:
      v.answer = NvLinkAnswer::No;
      v.evidence = model + ", has no NVLink";
      return v;
    case NvLinkFormFactor::BridgeCapable:
      v.evidence = model +
                   ", is a PCIe card that can take an NVLink bridge; whether one is fitted shows in "
                   "nvidia-smi nvlink --status";
      return v;
    case NvLinkFormFactor::Unknown:
      break;
  }
  v.evidence = "no NVLink evidence for " + model + "; what would tell: nvidia-smi nvlink --status";
  return v;
}

// ------------------------------------------------------------- decision

// An observed "no" on a module that only exists NVLinked means its links
// are down, which is worth more than "disagrees".
std::string disagreement(const Verdict& chosen, const Verdict& other) {
  if (chosen.answer == NvLinkAnswer::No && other.source == NvLinkSource::DeviceId && other.inferred)
    return "an SXM module without an NVLink to another GPU: its links are down (fabric manager not running, or a "
           "hardware fault; see nvidia-smi nvlink -e and -s)";
  return std::string(nvlink_source_name(other.source)) + " says " + nvlink_answer_name(other.answer) + ": " +
         other.evidence;
}

GpuNvLink decide(const NvlinkContext& c, const Endpoint& g) {
  std::vector<Verdict> all;
  if (c.gpus.size() == 1) {
    Verdict single;
    single.answer = NvLinkAnswer::No;
    single.source = NvLinkSource::SingleGpu;
    single.evidence = g.id + " is the only GPU on this host: there is no other GPU to link to";
    all.push_back(single);
  }
  for (auto rule : {from_topology, from_matrix, from_status, from_nvswitch, from_device_id}) all.push_back(rule(c, g));

  GpuNvLink out;
  out.gpu = g.id;
  auto chosen = std::find_if(all.begin(), all.end(), [](const Verdict& v) { return v.decided(); });
  if (chosen == all.end()) {
    out.evidence = all.back().evidence;  // the device-id sentence says what would tell
    for (std::size_t i = 0; i + 1 < all.size(); ++i)
      if (!all[i].evidence.empty()) out.notes.push_back(all[i].evidence);
    return out;
  }
  out.answer = chosen->answer;
  out.source = chosen->source;
  out.peers = chosen->peers;
  out.via_nvswitch = chosen->via_nvswitch;
  out.inferred = chosen->inferred;
  out.evidence = chosen->evidence;
  for (auto it = chosen + 1; it != all.end(); ++it)
    if (it->decided() && it->answer != chosen->answer) out.notes.push_back(disagreement(*chosen, *it));
  return out;
}

}  // namespace

const char* nvlink_answer_name(NvLinkAnswer a) {
  switch (a) {
    case NvLinkAnswer::No:
      return "no";
    case NvLinkAnswer::Yes:
      return "yes";
    case NvLinkAnswer::Unknown:
      return "unknown";
  }
  return "unknown";
}

const char* nvlink_source_name(NvLinkSource s) {
  switch (s) {
    case NvLinkSource::Topology:
      return "topology";
    case NvLinkSource::SmiMatrix:
      return "nvidia-smi topo -m";
    case NvLinkSource::SmiLinkStatus:
      return "nvidia-smi nvlink --status";
    case NvLinkSource::NvSwitch:
      return "nvswitch";
    case NvLinkSource::DeviceId:
      return "device id";
    case NvLinkSource::SingleGpu:
      return "single gpu";
    case NvLinkSource::None:
      return "none";
  }
  return "none";
}

const GpuNvLink* NvLinkFacts::find(const std::string& gpu) const {
  for (const auto& g : gpus)
    if (g.gpu == gpu) return &g;
  return nullptr;
}

std::vector<const Endpoint*> gpus_in_smi_order(const Topology& t) {
  std::vector<const Endpoint*> gpus = t.with_role(DeviceRole::Gpu);
  if (t.kind == SourceKind::SmiText) {
    std::stable_sort(gpus.begin(), gpus.end(),
                     [](const Endpoint* a, const Endpoint* b) { return gpu_number(a->id) < gpu_number(b->id); });
    return gpus;
  }
  if (std::any_of(gpus.begin(), gpus.end(), [](const Endpoint* g) { return !g->address; })) return {};
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const Endpoint* a, const Endpoint* b) { return *a->address < *b->address; });
  return gpus;
}

NvLinkFacts nvlink_facts(const Topology& t, const NvLinkInputs& in) {
  NvLinkFacts facts;
  NvlinkContext c = make_nvlink_context(t, in, facts.notes);
  for (const Endpoint* g : c.gpus) facts.gpus.push_back(decide(c, *g));
  return facts;
}

}  // namespace gdrcheck

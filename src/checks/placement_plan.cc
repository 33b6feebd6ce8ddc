#include "checks/placement_plan.h"

#include <algorithm>

#include "checks/node_evidence.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

std::string name_of(const NodeReport& r, const std::string& id) {
  const Endpoint* e = r.topology.find(id);
  return e ? printable(e->role == DeviceRole::Nic ? e->name : e->id) : printable(id);
}

// Where a NIC would have to sit to be next to the GPU: the switch above it
// (the upstream port of a switch in a port tree, NCCL's switch node in its
// XML), else the root port it hangs from. Empty when the source has no tree.
const PciNode* gpu_place(const Topology& t, const Endpoint& gpu) {
  std::vector<int> chain = t.bridge_chain(gpu.node);
  if (chain.empty()) return nullptr;
  if (t.tree == TreeStyle::Ports && chain.size() >= 2) return &t.nodes[chain[chain.size() - 2]];
  return &t.nodes[chain.back()];
}

std::string place_text(const NodeReport& r, const Endpoint& gpu, const PciNode* place) {
  if (!place || !place->address) return "next to " + gpu.id + " (a NIC PIX to it)";
  return "under " + place->address->str() + " (" + gpu.id + "'s " +
         (place->parent >= 0 && r.topology.tree == TreeStyle::Ports && r.topology.bridge_chain(gpu.node).size() < 2
              ? "root port"
              : "switch") +
         ")";
}

// Another GPU gets GDR through this NIC: moving it would take that away.
bool serves_another(const NodeReport& r, const std::string& nic, const std::string& gpu) {
  return std::any_of(r.pairs.begin(), r.pairs.end(),
                     [&](const PairVerdict& v) { return v.gpu != gpu && v.nic == nic && v.gdr_recv == GdrUse::Yes; });
}

void distance_change(const NodeReport& r, const GdrPrediction& p, PlanStep& s) {
  const Endpoint* gpu = r.topology.find(p.gpu);
  const Endpoint* nic = p.nics.empty() ? nullptr : r.topology.find(p.nics.front());
  if (!gpu) return;
  const PciNode* place = gpu->node >= 0 ? gpu_place(r.topology, *gpu) : nullptr;
  std::string where = place_text(r, *gpu, place);
  bool movable = nic && nic->address && place && place->address && !serves_another(r, nic->id, p.gpu);
  if (movable) {
    s.what_if = "move " + nic->address->str() + " under " + place->address->str();
    s.change = "move " + name_of(r, nic->id) + " " + where + " (try: --what-if \"" + s.what_if + "\")";
  } else {
    s.change = "add a NIC " + where;
  }
  if (p.path == NcclPath::PHB || p.path == NcclPath::P2C)
    s.change += "; or NCCL_NET_GDR_LEVEL=PHB where the root complex forwards P2P at full speed";
}

std::string change_for(GdrCause c) {
  switch (c) {
    case GdrCause::Transport:
      return "let NCCL use its IB transport (NCCL_IB_DISABLE, NCCL_NET, the net plugin)";
    case GdrCause::NoNic:
      return "add an RDMA NIC";
    case GdrCause::PeerMemory:
    case GdrCause::OldNccl:
      return "load nvidia_peermem on the host (or use DMA-BUF: open GPU kernel module, Linux 5.12+)";
    case GdrCause::GpuSide:
      return "a GPU with GPUDirect RDMA (data-center or professional)";
    case GdrCause::LevelSetting:
      return "remove NCCL_NET_GDR_LEVEL from the job's settings";
    case GdrCause::ReadSetting:
      return "remove NCCL_NET_GDR_READ=0 (sends only)";
    case GdrCause::ReadRule:
      return "none in placement: NCCL stages sends on this GPU and release (receives use GDR)";
    case GdrCause::NvlinkUnknown:
    case GdrCause::PathUnknown:
      return "a topology that shows it (lstopo XML or NCCL's dump of the machine)";
    case GdrCause::Distance:
      break;
  }
  return "";
}

PlanStep step_for(const NodeReport& r, const GdrPrediction& p) {
  PlanStep s;
  s.gpu = p.gpu;
  s.gets_gdr = p.send == Tri::Yes && p.recv == Tri::Yes;
  std::string nic = p.nics.empty() ? "" : name_of(r, p.nics.front());
  if (!p.pxn_peer.empty())
    s.how = "through " + name_of(r, p.pxn_peer) + "'s NIC " + name_of(r, p.send_nic) + " (PXN)";
  else if (!nic.empty())
    s.how = nic + ", " + nccl_path_name(p.path);
  if (s.gets_gdr || p.causes.empty()) return s;
  s.why_not = gdr_cause_words(p);
  if (p.causes.front() == GdrCause::Distance || p.causes.front() == GdrCause::NoNic) {
    distance_change(r, p, s);
    if (!s.change.empty()) return s;
  }
  s.change = change_for(p.causes.front());
  return s;
}

}  // namespace

std::vector<PlanStep> placement_plan(const NodeReport& r) {
  std::vector<PlanStep> out;
  for (const auto& p : r.predictions) out.push_back(step_for(r, p));
  return out;
}

}  // namespace gdrcheck

// `path`: for each GPU, the NIC NCCL would use and the PCIe path class
// (PIX/PXB keep GPUDirect RDMA on by default; PHB, NODE and SYS make NCCL
// stage through host memory), rail alignment, and flattened virtual-machine
// trees where NCCL cannot see the physical switches.
#include <algorithm>
#include <map>
#include <set>

#include "checks/node_evidence.h"
#include "host/text_format.h"
#include "topology/path_evidence.h"

namespace gdrcheck {
namespace {

bool direct_class(const std::string& nccl) {
  return nccl == "PIX" || nccl == "PXB" || nccl == "NVL" || nccl == "C2C" || nccl == "P2C";
}

// PXN: NCCL sends through an NVLink peer's NIC. GPUDirect RDMA stays on;
// a GPU that lost its own NIC now shares its peer's.
Finding pxn_path(const GdrPrediction& p, const Endpoint& nic, const std::string& pair, std::vector<std::string> ev) {
  std::string head = p.gpu + " → " + nic.name + " through " + p.pxn_peer + " over NVLink (PXN)";
  if (p.closest_left_out.empty()) return ok("path", pair, head + ": " + nic.name + " is closer to " + p.pxn_peer, ev);
  ev.insert(ev.begin(), p.closest_left_out);
  return problem("path", pair, Status::Warning, head + ": its own NIC is unusable, so it shares its NVLink peers' NICs",
                 ev, "bring the GPU's own NIC back (see the port and nic findings)");
}

std::string nccl_path_why(const NodeEvidence& e, const Endpoint& gpu, const Endpoint& nic) {
  if (e.nccl_topology != "sysfs") return "from NCCL's topology file " + e.nccl_topology;
  return e.paths.nccl_at(gpu.id, nic.id).why;
}

// Why the GPU's path to the NICs NCCL may use (or through its PXN peer) is
// not proven; empty when every one is. A path that is not switch-local is
// judged only when no NIC could be closer, so then every NIC counts.
std::string unproven_of(const NodeEvidence& e, const Endpoint& gpu, const GdrPrediction& p) {
  std::vector<std::string> whys;
  auto add = [&](const Endpoint& a, const std::string& b_id) {
    const Endpoint* b = e.topology.find(b_id);
    std::string why = b ? unproven_path_between(a, *b) : a.path_unproven;
    if (!why.empty() && std::find(whys.begin(), whys.end(), why) == whys.end()) whys.push_back(why);
  };
  for (const auto& n : p.nics) add(gpu, n);
  if (!direct_class(nccl_path_name(p.path)))
    for (const Endpoint* n : e.topology.with_role(DeviceRole::Nic))
      if (n->rdma_device) add(gpu, n->id);
  if (const Endpoint* peer = e.topology.find(p.pxn_peer))
    for (const auto& n : p.nics) add(*peer, n);
  return join(whys, "; ");
}

Finding gpu_path(const NodeEvidence& e, const Endpoint& gpu, const GdrPrediction& p) {
  const Endpoint* nic = e.topology.find(p.nics.front());
  const PathCell& smi = e.paths.smi_at(gpu.id, nic->id);
  std::string nccl = nccl_path_name(p.path);
  std::string pair = gpu.id + "-" + nic->id;
  std::vector<std::string> ev{"nvidia-smi class " + smi.code + ": " + smi.why,
                              "NCCL path " + nccl + ": " + nccl_path_why(e, gpu, *nic)};
  if (p.nics.size() > 1) {
    std::string all;
    for (const auto& n : p.nics) all += (all.empty() ? "" : ", ") + e.topology.find(n)->name;
    ev.push_back("NICs NCCL may use for " + gpu.id + ": " + all);
  }
  std::string head = gpu.id + " → " + nic->name + ": " + smi.code + (smi.code == nccl ? "" : " (NCCL " + nccl + ")");
  if (std::string why = unproven_of(e, gpu, p); !why.empty()) {
    ev[0] = why;  // the class lines would only repeat it
    ev.erase(ev.begin() + 1);
    return problem("path", pair, Status::Unknown, head + ": PCIe path not proven by the files read", ev,
                   unproven_path_fix());
  }
  if (p.path == NcclPath::Unknown || smi.code == "?")
    return problem("path", pair, Status::Unknown, head + ": path class could not be determined", ev,
                   "capture the host with numa_node and local_cpus files (or fix NUMA reporting in the BIOS)");
  if (!p.pxn_peer.empty()) return pxn_path(p, *nic, pair, ev);
  if (direct_class(nccl))
    return ok("path", pair,
              head + (e.nccl_topology == "sysfs" ? ": behind a common PCIe switch"
                                                 : ": close in NCCL's topology file " + e.nccl_topology),
              ev);
  return problem("path", pair, Status::Warning,
                 head + ": the nearest NIC is not behind the GPU's PCIe switch, NCCL stages through host memory", ev,
                 "put each GPU and its NIC under one PCIe switch (slot placement); NCCL_NET_GDR_LEVEL=PHB allows GDR "
                 "through the CPU, only where the platform routes P2P through the root complex at full speed");
}

// Several GPUs funnelled into one NIC while another NIC serves none.
std::optional<Finding> rail_alignment(const NodeEvidence& e) {
  std::map<std::string, std::vector<std::string>> users;
  std::vector<std::string> undecided;
  for (const auto& p : e.predictions) {
    if (p.nics.empty()) continue;
    const Endpoint* gpu = e.topology.find(p.gpu);
    if (p.path == NcclPath::Unknown || (gpu && !unproven_of(e, *gpu, p).empty()))
      undecided.push_back(p.gpu);
    else
      users[p.nics.front()].push_back(p.gpu);
  }
  std::vector<std::string> idle;
  for (const Endpoint* n : e.topology.with_role(DeviceRole::Nic))
    if (n->rdma_device && !users.count(n->id)) idle.push_back(n->name);
  std::vector<std::string> ev;
  bool shared = false;
  for (const auto& [nic, gpus] : users) {
    std::string list;
    for (const auto& g : gpus) list += (list.empty() ? "" : ", ") + g;
    ev.push_back(e.topology.find(nic)->name + " ← " + list);
    shared |= gpus.size() > 1;
  }
  if (users.empty() && undecided.empty()) return std::nullopt;
  // A GPU whose NIC is undecided may use an idle NIC or share a busy one.
  if (!undecided.empty())
    return problem("path", "rails", Status::Unknown,
                   "rail alignment undecided: the NIC of " + join(undecided) + " is not known", ev,
                   "see the path findings of " + join(undecided));
  if (shared && !idle.empty()) {
    std::string list;
    for (const auto& n : idle) list += (list.empty() ? "" : ", ") + n;
    return problem("path", "rails", Status::Warning,
                   "GPUs share a NIC while " + list + (idle.size() == 1 ? " serves" : " serve") + " no GPU", ev,
                   "check NIC/GPU slot placement (each GPU should have its own nearest NIC) and NCCL_IB_HCA");
  }
  return ok("path", "rails",
            shared ? "GPUs share NICs (fewer NICs than GPUs nearby)" : "each GPU has its own nearest NIC", ev);
}

// Every GPU and NIC directly under a root port or host bridge, and no pair
// sharing a switch: what hypervisors present (Azure, OCI and IBM VMs).
std::optional<Finding> flattened_tree(const NodeEvidence& e) {
  if (e.topology.tree != TreeStyle::Ports || e.nccl_topology != "sysfs") return std::nullopt;
  auto gpus = e.topology.with_role(DeviceRole::Gpu), nics = e.topology.with_role(DeviceRole::Nic);
  if (gpus.empty() || nics.empty()) return std::nullopt;
  // A device whose path is not proven may sit below a switch hwloc lost.
  for (const auto* group : {&gpus, &nics})
    for (const Endpoint* d : *group)
      if (d->node < 0 || !d->path_unproven.empty() || e.topology.bridge_chain(d->node).size() > 1) return std::nullopt;
  for (const Endpoint* g : gpus)
    for (const Endpoint* n : nics)
      if (direct_class(e.paths.nccl_at(g->id, n->id).code)) return std::nullopt;
  return problem(
      "path", "topology", Status::Warning,
      "flattened PCI tree (virtual machine?): every GPU and NIC hangs directly off the root complex, so NCCL "
      "sees only PHB/SYS paths and turns GPUDirect RDMA off",
      {"every GPU and NIC has at most one bridge above it; no GPU-NIC pair shares a switch"},
      "give NCCL the physical topology: NCCL_TOPO_FILE=<the cloud's topology XML> (e.g. Azure "
      "/opt/microsoft/ndv5-topo.xml)");
}

// No NIC of NCCL's IB transport for the GPU: NCCL falls back to sockets.
// When the transport is not the IB transport (a setting, a net plugin) the
// PCIe path is not what decides; the nccl finding says what does.
std::optional<Finding> no_nic(const GdrPrediction& p) {
  bool transport = !p.causes.empty() && p.causes.front() == GdrCause::Transport;
  if (transport && p.recv == Tri::No) return std::nullopt;
  if (transport)
    return problem("path", p.gpu, Status::Unknown, p.gpu + ": the NIC is chosen by a net plugin, not modelled",
                   {p.rules.begin(), p.rules.end()}, "see the nccl finding");
  return problem("path", p.gpu, Status::Critical,
                 p.gpu + ": no RDMA NIC NCCL can use: it falls back to sockets, no GPUDirect RDMA",
                 {p.rules.begin(), p.rules.end()}, "check the nic and port findings, ib_uverbs, and NCCL_IB_HCA");
}

}  // namespace

std::vector<Finding> check_path(const NodeEvidence& e) {
  std::vector<Finding> out;
  for (const auto& p : e.predictions) {
    const Endpoint* gpu = e.topology.find(p.gpu);
    if (!gpu) continue;
    if (p.nics.empty()) {
      if (auto f = no_nic(p)) out.push_back(*f);
      continue;
    }
    out.push_back(gpu_path(e, *gpu, p));
  }
  if (auto f = rail_alignment(e)) out.push_back(*f);
  if (auto f = flattened_tree(e)) out.push_back(*f);
  return out;
}

}  // namespace gdrcheck

// `nccl`: NCCL's predicted GPUDirect RDMA decision per GPU (send and
// receive, which NIC, the rule that decided) and the NCCL settings that
// change it — especially ones left in /etc/nccl.conf or ~/.nccl.conf, which
// silently apply to every job on the node.
#include "checks/node_evidence.h"
#include "checks/node_report.h"
#include "host/text_format.h"
#include "nccl/ib_hca_filter.h"

namespace gdrcheck {
namespace {

std::string nic_names(const NodeEvidence& e, const GdrPrediction& p) {
  std::vector<std::string> names;
  for (const auto& id : p.nics)
    if (const Endpoint* n = e.topology.find(id)) names.push_back(n->name);
  return join(names, ", ");
}

std::string fix_for(const GdrPrediction& p) {
  if (p.causes.empty()) return "see the other findings for this GPU";
  switch (p.causes.front()) {
    case GdrCause::Transport:
      return "unset NCCL_IB_DISABLE / NCCL_NET (environment, /etc/nccl.conf or ~/.nccl.conf) so NCCL uses its IB "
             "transport";
    case GdrCause::NoNic:
      return "see the nic and port findings, and NCCL_IB_HCA";
    case GdrCause::PeerMemory:
      return "see the peermem finding: load nvidia-peermem or enable the DMA-BUF path";
    case GdrCause::OldNccl:
      return "use NCCL >= 2.23.4 (it finds nvidia_peermem through /sys/module), or the DMA-BUF path (NVIDIA open "
             "kernel module, Linux >= 5.12): this NCCL looks only for /sys/kernel/mm/memory_peers, which this RDMA "
             "stack does not create";
    case GdrCause::NvlinkUnknown:
      return "run `nvidia-smi nvlink --status` (or capture it as /.gdrcheck/commands/nvidia-smi-nvlink-status.txt in "
             "the root) so NVLink is known";
    case GdrCause::GpuSide:
      return "see the gpu finding: this GPU cannot (or is not known to) do GPUDirect RDMA";
    case GdrCause::Distance:
      return "place the GPU and its NIC under one PCIe switch; NCCL_NET_GDR_LEVEL=PHB only where P2P through the CPU "
             "is fast";
    case GdrCause::LevelSetting:
      return "remove NCCL_NET_GDR_LEVEL (or set a level that reaches this NIC)";
    case GdrCause::ReadSetting:
      return "remove NCCL_NET_GDR_READ=0 unless sends must be staged on purpose";
    case GdrCause::ReadRule:
      return "NCCL_NET_GDR_READ=1 lets the NIC read GPU memory without an NVLink peer (measure before keeping it)";
    case GdrCause::PathUnknown:
      // The evidence is incomplete, not the hardware: moving cards would not help.
      return "read the node as root, or capture the root again with every /sys/bus/pci/devices/*/config; "
             "`lspci -tv` on the node shows the real tree";
  }
  return "see the other findings for this GPU";
}

// A GPU class that cannot do GDR by design (GeForce) is a WARNING, like the
// gpu check: the node is not faulty and must not be drained for it.
bool by_design(const NodeEvidence& e, const GdrPrediction& p) {
  if (p.causes.empty() || p.causes.front() != GdrCause::GpuSide) return false;
  const Endpoint* g = e.topology.find(p.gpu);
  return g && g->model.find("GeForce") != std::string::npos;
}

Finding one_gpu(const NodeEvidence& e, const GdrPrediction& p) {
  std::string head = "NCCL " + (e.nccl ? e.nccl->found : e.nccl_version).str() + ": ";
  std::string via =
      p.nics.empty() ? "no NIC" : nic_names(e, p) + " (" + nccl_path_name(p.path) + ", level " + p.level + ")";
  if (!p.pxn_peer.empty()) via += " through " + p.pxn_peer + "'s NIC (PXN)";
  std::vector<std::string> ev = p.rules;
  if (e.nccl) ev.insert(ev.begin(), "NCCL release: " + e.nccl->describe());
  for (const auto& f : p.fail_reasons) ev.push_back("will fail: " + f);
  if (p.send == Tri::Yes && p.recv == Tri::Yes)
    return ok("nccl", p.gpu, head + "GPUDirect RDMA send and receive via " + via, ev);
  std::string why = gdr_cause_words(p);
  std::string because = why.empty() ? "" : " (" + why + ")";
  if (p.send == Tri::Unknown || p.recv == Tri::Unknown)
    return problem("nccl", p.gpu, Status::Unknown, head + "GPUDirect RDMA decision unknown via " + via + because, ev,
                   fix_for(p));
  if (p.recv == Tri::Yes)
    return problem("nccl", p.gpu, Status::Warning,
                   head + "GPUDirect RDMA on receive only (sends staged through host memory) via " + via + because, ev,
                   fix_for(p));
  return problem("nccl", p.gpu, by_design(e, p) ? Status::Warning : Status::Critical,
                 head + "no GPUDirect RDMA via " + via + ": traffic staged through host memory" + because, ev,
                 fix_for(p));
}

// The topology XML NCCL loads instead of probing (NCCL_TOPO_FILE, or the
// default virtual topology from 2.10.3; src/graph/topo.cc:ncclTopoGetSystem).
// Used and matching the host: fine (cloud VMs ship one). Missing: NCCL only
// warns and probes (src/graph/xml.cc:ncclTopoGetXmlFromFile). Unparsable:
// NCCL fails to start.
std::optional<Finding> topology_file(const NodeEvidence& e) {
  const auto& f = e.host.nccl_topology_file;
  if (!f) return std::nullopt;
  std::string what = f->from_setting ? "NCCL_TOPO_FILE=" + printable(f->path) : printable(f->path);
  std::vector<std::string> ev{what};
  if (const NcclSetting* s = e.host.nccl.find("NCCL_TOPO_FILE")) ev = {s->cite()};
  ev.insert(ev.end(), e.nccl_topology_notes.begin(), e.nccl_topology_notes.end());
  std::string subject = f->from_setting ? "NCCL_TOPO_FILE" : "topology file";
  if (e.nccl_topology == f->path)
    return ok("nccl", subject,
              "NCCL builds its topology from " + printable(f->path) + ", which lists this host's GPUs by bus id", ev);
  if (!f->xml)
    return problem("nccl", subject, Status::Warning,
                   what + " cannot be read (" + f->problem + "): NCCL warns and probes the PCI tree itself", ev,
                   "point NCCL_TOPO_FILE at the file the platform ships (e.g. Azure /opt/microsoft/ndv5-topo.xml) or "
                   "remove it");
  if (e.nccl_topology_unloadable)
    return problem("nccl", subject, Status::Critical, what + " is not a topology NCCL can load: NCCL fails to start",
                   ev, "replace it with the platform's topology file or remove the setting");
  return problem("nccl", subject, Status::Warning,
                 what + " does not describe this host's GPUs: NCCL places them by probing", ev,
                 "use the topology file made for this machine type");
}

bool from_conf_file(const NcclSetting& s) {
  return s.origin.find(".conf") != std::string::npos;
}

// Settings that are easy to leave behind and that change every job.
std::vector<Finding> settings(const NodeEvidence& e) {
  std::vector<Finding> out;
  const NcclSettings& s = e.host.nccl;
  for (const auto& p : s.problems)
    out.push_back(
        problem("nccl", "settings", Status::Warning, "NCCL configuration line is not what it seems", {p},
                "NCCL reads conf lines literally: write NAME=VALUE with no spaces, export or inline comments"));
  if (const NcclSetting* hca = s.find("NCCL_IB_HCA")) {
    // The classic pitfall: an entry that names one device exactly also
    // prefix-matches others (mlx5_1 selects mlx5_10..mlx5_17 too).
    const std::string& v = hca->value;
    std::vector<std::string> extra;
    if (!v.empty() && v[0] != '=' && v[0] != '^')
      for (const auto& d : e.host.rdma)
        if (ib_hca_selects(v, d.name, 1) && !ib_hca_selects("=" + v, d.name, 1)) extra.push_back(d.name);
    if (!extra.empty())
      out.push_back(problem("nccl", "NCCL_IB_HCA", Status::Warning,
                            "NCCL_IB_HCA=" + v + " matches by prefix and also selects " + join(extra, ", "),
                            {"NCCL_IB_HCA=" + v + " (" + hca->origin + ")"},
                            "use exact names with a leading '=' (NCCL_IB_HCA==" + v + ")"));
  }
  if (auto f = topology_file(e)) out.push_back(*f);
  for (const char* name :
       {"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_IB_DISABLE", "NCCL_NET", "NCCL_DMABUF_ENABLE"}) {
    const NcclSetting* v = s.find(name);
    if (!v || !from_conf_file(*v)) continue;
    out.push_back(problem(
        "nccl", name, Status::Warning,
        std::string(name) + "=" + v->value + " is set in " + v->origin + " and applies to every NCCL job on this node",
        {std::string(name) + "=" + v->value + " (" + v->origin + ")"},
        "remove it from " + v->origin.substr(0, v->origin.rfind(':')) + " unless every job needs it"));
  }
  return out;
}

}  // namespace

// What kept GDR off, in a few words for the summary.
std::string gdr_cause_words(const GdrPrediction& p) {
  if (p.causes.empty()) return "";
  switch (p.causes.front()) {
    case GdrCause::Transport:
      return "NCCL's IB transport is not used";
    case GdrCause::NoNic:
      return "no RDMA NIC NCCL can use, it falls back to sockets";
    case GdrCause::PeerMemory:
      return "the NIC cannot register GPU memory (no peer memory, no DMA-BUF)";
    case GdrCause::OldNccl:
      return "this NCCL does not find nvidia_peermem on this RDMA stack";
    case GdrCause::GpuSide:
      return "the GPU does not offer GPUDirect RDMA";
    case GdrCause::Distance:
      return "the NIC is too far from the GPU for the GDR level";
    case GdrCause::LevelSetting:
      return "NCCL_NET_GDR_LEVEL rules it out";
    case GdrCause::ReadSetting:
      return "NCCL_NET_GDR_READ=0";
    case GdrCause::ReadRule:
      return "the send side needs an NVLink peer on this GPU and NCCL";
    case GdrCause::NvlinkUnknown:
      return "NVLink is not known";
    case GdrCause::PathUnknown:
      return "a PCIe path is not proven by the files read (" + printable(p.unknown_path) + ")";
  }
  return "";
}

// "GPU0, GPU1 and GPU5": the GPUs whose prediction matches.
std::string gpus_where(const std::vector<GdrPrediction>& preds, bool (*pick)(const GdrPrediction&)) {
  std::vector<std::string> ids;
  for (const auto& p : preds)
    if (pick(p)) ids.push_back(p.gpu);
  return join(ids, ", ");
}

bool no_gdr(const GdrPrediction& p) {
  return p.recv == Tri::No;
}
bool send_staged(const GdrPrediction& p) {
  return p.recv == Tri::Yes && p.send == Tri::No;
}

// Another NCCL release on the node that would decide differently: jobs that
// load it (a wheel in a venv, a conda env) get that behaviour. A WARNING,
// not CRITICAL: the node is fine for jobs using the release predicted above.
std::vector<Finding> alternatives(const NodeEvidence& e) {
  std::vector<Finding> out;
  if (!e.nccl_alternatives) return out;
  std::string primary_none = gpus_where(e.predictions, no_gdr), primary_send = gpus_where(e.predictions, send_staged);
  for (const auto& alt : *e.nccl_alternatives) {
    std::string none = gpus_where(alt.predictions, no_gdr), send = gpus_where(alt.predictions, send_staged);
    if (none == primary_none && send == primary_send) continue;
    std::vector<std::string> ev{"NCCL release: " + alt.nccl.describe()};
    for (const auto& p : alt.predictions)
      if (no_gdr(p) || send_staged(p)) {
        ev.push_back(p.gpu + ": " + p.decided_by);
        break;
      }
    std::string what = !none.empty() ? "no GPUDirect RDMA on " + none : "sends staged through host memory on " + send;
    out.push_back(problem("nccl", "NCCL " + alt.nccl.found.str(), Status::Warning,
                          "jobs that load NCCL " + alt.nccl.found.str() + " (" + alt.nccl.origin + ") get " + what, ev,
                          alt.predictions.empty() || alt.predictions.front().causes.empty()
                              ? "use the NCCL release predicted above"
                              : fix_for(alt.predictions.front())));
  }
  return out;
}

std::vector<Finding> check_nccl(const NodeEvidence& e) {
  std::vector<Finding> out;
  for (const auto& p : e.predictions) out.push_back(one_gpu(e, p));
  auto alt = alternatives(e);
  out.insert(out.end(), alt.begin(), alt.end());
  auto more = settings(e);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace gdrcheck

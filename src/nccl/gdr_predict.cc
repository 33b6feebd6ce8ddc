// NCCL's GPUDirect RDMA decision, predicted (docs/nccl-model.md).
// Written from NCCL's source as cited; no NCCL code is reused.
//
// Approximations (each also noted where it applies):
//  - Path bandwidth is the smaller of the GPU's PCIe link and the NIC's port
//    rate; NCCL also takes the switch links in between.
//  - NIC-side GDR is host-wide (peer-memory files and DMA-BUF preconditions).
//  - A communicator is assumed to hold every GPU of the host.
#include "nccl/gdr_predict.h"

#include <strings.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "host/text_format.h"
#include "nccl/gdr_level.h"
#include "nccl/net_choice.h"

namespace gdrcheck {
namespace {

// A verdict on one condition plus the sentences explaining it.
struct Side {
  Tri ok = Tri::Yes;
  std::vector<std::string> rules;
};

void add(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// ---- transport -------------------------------------------------------------------------

// Which transport carries the traffic. NCCL tries an external net plugin
// first, then its own IB transport, then sockets; the first that starts
// with a device wins (src/net.cc:ncclNetInit@v2.12.12-1,
// src/plugin/net.cc:ncclNetInit@v2.30.7-1). NCCL_NET picks one by name;
// NCCL_IB_DISABLE turns off only the internal IB transport.
std::string plugin_gdr_note(const NetPluginFacts& p) {
  if (p.plugin == "aws-ofi-nccl")
    return "aws-ofi-nccl gives NCCL GPU memory when libfabric's provider offers FI_HMEM (EFA on instance types with "
           "RDMA); it reads no peer-memory file";
  if (p.plugin == "nccl-rdma-sharp-plugins")
    return "the HPC-X IBext plugin applies NCCL's peer-memory test (older builds look only for "
           "/sys/kernel/mm/memory_peers/nv_mem/version) and is turned off by NCCL_IBEXT_DISABLE, not NCCL_IB_DISABLE";
  return "its GPUDirect RDMA decision is the plugin's own";
}

Side transport_side(const GdrPredictInput& in, const NcclSettings& st) {
  const NcclSetting* net = st.find("NCCL_NET");
  bool named = net && !net->value.empty();
  if (named && strcasecmp(net->value.c_str(), "Socket") == 0)
    return {Tri::No, {net->cite() + ": Socket transport, never GDR"}};
  bool ib_named = named && strcasecmp(net->value.c_str(), "IB") == 0;
  if (in.net_plugin && !ib_named)
    return {Tri::Unknown,
            {"net plugin " + printable(in.net_plugin->plugin) + " (" + printable(in.net_plugin->path) +
             ") is tried before NCCL's own IB transport and carries the traffic if it starts; " +
             plugin_gdr_note(*in.net_plugin) +
             " — not modelled: `gdrcheck analyze` on the job's NCCL_DEBUG=INFO "
             "log shows the transport and GDRDMA"}};
  if (nccl_int_param(st, "NCCL_IB_DISABLE", 0) != 0)
    return {Tri::No, {st.find("NCCL_IB_DISABLE")->cite() + ": Socket transport, never GDR"}};
  if (named && !ib_named)
    return {Tri::Unknown, {net->cite() + " selects a network plugin; gdrcheck predicts only NCCL's own IB transport"}};
  return {};
}

// ---- per-run context ---------------------------------------------------------------

struct PredictContext {
  const GdrPredictInput& in;
  const Topology& view;
  NcclSettings settings;  // as this release reads them
  std::string v;
  Side transport;
  std::vector<const Endpoint*> gpus;
  NcclNetList nets;
  GdrLevel level;
  NicSideGdr nic_side;
};

// ---- NIC side ---------------------------------------------------------------------------

// A recorded NCCL XML carries NCCL's own verdict for a device (gdr="1").
Side recorded_gdr(const Endpoint& e, const std::string& what) {
  auto g = e.int_attribute("gdr");
  if (!g) return {Tri::Unknown, {}};
  return {*g ? Tri::Yes : Tri::No, {"NCCL topology XML records gdr=" + std::to_string(*g) + " for " + what}};
}

// Host files (or a planner's statement) decide first; a topology file's
// record of NCCL's own verdict decides when they cannot, and over the
// default a topology file is judged with (node --topo): the record was made
// on the machine the file describes.
Side net_side(const PredictContext& c, const Endpoint& nic) {
  Side s{c.nic_side.selected, c.nic_side.rules};
  if (s.ok != Tri::Unknown && !c.nic_side.assumed) return s;
  Side rec = recorded_gdr(nic, printable(nic.name));
  if (rec.ok == Tri::Unknown) return s;
  add(rec.rules, s.rules);
  return rec;
}

// ---- GPU side ---------------------------------------------------------------------------

const GpuFacts* gpu_facts_of(const PredictContext& c, const Endpoint& gpu) {
  auto it = c.in.gpus.find(gpu.id);
  return it == c.in.gpus.end() ? nullptr : &it->second;
}

int gpu_sm(const PredictContext& c, const Endpoint& gpu) {
  const GpuFacts* f = gpu_facts_of(c, gpu);
  if (f && f->sm > 0) return f->sm;
  return gpu.int_attribute("sm").value_or(0);
}

// ncclGpuGdrSupport asks CUDA (cudaDevAttrGPUDirectRDMASupported), which is
// 0 on GeForce; files cannot show the attribute, the device ID can.
Side gpu_side(const PredictContext& c, const Endpoint& gpu, int sm) {
  Side rec = recorded_gdr(gpu, gpu.id);
  if (rec.ok != Tri::Unknown) return rec;
  const GpuFacts* f = gpu_facts_of(c, gpu);
  if (f && f->gdr_capable == Tri::No)
    return {Tri::No,
            {gpu.id + " (" + printable(f->model) +
             ") reports cudaDevAttrGPUDirectRDMASupported = 0: NCCL keeps GPU memory away from the NIC "
             "(src/plugin/net.cc:ncclGpuGdrSupport@v2.30.7-1)"}};
  if (sm == 0)
    return {Tri::Yes,
            {"compute capability of " + gpu.id +
             " unknown: assumed GDR-capable (sm >= 60; cudaDevAttrGPUDirectRDMASupported cannot be read from files)"}};
  if (sm < 60)
    return {Tri::Unknown,
            {"sm " + std::to_string(sm) +
             " predates Pascal: GDR support (cudaDevAttrGPUDirectRDMASupported) cannot be read from files"}};
  return {};
}

// ---- distance and level -------------------------------------------------------------------

struct GdrDistance {
  NcclPath path;      // as NCCL labels GPU→NIC
  NcclPath distance;  // what it compares with the level
  std::string note;
};

bool is_c2c(const PredictContext& c, const Endpoint& gpu) {
  const GpuFacts* f = gpu_facts_of(c, gpu);
  return gpu.int_attribute("c2c_count").value_or(0) > 0 || (f && f->c2c == Tri::Yes);
}

// NVLink-C2C GPUs (Grace): a NIC on the GPU's own CPU is PHB on PCIe but
// NCCL treats it specially since 2.26 (src/graph/paths.cc:ncclTopoCheckGdr).
GdrDistance c2c_distance(const PredictContext& c, const Endpoint& gpu, NcclPath path) {
  if (!is_c2c(c, gpu) || path != NcclPath::PHB || c.in.version < NcclVersion{2, 26, 0}) return {path, path, ""};
  const NcclVersion& v = c.in.version;
  bool gdr_c2c = nccl_int_param(c.settings, "NCCL_NET_GDR_C2C", v >= NcclVersion{2, 27, 0} ? 1 : 0) != 0;
  std::string via = gpu.id + " reaches the NIC's CPU over NVLink-C2C";
  if (v < NcclVersion{2, 27, 0})
    return gdr_c2c ? GdrDistance{path, NcclPath::C2C, via + " and NCCL_NET_GDR_C2C is on: NCCL 2.26 judges it as C2C"}
                   : GdrDistance{path, path, via + ", but NCCL_NET_GDR_C2C is off (the 2.26 default)"};
  if (v < NcclVersion{2, 29, 0} && gdr_c2c)
    return {NcclPath::P2C, NcclPath::C2C, via + ": path P2C, judged as C2C (NCCL_NET_GDR_C2C on)"};
  return {NcclPath::P2C, NcclPath::P2C, via + ": path P2C"};
}

std::string distance_name(const GdrDistance& d) {
  std::string name = nccl_path_name(d.distance);
  if (d.distance != d.path) name += std::string(" (path ") + nccl_path_name(d.path) + ")";
  return name;
}

Side level_side(const PredictContext& c, const GdrDistance& d) {
  const GdrLevel& l = c.level;
  if (l.path == NcclPath::LOC && l.set) return {Tri::No, {l.set->cite() + " disables GDR everywhere"}};
  if (d.distance == NcclPath::Unknown) return {Tri::Unknown, {}};
  std::string dist = "distance " + distance_name(d);
  if (d.distance > l.path) return {Tri::No, {dist + " > " + l.text + ": NCCL stages through host memory"}};
  return {Tri::Yes, {dist + " <= " + l.text + ": close enough for GDR"}};
}

// ---- send side: NIC reads GPU memory ---------------------------------------------------------

// The NVLink condition of the read rule (src/graph/paths.cc:ncclTopoCheckGdr:
// every GPU up to 2.18, sm < 80 from v2.19.1-1).
Side nvlink_condition(const PredictContext& c, const Endpoint& gpu, const std::string& who, const std::string& cond) {
  const GpuFacts* f = gpu_facts_of(c, gpu);
  if (c.gpus.size() == 1) return {Tri::Yes, {"send side allowed: the only GPU"}};
  if (!nvlink_paths_kept(c.settings))
    return {Tri::No,
            {"send side disabled: " + who + " " + cond +
             "; NCCL_P2P_DISABLE / NCCL_P2P_LEVEL route GPU pairs through the CPU, so no NVLink path is left"}};
  for (const Endpoint* g : c.gpus)
    if (g != &gpu && view_path(c.view, gpu, *g).path == NcclPath::NVL)
      return {Tri::Yes, {"send side allowed: NVLink to " + g->id}};
  if (f && f->nvlink == Tri::Yes)
    return {Tri::Yes,
            {"send side allowed: " +
             (f->nvlink_evidence.empty() ? gpu.id + " has NVLink" : printable(f->nvlink_evidence))}};
  if (!f || f->nvlink == Tri::Unknown)
    return {Tri::Unknown,
            {"send side unknown: " + who + " " + cond + "; NVLink of " + gpu.id + " is not known" +
             (f && !f->nvlink_evidence.empty() ? " (" + f->nvlink_evidence + ")" : "") +
             " — `nvidia-smi nvlink --status` would tell"}};
  return {Tri::No,
          {"send side disabled: " + who + " " + cond + "; " + gpu.id + " has none" +
           (f->nvlink_evidence.empty() ? "" : " (" + f->nvlink_evidence + ")")}};
}

Side read_side(const PredictContext& c, const Endpoint& gpu, int sm) {
  const NcclSetting* s = c.settings.find("NCCL_NET_GDR_READ");
  long long read = nccl_int_param(c.settings, "NCCL_NET_GDR_READ", -2);
  if (read == 0) return {Tri::No, {s->cite() + ": send side (NIC reads GPU memory) disabled"}};
  if (read > 0) return {Tri::Yes, {s->cite() + ": send side allowed without the NVLink condition"}};
  bool all_archs = c.in.version < NcclVersion{2, 19, 0};
  std::string sm_text = sm ? "sm " + std::to_string(sm) : "unknown compute capability";
  if (!all_archs && sm >= 80)
    return {Tri::Yes, {"send side: " + sm_text + " reads GPU memory by default (NCCL >= 2.19)"}};
  std::string cond = "reads GPU memory by default only with an NVLink to another GPU (NCCL_NET_GDR_READ=1 forces it)";
  std::string who = all_archs ? "NCCL " + c.v : "NCCL " + c.v + " on " + sm_text;
  Side nv = nvlink_condition(c, gpu, who, cond);
  if (!all_archs && sm == 0 && nv.ok == Tri::No)
    return {Tri::Unknown, {"send side unknown: " + sm_text + "; below sm 80 NCCL " + c.v + " " + cond}};
  return nv;
}

// ncclTopoCheckGdr without the explanations, for NCCL's own path
// computation (rerouting through the CPU, the PXN peer's read check).
Tri check_gdr(const PredictContext& c, const Endpoint& gpu, NcclPath path, bool read) {
  int sm = gpu_sm(c, gpu);
  GdrDistance d = c2c_distance(c, gpu, path);
  Tri ok = tri_all({c.nic_side.selected, gpu_side(c, gpu, sm).ok, level_side(c, d).ok});
  if (!read || ok == Tri::No) return ok;
  return tri_all({ok, read_side(c, gpu, sm).ok});
}

// ---- one GPU ---------------------------------------------------------------------------------

// Names the device the GPU would have used had NCCL not left it out.
void left_out_note(const PredictContext& c, const Endpoint& gpu, const NetChoice& ch, GdrPrediction& p) {
  NcclPath best_left = NcclPath::Unknown;
  std::string why;
  for (const auto& [nic_id, reason] : c.nets.left_out) {
    const Endpoint* nic = c.view.find(nic_id);
    if (!nic) continue;
    NcclPath t = view_path(c.view, gpu, *nic).path;
    if (t < best_left) best_left = t, why = reason;
  }
  if (why.empty() || ch.local.empty() || best_left >= ch.local.front().own) return;
  const NetRoute& r = ch.local.front();
  std::string how = r.proxy ? " via " + r.proxy->id + " (PXN)" : std::string(" (") + nccl_path_name(r.type) + ")";
  p.closest_left_out = why;
  p.rules.push_back(why + ": NCCL will not use it; " + gpu.id + " sends through " + printable(r.net->name) + how);
}

void decide_transport_or_nics(const PredictContext& c, GdrPrediction& p, bool& done) {
  done = true;
  if (c.transport.ok != Tri::Yes) {
    p.send = p.recv = c.transport.ok;
    p.rules = c.transport.rules;
    p.decided_by = c.transport.rules.front();
    p.causes.push_back(GdrCause::Transport);
    return;
  }
  add(p.rules, c.nets.rules);
  if (c.nets.nets.empty()) {
    p.send = p.recv = Tri::No;
    p.decided_by = "no RDMA NIC available to NCCL's IB transport: NCCL falls back to sockets, no GPUDirect RDMA";
    p.rules.push_back(p.decided_by);
    p.causes.push_back(GdrCause::NoNic);
    return;
  }
  done = false;
}

void record_choice(const NetChoice& ch, GdrPrediction& p) {
  for (const auto& r : ch.local) p.nics.push_back(r.nic->id);
  const NetRoute& r = ch.local.front();
  p.net_name = r.net->name;
  p.send_nic = p.recv_nic = r.nic->id;
  if (r.proxy) p.pxn_peer = r.proxy->id;
  add(p.rules, ch.rules);
}

// The first rule that made a direction anything but Yes; when both are
// Yes, the distance rule (sides[2]), which is what usually decides.
std::string deciding_rule(const std::vector<Side>& sides) {
  for (Tri want : {Tri::No, Tri::Unknown})
    for (const auto& s : sides)
      if (s.ok == want && !s.rules.empty()) return s.rules.back();
  if (sides.size() > 2 && !sides[2].rules.empty()) return sides[2].rules.back();
  return "";
}

// Why the level did not let GDR through, or the NIC choice stayed open. A
// path the files do not prove leaves both open: it is the cause to fix, not
// the distance it hides nor NVLink (a level of LOC still decides alone).
void level_and_choice_causes(const PredictContext& c, const NetChoice& ch, Tri level_ok, GdrPrediction& p) {
  GdrCause level = c.level.set ? GdrCause::LevelSetting : GdrCause::Distance;
  if (ch.path_unknown) {
    if (level_ok == Tri::No) p.causes.push_back(level);
    p.causes.push_back(GdrCause::PathUnknown);
    p.unknown_path = ch.path_why;
    return;
  }
  if (level_ok != Tri::Yes) p.causes.push_back(level);
  if (ch.certain != Tri::Yes) p.causes.push_back(GdrCause::NvlinkUnknown);
}

GdrPrediction predict_one(const PredictContext& c, const Endpoint& gpu) {
  GdrPrediction p;
  p.gpu = gpu.id;
  p.level = nccl_path_name(c.level.path);
  bool done = false;
  decide_transport_or_nics(c, p, done);
  if (done) return p;
  NetChoiceInput ni{c.view,       c.gpus,
                    c.in.gpus,    c.settings,
                    c.in.version, [&c](const Endpoint& g, NcclPath d, bool read) { return check_gdr(c, g, d, read); }};
  NetChoice ch = choose_net(ni, gpu, c.nets.nets);
  if (ch.local.empty()) {
    p.rules.push_back("no NIC of NCCL's reaches " + gpu.id);
    p.causes.push_back(GdrCause::NoNic);
    p.send = p.recv = Tri::Unknown;
    return p;
  }
  record_choice(ch, p);
  left_out_note(c, gpu, ch, p);
  const NetRoute& r = ch.local.front();
  // PXN: NCCL judges the distance of the GPU whose NIC it is
  // (src/graph/paths.cc:ncclTopoCheckGdr, "use the intermediate GPU").
  const Endpoint& judged = r.proxy ? *r.proxy : gpu;
  GdrDistance d = c2c_distance(c, judged, r.proxy ? r.proxy_type : r.type);
  p.path = r.proxy ? NcclPath::PXN : d.path;
  int sm = gpu_sm(c, gpu);
  Side net = net_side(c, *r.nic), dev = gpu_side(c, gpu, sm), lvl = level_side(c, d);
  p.through = c.nic_side.through;
  add(p.rules, net.rules);
  add(p.rules, dev.rules);
  if (!d.note.empty()) p.rules.push_back(d.note);
  add(p.rules, c.level.rules);
  add(p.rules, lvl.rules);
  // An undecided NIC choice (PXN with NVLink unknown) leaves the distance
  // undecided too; only a level of LOC decides regardless of the path.
  Tri choice = ch.certain;
  bool loc = c.level.set && c.level.path == NcclPath::LOC;
  if (choice != Tri::Yes && !loc && lvl.ok == Tri::No) lvl.ok = Tri::Unknown;
  p.recv = tri_all({net.ok, dev.ok, lvl.ok, choice});
  if (net.ok != Tri::Yes) p.causes.push_back(c.nic_side.newer_nccl_would ? GdrCause::OldNccl : GdrCause::PeerMemory);
  if (dev.ok != Tri::Yes) p.causes.push_back(GdrCause::GpuSide);
  level_and_choice_causes(c, ch, lvl.ok, p);
  if (p.recv == Tri::No) {
    p.send = Tri::No;  // the read rules cannot change anything
    p.decided_by = deciding_rule({net, dev, lvl});
    return p;
  }
  if (!c.nic_side.fails.empty()) p.fail_reasons.push_back(c.nic_side.fails);
  Side read = read_side(c, gpu, sm);
  add(p.rules, read.rules);
  p.send = tri_all({p.recv, read.ok});
  if (read.ok != Tri::Yes) {
    bool set = c.settings.find("NCCL_NET_GDR_READ") != nullptr;
    p.causes.push_back(set                       ? GdrCause::ReadSetting
                       : read.ok == Tri::Unknown ? GdrCause::NvlinkUnknown
                                                 : GdrCause::ReadRule);
  }
  p.decided_by = deciding_rule({net, dev, lvl, read});
  // The distance rule would be quoted, but the path behind it is not proven.
  if (!p.causes.empty() && p.causes.front() == GdrCause::PathUnknown) p.decided_by = p.unknown_path;
  return p;
}

PredictContext make_predict_context(const GdrPredictInput& in) {
  NcclSettings st = settings_seen_by(in.settings, in.version);
  PredictContext c{in, *in.nccl_view, st, in.version.str(), transport_side(in, st), {}, {}, {}, {}};
  c.gpus = c.view.with_role(DeviceRole::Gpu);
  c.nets = nccl_nets(c.view, in.ports, c.settings, in.version);
  c.level = effective_gdr_level(c.settings, in.version);
  c.nic_side = nic_side_gdr(in.host, c.settings, in.version);
  return c;
}

}  // namespace

std::vector<GdrPrediction> predict_gdr(const GdrPredictInput& input) {
  std::vector<GdrPrediction> out;
  if (!input.nccl_view) return out;
  PredictContext c = make_predict_context(input);
  for (const Endpoint* g : c.gpus) out.push_back(predict_one(c, *g));
  return out;
}

}  // namespace gdrcheck

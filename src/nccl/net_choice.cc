// NIC choice and PXN per release (docs/nccl-model.md, "NIC choice" and
// "PXN"). Approximations, also listed there:
//  - path bandwidth is min(GPU PCIe link, NIC port); NCCL also takes the
//    links in between (switch uplinks) and, up to 2.30.4, the smaller of a
//    device's and its parent port's maximum link;
//  - equally good NICs keep the topology's bus-id order (NCCL: the NET
//    nodes' depth-first order in its XML tree, which follows bus order on
//    the usual hardware);
//  - the PXN peer of a NIC (2.18.1+: ncclTopoGetLocalGpu) is the first GPU,
//    in NVML order, among those closest to it.
#include "nccl/net_choice.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "host/text_format.h"
#include "topology/nccl_view.h"

namespace gdrcheck {
namespace {

bool at_least(const NcclVersion& v, int major, int minor, int patch) {
  return v >= NcclVersion{major, minor, patch};
}

// ---- bandwidth -------------------------------------------------------------------

double gpu_bw(const NetChoiceInput& in, const Endpoint& gpu) {
  if (gpu.node < 0 || gpu.node >= static_cast<int>(in.view.nodes.size())) return 0;
  // 2.30.7 sizes a GPU's link by NVML's current generation and width
  // (src/graph/xml.cc:ncclTopoGetXmlFromSys@v2.30.7-1); earlier releases by
  // the maximum sysfs shows.
  return nccl_pcie_bw(in.view.nodes[gpu.node].link, at_least(in.version, 2, 30, 7));
}

// NET bandwidth: port speed in Mb/s / 8000 (src/graph/topo.cc:ncclTopoAddNet).
double net_bw(const NcclNet& n) {
  return n.gbps / 8.0;
}

double min_known(double a, double b) {
  if (a <= 0 || b <= 0) return 0;
  return std::min(a, b);
}

// ---- NVLink peers ------------------------------------------------------------------

const GpuFacts* facts_of(const NetChoiceInput& in, const Endpoint& gpu) {
  auto it = in.facts.find(gpu.id);
  return it == in.facts.end() ? nullptr : &it->second;
}

bool nvlink_between(const NetChoiceInput& in, const Endpoint& a, const Endpoint& b) {
  if (!nvlink_paths_kept(in.settings)) return false;
  if (view_path(in.view, a, b).path == NcclPath::NVL) return true;
  const GpuFacts* f = facts_of(in, a);
  return f && std::find(f->nvlink_peers.begin(), f->nvlink_peers.end(), b.id) != f->nvlink_peers.end();
}

// Whether the GPU's NVLink peers are known (either way).
bool nvlink_known(const NetChoiceInput& in, const Endpoint& gpu) {
  if (!nvlink_paths_kept(in.settings)) return true;
  for (const Endpoint* g : in.gpus)
    if (g != &gpu && view_path(in.view, gpu, *g).path == NcclPath::NVL) return true;
  const GpuFacts* f = facts_of(in, gpu);
  return f && (f->nvlink == Tri::No || (f->nvlink == Tri::Yes && !f->nvlink_peers.empty()));
}

// ---- PXN (src/graph/paths.cc:ncclTopoComputePaths) ---------------------------------------

bool pxn_enabled(const NetChoiceInput& in) {
  return at_least(in.version, 2, 12, 0) && nccl_int_param(in.settings, "NCCL_PXN_DISABLE", 0) != 1;
}

// The farthest path a peer may have to the NIC: PXB, or P2C with
// NCCL_PXN_C2C (2.27.3+, default on from 2.28.3).
NcclPath pxn_peer_limit(const NetChoiceInput& in) {
  const NcclVersion& v = in.version;
  if (!at_least(v, 2, 27, 3)) return NcclPath::PXB;
  bool c2c = nccl_int_param(in.settings, "NCCL_PXN_C2C", at_least(v, 2, 28, 3) ? 1 : 0) != 0;
  return c2c ? NcclPath::P2C : NcclPath::PXB;
}

// The GPU's own path must be worse than this for PXN: PXB, and PXN (so PHB
// or SYS) from 2.27.3.
NcclPath pxn_own_threshold(const NcclVersion& v) {
  return at_least(v, 2, 27, 3) ? NcclPath::PXN : NcclPath::PXB;
}

// 2.18.1+: only the NIC's local GPU is a candidate (ncclTopoGetLocalGpu).
std::vector<const Endpoint*> pxn_candidates(const NetChoiceInput& in, const Endpoint& nic) {
  if (!at_least(in.version, 2, 18, 1)) return in.gpus;
  const Endpoint* best = nullptr;
  NcclPath best_type = NcclPath::Unknown;
  for (const Endpoint* g : in.gpus) {
    NcclPath t = view_path(in.view, *g, nic).path;
    if (t < best_type) best = g, best_type = t;
  }
  return best ? std::vector<const Endpoint*>{best} : std::vector<const Endpoint*>{};
}

bool pxn_wanted(const NetChoiceInput& in, const NetRoute& own, double peer_bw) {
  bool farther = own.own == NcclPath::Unknown || own.own > pxn_own_threshold(in.version);
  if (!at_least(in.version, 2, 14, 3)) return farther;  // the bandwidth alternative came in 2.14.3
  return farther || (own.bw > 0 && peer_bw > own.bw);
}

// A route through an NVLink peer that NCCL would write instead of `own`.
std::optional<NetRoute> pxn_route(const NetChoiceInput& in, const Endpoint& gpu, const NetRoute& own) {
  std::optional<NetRoute> found;
  for (const Endpoint* peer : pxn_candidates(in, *own.nic)) {
    if (peer == &gpu || !nvlink_between(in, gpu, *peer)) continue;
    NcclPath t = view_path(in.view, *peer, *own.nic).path;
    if (t == NcclPath::Unknown || t > pxn_peer_limit(in)) continue;
    double peer_bw = min_known(gpu_bw(in, *peer), net_bw(*own.net));
    if (!pxn_wanted(in, own, peer_bw)) continue;
    // 2.30.3+: the peer itself must pass the send-side GDR check.
    if (at_least(in.version, 2, 30, 3) && in.gdr_allowed && in.gdr_allowed(*peer, t, true) == Tri::No) continue;
    NetRoute r = own;
    r.type = NcclPath::PXN;
    r.bw = peer_bw;
    r.proxy = peer;
    r.proxy_type = t;
    found = r;  // 2.12–2.17 keep the last eligible peer
  }
  return found;
}

// ---- GDR disabled: through the CPU (ncclTopoComputePaths, read=0 check) --------------------

// The distance NCCL judges for a route: the proxy's path for PXN.
NcclPath judged_distance(const NetRoute& r) {
  return r.proxy ? r.proxy_type : r.type;
}

// With GDR disabled for the pair, NCCL rewrites GPU↔NIC through the GPU's
// CPU: PHB on its own CPU node, SYS otherwise; a PXN path is overwritten.
// From 2.21.5 only paths closer than PHB are checked.
void reroute_if_disabled(const NetChoiceInput& in, const Endpoint& gpu, NetRoute& r) {
  if (!in.gdr_allowed) return;
  if (at_least(in.version, 2, 21, 5) && !(r.type < NcclPath::PHB)) return;
  if (r.type >= NcclPath::PHB && r.type != NcclPath::PXN) return;  // already through the CPU
  if (in.gdr_allowed(gpu, judged_distance(r), false) != Tri::No) return;
  r.type = r.own <= NcclPath::PHB ? NcclPath::PHB : r.own;
  r.proxy = nullptr;
  r.proxy_type = NcclPath::Unknown;
  r.via_cpu = true;
}

// ---- ranking ---------------------------------------------------------------------------

int nvml_index(const NetChoiceInput& in, const Endpoint& gpu) {
  if (auto dev = gpu.int_attribute("dev"); dev && *dev >= 0) return *dev;
  auto it = std::find(in.gpus.begin(), in.gpus.end(), &gpu);
  return static_cast<int>(it - in.gpus.begin());
}

int mirror_bits(int value, int pow2) {
  int out = 0;
  for (int bit = 1, mirrored = pow2 >> 1; bit < pow2; bit <<= 1, mirrored >>= 1)
    if (value & bit) out |= mirrored;
  return out;
}

// GPUs for which `nic` is as close as for any GPU (NCCL's local GPUs of a NET).
std::vector<const Endpoint*> local_gpus(const NetChoiceInput& in, const Endpoint& nic) {
  std::vector<NcclPath> types;
  for (const Endpoint* g : in.gpus) types.push_back(view_path(in.view, *g, nic).path);
  std::vector<const Endpoint*> out;
  if (types.empty()) return out;
  NcclPath best = *std::min_element(types.begin(), types.end());
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i] == best) out.push_back(in.gpus[i]);
  return out;
}

// Channel 0's device among nL equally good ones, per release
// (src/graph/search.cc:ncclTopoGetLocalNet, src/graph/topo.cc later):
//  2.12–2.17     the GPU's NVML index modulo nL;
//  2.18.1–2.18.3 its position among the GPUs that share the same NICs;
//  2.18.5–2.30.4 the NVML index, bit-mirrored when nL is a power of two;
//  2.30.7        the NVML index modulo the NIC's local GPUs, then mirrored.
std::size_t channel0_index(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<NetRoute>& local) {
  int n_l = static_cast<int>(local.size());
  int idx = nvml_index(in, gpu);
  const NcclVersion& v = in.version;
  if (at_least(v, 2, 18, 1) && !at_least(v, 2, 18, 5)) {
    auto sharing = local_gpus(in, *local.front().nic);
    auto it = std::find(sharing.begin(), sharing.end(), &gpu);
    idx = it == sharing.end() ? idx : static_cast<int>(it - sharing.begin());
  } else if (at_least(v, 2, 18, 5)) {
    if (at_least(v, 2, 30, 7)) idx %= std::max<int>(1, local_gpus(in, *local.front().nic).size());
    if ((n_l & (n_l - 1)) == 0) idx = mirror_bits(idx, n_l);
  }
  return static_cast<std::size_t>(idx % n_l);
}

std::string route_text(const NetRoute& r) {
  std::string s = printable(r.net->name) + " (" + nccl_path_name(r.type);
  if (r.proxy) s += std::string(" via ") + r.proxy->id + ", its path " + nccl_path_name(r.proxy_type);
  if (r.bw > 0) s += ", " + fixed(r.bw, 1) + " GB/s";
  return s + ")";
}

// The key NCCL ranks by: bandwidth first, then path type. Up to 2.18.3 it
// ranks the NIC→GPU paths, which are never PXN (ncclTopoGetLocalNet@v2.12.12-1);
// from 2.18.5 the GPU→NIC paths, PXN included (ncclTopoGetLocal@v2.18.5-1).
struct RankKey {
  double bw;
  NcclPath type;
};

RankKey rank_key(const NetChoiceInput& in, const NetRoute& r, double own_bw) {
  if (at_least(in.version, 2, 18, 5) || r.via_cpu) return {r.bw, r.type};
  return {own_bw, r.own};
}

std::string unknown_nvlink_rule(const NetChoiceInput& in, const Endpoint& gpu) {
  const GpuFacts* f = facts_of(in, gpu);
  std::string what =
      f && !f->nvlink_evidence.empty() ? printable(f->nvlink_evidence) : "NVLink of " + gpu.id + " unknown";
  return what +
         ": whether NCCL sends through an NVLink peer's NIC (PXN) cannot be decided; "
         "`nvidia-smi nvlink --status` would tell";
}

struct Ranked {
  NetRoute route;
  RankKey key;
};

// Whether the GPU has, or may have, an NVLink peer: only then can another
// GPU's path to a NIC make NCCL send through PXN.
bool may_have_nvlink_peer(const NetChoiceInput& in, const Endpoint& gpu) {
  if (!nvlink_paths_kept(in.settings)) return false;
  if (!nvlink_known(in, gpu)) return true;
  for (const Endpoint* g : in.gpus)
    if (g != &gpu && nvlink_between(in, gpu, *g)) return true;
  return false;
}

// The choice is undecided because of a path, not NVLink: the finding then
// names the path's evidence rather than distance or NVLink.
void undecided_by_path(NetChoice& ch, const std::string& why, const std::string& rule) {
  ch.certain = Tri::Unknown;
  ch.path_unknown = true;
  if (ch.path_why.empty()) ch.path_why = printable(why);
  ch.rules.push_back(rule);
}

// The first other GPU whose path to one of the NICs is unknown: that GPU
// may be the NIC's closest one and carry this GPU's traffic (PXN).
void unknown_peer_path(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<NcclNet>& nets, NetChoice& ch) {
  if (!may_have_nvlink_peer(in, gpu)) return;
  for (const auto& n : nets) {
    const Endpoint* nic = in.view.find(n.nic_id);
    if (!nic) continue;
    for (const Endpoint* g : in.gpus) {
      if (g == &gpu) continue;
      NcclClass c = view_path(in.view, *g, *nic);
      if (c.path != NcclPath::Unknown) continue;
      undecided_by_path(ch, c.why,
                        "path from " + g->id + " to " + printable(n.name) + " unknown (" + printable(c.why) +
                            "): whether NCCL sends " + gpu.id +
                            "'s traffic through an NVLink peer's NIC (PXN) cannot be decided");
      return;
    }
  }
}

std::vector<Ranked> routes(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<NcclNet>& nets,
                           NetChoice& ch) {
  std::vector<Ranked> out;
  // PXN can change the choice only when the GPU's own best path is farther
  // than the PXN threshold; then an unknown NVLink leaves it undecided.
  NcclPath best_own = NcclPath::Unknown;
  for (const auto& n : nets)
    if (const Endpoint* nic = in.view.find(n.nic_id)) best_own = std::min(best_own, view_path(in.view, gpu, *nic).path);
  bool pxn_could_matter = best_own == NcclPath::Unknown || best_own > pxn_own_threshold(in.version);
  bool pxn_unknown = false;
  for (const auto& n : nets) {
    NetRoute r;
    r.net = &n;
    r.nic = in.view.find(n.nic_id);
    if (!r.nic) continue;
    r.own = r.type = view_path(in.view, gpu, *r.nic).path;
    r.bw = min_known(gpu_bw(in, gpu), net_bw(n));
    double own_bw = r.bw;
    if (pxn_enabled(in)) {
      if (auto p = pxn_route(in, gpu, r))
        r = *p;
      else if (pxn_could_matter && !nvlink_known(in, gpu))
        pxn_unknown = true;
    }
    reroute_if_disabled(in, gpu, r);
    out.push_back({r, rank_key(in, r, own_bw)});
  }
  if (pxn_unknown) {
    ch.certain = Tri::Unknown;
    ch.rules.push_back(unknown_nvlink_rule(in, gpu));
  }
  if (pxn_enabled(in) && pxn_could_matter && best_own != NcclPath::Unknown) unknown_peer_path(in, gpu, nets, ch);
  return out;
}

bool better(const RankKey& a, const RankKey& b, bool by_bw) {
  if (by_bw && a.bw != b.bw) return a.bw > b.bw;
  return a.type < b.type;
}

bool equally_good(const RankKey& a, const RankKey& b, bool by_bw) {
  return (!by_bw || a.bw == b.bw) && a.type == b.type;
}

// A NIC whose own path from the GPU is unknown may be closer than the best
// known one: then the choice, and with it the distance, is undecided. When
// the best is already PIX (no PCIe path is closer) it can at most tie, which
// changes only which of the equally good NICs carries channel 0.
void unknown_routes(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<Ranked>& all, const RankKey& best,
                    bool by_bw, NetChoice& ch) {
  for (const auto& r : all) {
    if (r.route.own != NcclPath::Unknown || (by_bw && r.key.bw < best.bw)) continue;
    std::string why = view_path(in.view, gpu, *r.route.nic).why;
    std::string what =
        "path from " + gpu.id + " to " + printable(r.route.net->name) + " unknown (" + printable(why) + ")";
    if ((by_bw && r.key.bw > best.bw) || best.type > NcclPath::PIX) {
      undecided_by_path(ch, why, what + ": it may be closer than the NIC chosen, so NCCL's choice cannot be decided");
    } else {
      ch.rules.push_back(what + ": it may be as close, so channel 0's NIC may differ");
    }
  }
}

void explain(const Endpoint& gpu, NetChoice& ch) {
  std::vector<std::string> names;
  for (const auto& r : ch.local) names.push_back(route_text(r));
  const NetRoute& first = ch.local.front();
  if (first.via_cpu)
    ch.rules.push_back("GPUDirect RDMA is disabled for " + gpu.id +
                       ", so NCCL routes its NIC traffic through the CPU and every NIC on that CPU is as good");
  if (ch.local.size() > 1)
    ch.rules.push_back(std::to_string(names.size()) + " NICs equally good: " + join(names) + "; channel 0 uses " +
                       printable(first.net->name) + ", other channels spread over them");
  else if (first.proxy)
    ch.rules.push_back(gpu.id + " reaches " + route_text(first) + " through NVLink (PXN) rather than its own path " +
                       nccl_path_name(first.own));
}

}  // namespace

NcclClass view_path(const Topology& view, const Endpoint& a, const Endpoint& b) {
  if (view.tree == TreeStyle::None) {
    auto it = view.printed_matrix.find({a.id, b.id});
    if (it != view.printed_matrix.end()) return nccl_from_smi(parse_smi_code(it->second));
  }
  return nccl_class(view, a, b);
}

bool nvlink_paths_kept(const NcclSettings& settings) {
  if (nccl_int_param(settings, "NCCL_P2P_DISABLE", 0) == 1) return false;
  const NcclSetting* level = settings.find("NCCL_P2P_LEVEL");
  return !level || (level->value != "LOC" && level->value != "0");
}

double nccl_pcie_bw(const PciLink& link, bool current) {
  std::optional<int> width = current && link.current_width ? link.current_width : link.max_width;
  std::optional<double> gts = current && link.current_gts ? link.current_gts : link.max_gts;
  if (!width || !gts || *width <= 0) return 0;
  // src/graph/xml.cc kvDictPciGen: per-lane figure; bandwidth = width × figure / 80 GB/s.
  static const std::pair<double, double> kPerLane[] = {{2.5, 15}, {5, 30}, {8, 60}, {16, 120}, {32, 240}, {64, 480}};
  for (auto [speed, figure] : kPerLane)
    if (*gts <= speed + 0.01) return *width * figure / 80.0;
  return *width * 480 / 80.0;
}

NetChoice choose_net(const NetChoiceInput& in, const Endpoint& gpu, const std::vector<NcclNet>& nets) {
  NetChoice ch;
  std::vector<Ranked> all = routes(in, gpu, nets, ch);
  if (all.empty()) return ch;
  bool by_bw = std::all_of(all.begin(), all.end(), [](const Ranked& r) { return r.key.bw > 0; });
  RankKey best =
      std::min_element(all.begin(), all.end(), [&](auto& a, auto& b) { return better(a.key, b.key, by_bw); })->key;
  if (best.type == NcclPath::Unknown) {
    std::string why = view_path(in.view, gpu, *all.front().route.nic).why;
    undecided_by_path(ch, why, "path from " + gpu.id + " to the NICs unknown: " + why);
  } else {
    unknown_routes(in, gpu, all, best, by_bw, ch);
  }
  for (const auto& r : all)
    if (equally_good(r.key, best, by_bw)) ch.local.push_back(r.route);
  if (!by_bw) ch.rules.push_back("link bandwidths not all known: NICs ranked by path type only");
  if (ch.local.size() > 1 && best.type != NcclPath::Unknown) {
    std::size_t first = channel0_index(in, gpu, ch.local);
    std::rotate(ch.local.begin(), ch.local.begin() + static_cast<long>(first), ch.local.end());
  }
  explain(gpu, ch);
  return ch;
}

}  // namespace gdrcheck

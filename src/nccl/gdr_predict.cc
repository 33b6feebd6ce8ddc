// NCCL's GPUDirect RDMA decision, predicted (nccl-spec.md §1.6, §2, §3).
// Written from the behaviour described there; no NCCL code is reused.
//
// Simplifications (each also noted where it applies):
//  - NIC choice: "local" NICs are those with the lowest path type; NCCL
//    first ranks by path bandwidth (equal for NICs of one type on the
//    usual hardware). Channel 0's NIC follows NCCL's index rule with the
//    NVML index taken from the XML "dev" attribute, else the GPU's order.
//  - PXN (send through an NVLink peer's NIC, §2.6) is not modelled: the
//    prediction is for the GPU's own NIC.
//  - NIC-side GDR is host-wide (IB transport only); external net plugins
//    are not predicted.
//  - NVLink-C2C (Grace) is recognised only from the NCCL XML <c2c> element
//    (attribute c2c_count); other sources cannot show it.
//  - NCCL ≤ 2.5 used an exclusive integer scale with a NODE level; it is
//    mapped to the equivalent inclusive level (see parse_gdr_level).
#include "nccl/gdr_predict.h"

#include <strings.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "host/text_format.h"
#include "topology/nccl_view.h"

namespace gdrcheck {
namespace {

// ---- small helpers ----------------------------------------------------------

bool at_least(const NcclVersion& v, int major, int minor, int patch = 0) {
  return v >= NcclVersion{major, minor, patch};
}

std::string cite(const NcclSetting& s) {
  return s.name + "=" + s.value + " (from " + s.origin + ")";
}

// NCCL's integer parameters (ncclLoadParam): strtoll with base 0; only a
// range error falls back to the default, so text that is not a number
// reads as 0 ("NCCL_IB_DISABLE=yes" does not disable IB).
long long int_param(const NcclSettings& st, const char* name, long long def) {
  const NcclSetting* s = st.find(name);
  if (!s || s->value.empty()) return def;
  errno = 0;
  long long v = std::strtoll(s->value.c_str(), nullptr, 0);
  return errno ? def : v;
}

// Conjunction of the conditions NCCL checks in turn: any No wins.
Tri every(std::initializer_list<Tri> ts) {
  bool unknown = false;
  for (Tri t : ts) {
    if (t == Tri::No) return Tri::No;
    if (t == Tri::Unknown) unknown = true;
  }
  return unknown ? Tri::Unknown : Tri::Yes;
}

std::optional<int> parse_int(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end != '\0' || v < INT32_MIN || v > INT32_MAX) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<int> int_attribute(const Endpoint& e, const std::string& name) {
  auto it = e.attributes.find(name);
  return it == e.attributes.end() ? std::nullopt : parse_int(it->second);
}

// A verdict on one condition plus the sentences explaining it.
struct Side {
  Tri ok = Tri::Yes;
  std::vector<std::string> rules;
};

// ---- NCCL_IB_HCA --------------------------------------------------------------

struct HcaFilter {
  bool exclude = false, exact = false;
  std::vector<std::pair<std::string, int>> entries;  // name, port (-1 = any)
};

// "^" then "=" prefixes, then comma-separated "name[:port[:...]]"; empty
// entries are skipped, as NCCL does. Nothing is trimmed.
HcaFilter parse_hca(std::string_view text) {
  HcaFilter f;
  if (text.starts_with('^')) {
    f.exclude = true;
    text.remove_prefix(1);
  }
  if (text.starts_with('=')) {
    f.exact = true;
    text.remove_prefix(1);
  }
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view entry = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    std::size_t colon = entry.find(':');
    std::string name(entry.substr(0, colon));
    int port = -1;
    if (colon != std::string_view::npos && colon + 1 < entry.size() && entry[colon + 1] != ':')
      port = std::atoi(std::string(entry.substr(colon + 1)).c_str());  // NCCL uses atoi: "x" is port 0
    if (!name.empty()) f.entries.emplace_back(std::move(name), port);
  }
  return f;
}

bool entry_matches(const HcaFilter& f, const std::pair<std::string, int>& e, const std::string& dev, int port) {
  bool name_ok = f.exact ? dev == e.first : dev.starts_with(e.first);
  return name_ok && (e.second == -1 || e.second == port);
}

bool hca_matches(const HcaFilter& f, const std::string& dev, int port) {
  // An empty list matches everything, even after '^' (so "^" alone
  // excludes every device, exactly as in NCCL).
  bool hit = f.entries.empty();
  for (const auto& e : f.entries) hit = hit || entry_matches(f, e, dev, port);
  return hit != f.exclude;
}

// ---- peer-memory files ---------------------------------------------------------

constexpr const char* kNvMem = "/sys/kernel/mm/memory_peers/nv_mem/version";
constexpr const char* kNvMemNc = "/sys/kernel/mm/memory_peers/nv_mem_nc/version";
constexpr const char* kNvidiaPeermem = "/sys/kernel/mm/memory_peers/nvidia-peermem/version";
constexpr const char* kModNvidiaPeermem = "/sys/module/nvidia_peermem/version";
constexpr const char* kModNvPeerMem = "/sys/module/nv_peer_mem/version";

// nccl-spec §3.1. 2.9.7 was never released, so "< 2.9.8" is exact.
std::vector<std::string> checked_files(const NcclVersion& v) {
  if (!at_least(v, 2, 9, 8)) return {kNvMem};
  if (!at_least(v, 2, 22)) return {kNvMem, kNvidiaPeermem};
  if (!at_least(v, 2, 23)) return {kNvMem, kNvMemNc};
  return {kNvMem, kNvMemNc, kModNvidiaPeermem};
}

}  // namespace

const char* tri_name(Tri t) {
  switch (t) {
    case Tri::No:
      return "no";
    case Tri::Yes:
      return "yes";
    case Tri::Unknown:
      return "unknown";
  }
  return "unknown";
}

bool ib_hca_selects(const std::string& filter, const std::string& device, int port) {
  return hca_matches(parse_hca(filter), device, port);
}

namespace {

// ---- NCCL_NET_GDR_LEVEL ------------------------------------------------------------

bool level_exists(NcclPath p, const NcclVersion& v) {
  switch (p) {
    case NcclPath::LOC:
    case NcclPath::NVL:
    case NcclPath::PIX:
    case NcclPath::PXB:
    case NcclPath::PHB:
    case NcclPath::SYS:
      return true;
    case NcclPath::NVB:
      return at_least(v, 2, 8);
    case NcclPath::PXN:
      return at_least(v, 2, 12);
    case NcclPath::C2C:
      return at_least(v, 2, 26);
    case NcclPath::P2C:
      return at_least(v, 2, 27);
    default:
      return false;  // NET, DIS are past SYS: NCCL never accepts them
  }
}

// ≤ 2.5: an integer on the old scale PIX0 PXB1 PHB2 NODE3 SYS4 with
// "distance >= level disables". As an inclusive level: 0 allows nothing
// (LOC), 1 PIX, 2 PXB, 3 and 4 PHB (our PHB covers the old PHB and NODE;
// level 3 allowed only the old PHB, so it is slightly generous), 5+ SYS.
std::optional<NcclPath> old_scale_level(const std::string& value) {
  if (value.empty()) return std::nullopt;
  errno = 0;
  long long n = std::strtoll(value.c_str(), nullptr, 0);
  if (errno) return std::nullopt;
  if (n <= 0) return NcclPath::LOC;
  static const NcclPath kByLevel[] = {NcclPath::LOC, NcclPath::PIX, NcclPath::PXB, NcclPath::PHB, NcclPath::PHB};
  return n >= 5 ? NcclPath::SYS : kByLevel[n];
}

}  // namespace

std::optional<NcclPath> parse_gdr_level(const std::string& value, const NcclVersion& version) {
  if (!at_least(version, 2, 6)) return old_scale_level(value);
  for (int i = 0; i <= static_cast<int>(NcclPath::SYS); ++i) {
    auto p = static_cast<NcclPath>(i);
    if (level_exists(p, version) && value == nccl_path_name(p)) return p;
  }
  // Legacy numbers: NCCL only looks at them when the text starts with a
  // digit, and reads the leading number (base 0), capped at 4.
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0]))) return std::nullopt;
  long n = std::strtol(value.c_str(), nullptr, 0);
  static const NcclPath kOld[] = {NcclPath::LOC, NcclPath::PIX, NcclPath::PXB, NcclPath::PHB, NcclPath::SYS};
  return kOld[std::clamp(n, 0L, 4L)];
}

namespace {

// ---- per-run context ---------------------------------------------------------------

struct Level {
  NcclPath path = NcclPath::PXB;
  std::string text;                  // "level PXB (default)" / "level SYS, set by NCCL_...=SYS (from ...)"
  const NcclSetting* set = nullptr;  // the setting that decided, if any
  std::vector<std::string> rules;    // e.g. an unrecognised value
};

struct Context {
  const GdrPredictInput& in;
  const Topology& view;
  std::string v;                            // version text for rules
  Side transport;                           // Yes = NCCL's IB transport is used
  std::vector<const Endpoint*> gpus, nics;  // nics: candidates for IB
  std::vector<std::string> hca_rules;
  Level level;
};

Side transport_side(const GdrPredictInput& in) {
  const NcclSettings& st = in.settings;
  if (int_param(st, "NCCL_IB_DISABLE", 0) != 0)
    return {Tri::No, {cite(*st.find("NCCL_IB_DISABLE")) + ": Socket transport, never GDR"}};
  const NcclSetting* net = st.find("NCCL_NET");
  if (!net || net->value.empty() || strcasecmp(net->value.c_str(), "IB") == 0) return {};
  if (strcasecmp(net->value.c_str(), "Socket") == 0) return {Tri::No, {cite(*net) + ": Socket transport, never GDR"}};
  return {Tri::Unknown, {cite(*net) + " selects a network plugin; gdrcheck predicts only NCCL's own IB transport"}};
}

int nic_port(const Endpoint& nic) {
  return int_attribute(nic, "port").value_or(1);
}

std::string nic_label(const Endpoint& nic) {
  return nic.name + ":" + std::to_string(nic_port(nic));
}

// The classic NCCL_IB_HCA pitfall: an entry naming one device exactly also
// prefix-matches others ("mlx5_1" → mlx5_10..mlx5_19).
std::string prefix_pitfalls(const HcaFilter& f, const std::vector<const Endpoint*>& nics) {
  if (f.exact) return "";
  std::vector<std::string> found;
  for (const auto& entry : f.entries) {
    bool named = false;
    std::vector<std::string> also;
    for (const Endpoint* n : nics) {
      if (n->name == entry.first)
        named = true;
      else if (n->name.starts_with(entry.first) && std::find(also.begin(), also.end(), n->name) == also.end())
        also.push_back(n->name);
    }
    if (named && !also.empty()) found.push_back("'" + entry.first + "' also matches " + join(also));
  }
  if (found.empty()) return "";
  return " (prefix match: " + join(found) + "; a leading '=' matches whole names)";
}

// RDMA NICs passing NCCL_IB_HCA; says what the filter did when one is set.
std::vector<const Endpoint*> candidate_nics(const Topology& view, const NcclSettings& st,
                                            std::vector<std::string>& rules) {
  const NcclSetting* hca = st.find("NCCL_IB_HCA");
  HcaFilter f = parse_hca(hca ? hca->value : "");
  std::vector<const Endpoint*> rdma, out;
  std::vector<std::string> all, picked;
  for (const Endpoint* n : view.with_role(DeviceRole::Nic)) {
    if (!n->rdma_device) continue;
    rdma.push_back(n);
    all.push_back(nic_label(*n));
    if (!hca_matches(f, n->name, nic_port(*n))) continue;
    out.push_back(n);
    picked.push_back(nic_label(*n));
  }
  if (hca)
    rules.push_back(cite(*hca) + " selects " + (picked.empty() ? "none" : join(picked)) + " of " + join(all) +
                    prefix_pitfalls(f, rdma));
  return out;
}

Level effective_level(const GdrPredictInput& in, const std::string& v) {
  Level l;
  if (const NcclSetting* s = in.settings.find("NCCL_NET_GDR_LEVEL")) {
    if (auto p = parse_gdr_level(s->value, in.version)) {
      l.path = *p;
      l.set = s;
      l.text = std::string("level ") + nccl_path_name(*p) + ", set by " + cite(*s);
      return l;
    }
    l.rules.push_back(cite(*s) + " is not a level NCCL " + v + " knows: the default is kept");
  }
  // 2.29+: default P2C while NCCL_NET_GDR_C2C (default 1) is on. P2C only
  // arises for NICs behind a C2C-attached CPU, so on PCIe it acts as PXB.
  if (at_least(in.version, 2, 29) && int_param(in.settings, "NCCL_NET_GDR_C2C", 1) != 0) {
    l.path = NcclPath::P2C;
    l.text = "level P2C (default; acts as PXB for PCIe-attached GPUs)";
  } else {
    l.text = at_least(in.version, 2, 6) ? "level PXB (default)" : "level PXB (default; NCCL <= 2.5: below PHB)";
  }
  return l;
}

Context make_context(const GdrPredictInput& in) {
  Context c{in, *in.nccl_view, in.version.str(), transport_side(in), {}, {}, {}, effective_level(in, in.version.str())};
  c.gpus = c.view.with_role(DeviceRole::Gpu);
  c.nics = candidate_nics(c.view, in.settings, c.hca_rules);
  return c;
}

// ---- paths ---------------------------------------------------------------------------

// NCCL's path type between two endpoints; a pasted nvidia-smi matrix has no
// tree, so its printed code is mapped instead (nccl-spec §1.5).
NcclClass path_between(const Topology& view, const Endpoint& a, const Endpoint& b) {
  if (view.tree == TreeStyle::None) {
    auto it = view.printed_matrix.find({a.id, b.id});
    if (it != view.printed_matrix.end()) return nccl_from_smi(parse_smi_code(it->second));
  }
  return nccl_class(view, a, b);
}

// ---- NIC choice (§1.6) -----------------------------------------------------------------

struct NicChoice {
  std::vector<const Endpoint*> nics;  // chosen first
  NcclClass path;
  std::vector<std::string> rules;
};

int nvml_index(const Context& c, const Endpoint& gpu) {
  if (auto dev = int_attribute(gpu, "dev"); dev && *dev >= 0) return *dev;
  auto it = std::find(c.gpus.begin(), c.gpus.end(), &gpu);
  return static_cast<int>(it - c.gpus.begin());
}

// GPUs for which `nic` is as close as for any GPU (NCCL's local GPUs of a NET).
int local_gpu_count(const Context& c, const Endpoint& nic) {
  std::vector<NcclPath> types;
  for (const Endpoint* g : c.gpus) types.push_back(path_between(c.view, *g, nic).path);
  NcclPath best = *std::min_element(types.begin(), types.end());
  return static_cast<int>(std::count(types.begin(), types.end(), best));
}

int mirror_bits(int value, int pow2) {
  int out = 0;
  for (int bit = 1, mirrored = pow2 >> 1; bit < pow2; bit <<= 1, mirrored >>= 1)
    if (value & bit) out |= mirrored;
  return out;
}

// Channel 0's NIC among nL equally close ones: NVML index (modulo the GPUs
// sharing them, 2.30), bit-mirrored when nL is a power of two. Versions
// before 2.30 did not take the modulo; 2.12 did not mirror either, which
// differs only with four or more equally close NICs.
std::size_t channel0_index(const Context& c, const Endpoint& gpu, const std::vector<const Endpoint*>& local) {
  int n_l = static_cast<int>(local.size());
  int idx = nvml_index(c, gpu);
  if (at_least(c.in.version, 2, 30)) idx %= std::max(1, local_gpu_count(c, *local.front()));
  if ((n_l & (n_l - 1)) == 0) idx = mirror_bits(idx, n_l);
  return static_cast<std::size_t>(idx % n_l);
}

// The candidates with the lowest path type from `gpu`, in NIC order.
NicChoice local_nics(const Context& c, const Endpoint& gpu) {
  NicChoice ch;
  std::vector<NcclClass> paths;
  std::vector<std::string> unknown;
  for (const Endpoint* n : c.nics) {
    paths.push_back(path_between(c.view, gpu, *n));
    if (paths.back().path == NcclPath::Unknown) unknown.push_back(n->name);
  }
  auto best = std::min_element(paths.begin(), paths.end(), [](auto& a, auto& b) { return a.path < b.path; });
  ch.path = *best;
  for (std::size_t i = 0; i < c.nics.size(); ++i)
    if (paths[i].path == best->path) ch.nics.push_back(c.nics[i]);
  if (best->path == NcclPath::Unknown)
    ch.rules.push_back("path from " + gpu.id + " to the NICs unknown: " + best->why);
  else if (!unknown.empty())
    ch.rules.push_back("path to " + join(unknown) + " unknown: not considered as " + gpu.id + "'s NIC");
  return ch;
}

NicChoice choose_nics(const Context& c, const Endpoint& gpu) {
  NicChoice ch = local_nics(c, gpu);
  if (ch.nics.size() < 2 || ch.path.path == NcclPath::Unknown) return ch;
  std::size_t first = channel0_index(c, gpu, ch.nics);
  std::rotate(ch.nics.begin(), ch.nics.begin() + static_cast<long>(first), ch.nics.end());
  std::vector<std::string> names;
  for (const Endpoint* n : ch.nics) names.push_back(n->name);
  ch.rules.push_back(std::to_string(names.size()) + " NICs equally close (" + nccl_path_name(ch.path.path) +
                     "): " + join(names) + "; channel 0 uses " + names.front() + ", other channels spread over them");
  return ch;
}

// ---- NIC side (§3.1, §3.2) ------------------------------------------------------------

Tri module_state(const Context& c, const std::vector<std::string>& files, std::vector<std::string>& present,
                 std::vector<std::string>& unread) {
  for (const auto& f : files) {
    auto it = c.in.host.peermem_files.find(f);
    if (it == c.in.host.peermem_files.end())
      unread.push_back(f);
    else if (it->second)
      present.push_back(f);
  }
  if (!present.empty()) return Tri::Yes;
  return unread.empty() ? Tri::No : Tri::Unknown;
}

Tri dmabuf_state(const Context& c, std::string& why) {
  if (!at_least(c.in.version, 2, 13)) {
    why = "NCCL " + c.v + " predates DMA-BUF support (2.13)";
    return Tri::No;
  }
  if (int_param(c.in.settings, "NCCL_DMABUF_ENABLE", 1) == 0) {
    why = "DMA-BUF disabled by " + cite(*c.in.settings.find("NCCL_DMABUF_ENABLE"));
    return Tri::No;
  }
  const std::string& r = c.in.host.dmabuf_reason;
  // Indexed by Tri (No, Yes, Unknown).
  static const char* kWhat[] = {"DMA-BUF not possible", "DMA-BUF possible", "DMA-BUF possibility unknown"};
  why = std::string(kWhat[static_cast<int>(c.in.host.dmabuf_possible)]) + (r.empty() ? "" : ": " + r);
  return c.in.host.dmabuf_possible;
}

// Peer-memory files the host has that this version does not look at.
void unchecked_files(const Context& c, const std::vector<std::string>& files, std::vector<std::string>& rules) {
  for (const auto& [path, present] : c.in.host.peermem_files) {
    if (!present || std::find(files.begin(), files.end(), path) != files.end()) continue;
    rules.push_back(
        path + " is present but " +
        (path == kModNvPeerMem ? std::string("no NCCL release checks it") : "NCCL " + c.v + " does not check it"));
  }
}

// A recorded NCCL XML carries NCCL's own verdict for the NIC (gdr="1").
Side recorded_gdr(const Endpoint& e, const std::string& what) {
  auto g = int_attribute(e, "gdr");
  if (!g) return {Tri::Unknown, {}};
  return {*g ? Tri::Yes : Tri::No, {"NCCL topology XML records gdr=" + std::to_string(*g) + " for " + what}};
}

Side net_side(const Context& c, const Endpoint& nic) {
  std::vector<std::string> files = checked_files(c.in.version), present, unread;
  Tri module = module_state(c, files, present, unread);
  std::string dma_why;
  Tri dma = dmabuf_state(c, dma_why);
  Side s;
  if (module == Tri::Yes) {
    s.rules.push_back("NIC side GDR: " + join(present) + " present (NCCL " + c.v + " checks " + join(files) + ")");
  } else if (dma == Tri::Yes) {
    s.rules.push_back("NIC side GDR through DMA-BUF: " + dma_why);
  } else if (module == Tri::No && dma == Tri::No) {
    s.ok = Tri::No;
    s.rules.push_back("NIC side has no GDR: none of " + join(files) + " present (the files NCCL " + c.v +
                      " checks) and " + dma_why);
  } else {
    Side rec = recorded_gdr(nic, nic.name);
    if (rec.ok != Tri::Unknown) return rec;
    s.ok = Tri::Unknown;
    std::string mod = module == Tri::No ? "none of " + join(files) + " present" : "could not read " + join(unread);
    s.rules.push_back("NIC side GDR unknown: " + mod + "; " + dma_why);
  }
  unchecked_files(c, files, s.rules);
  return s;
}

// ---- GPU side ---------------------------------------------------------------------------

int gpu_sm(const Context& c, const Endpoint& gpu) {
  auto it = c.in.gpus.find(gpu.id);
  if (it != c.in.gpus.end() && it->second.sm > 0) return it->second.sm;
  return int_attribute(gpu, "sm").value_or(0);
}

// cudaDevAttrGPUDirectRDMASupported is a runtime query; files cannot show it.
Side gpu_side(const Endpoint& gpu, int sm) {
  Side rec = recorded_gdr(gpu, gpu.id);
  if (rec.ok != Tri::Unknown) return rec;
  if (sm == 0)
    return {Tri::Yes,
            {"compute capability of " + gpu.id +
             " unknown: assumed GDR-capable (sm >= 60; "
             "cudaDevAttrGPUDirectRDMASupported cannot be read from files)"}};
  if (sm < 60)
    return {Tri::Unknown,
            {"sm " + std::to_string(sm) +
             " predates Pascal: GDR support "
             "(cudaDevAttrGPUDirectRDMASupported) cannot be read from files"}};
  return {};
}

// ---- distance and level (§2.2 steps 4-6, §2.5) ---------------------------------------------

struct Distance {
  NcclPath path;      // as NCCL labels GPU→NIC
  NcclPath distance;  // what it compares with the level
  std::string note;
};

// NVLink-C2C GPUs (Grace): a NIC on the GPU's own CPU is PHB on PCIe but
// NCCL treats it specially since 2.26.
Distance c2c_distance(const Context& c, const Endpoint& gpu, NcclPath path) {
  bool c2c = int_attribute(gpu, "c2c_count").value_or(0) > 0;
  if (!c2c || path != NcclPath::PHB || !at_least(c.in.version, 2, 26)) return {path, path, ""};
  const NcclVersion& v = c.in.version;
  bool gdr_c2c = int_param(c.in.settings, "NCCL_NET_GDR_C2C", at_least(v, 2, 27) ? 1 : 0) != 0;
  std::string via = gpu.id + " reaches the NIC's CPU over NVLink-C2C";
  if (!at_least(v, 2, 27))
    return gdr_c2c ? Distance{path, NcclPath::C2C, via + " and NCCL_NET_GDR_C2C is on: NCCL 2.26 judges it as C2C"}
                   : Distance{path, path, via + ", but NCCL_NET_GDR_C2C is off (the 2.26 default)"};
  if (!at_least(v, 2, 29) && gdr_c2c)
    return {NcclPath::P2C, NcclPath::C2C, via + ": path P2C, judged as C2C (NCCL_NET_GDR_C2C on)"};
  return {NcclPath::P2C, NcclPath::P2C, via + ": path P2C"};
}

std::string distance_name(const Distance& d) {
  std::string name = nccl_path_name(d.distance);
  if (d.distance != d.path) name += std::string(" (path ") + nccl_path_name(d.path) + ")";
  return name;
}

Side level_side(const Context& c, const Distance& d) {
  const Level& l = c.level;
  if (l.path == NcclPath::LOC && l.set) return {Tri::No, {cite(*l.set) + " disables GDR everywhere"}};
  if (d.distance == NcclPath::Unknown) return {Tri::Unknown, {}};
  std::string dist = "distance " + distance_name(d);
  if (d.distance > l.path) return {Tri::No, {dist + " > " + l.text + ": NCCL stages through host memory"}};
  return {Tri::Yes, {dist + " <= " + l.text + ": close enough for GDR"}};
}

// ---- send side: NIC reads GPU memory (§2.2 step 3, §2.4) -------------------------------------

const Endpoint* nvlink_peer(const Context& c, const Endpoint& gpu) {
  for (const Endpoint* g : c.gpus)
    if (g != &gpu && path_between(c.view, gpu, *g).path == NcclPath::NVL) return g;
  return nullptr;
}

Side read_side(const Context& c, const Endpoint& gpu, int sm) {
  const NcclSetting* s = c.in.settings.find("NCCL_NET_GDR_READ");
  long long read = int_param(c.in.settings, "NCCL_NET_GDR_READ", -2);
  if (read == 0) return {Tri::No, {cite(*s) + ": send side (NIC reads GPU memory) disabled"}};
  if (read > 0) return {Tri::Yes, {cite(*s) + ": send side allowed without the NVLink condition"}};
  bool all_archs = !at_least(c.in.version, 2, 19);  // 2.19 exempted sm >= 80
  std::string sm_text = sm ? "sm " + std::to_string(sm) : "unknown compute capability";
  if (!all_archs && sm >= 80)
    return {Tri::Yes, {"send side: " + sm_text + " reads GPU memory by default (NCCL >= 2.19)"}};
  if (const Endpoint* peer = nvlink_peer(c, gpu)) return {Tri::Yes, {"send side allowed: NVLink to " + peer->id}};
  if (c.gpus.size() == 1) return {Tri::Yes, {"send side allowed: the only GPU"}};
  std::string cond = "reads GPU memory by default only with an NVLink to another GPU (or a single GPU); " + gpu.id +
                     " has none (NCCL_NET_GDR_READ=1 forces it)";
  if (!all_archs && sm == 0)
    return {Tri::Unknown, {"send side unknown: " + sm_text + "; below sm 80 NCCL " + c.v + " " + cond}};
  std::string who = all_archs ? "NCCL " + c.v : "NCCL " + c.v + " on " + sm_text;
  return {Tri::No, {"send side disabled: " + who + " " + cond}};
}

// ---- one GPU ---------------------------------------------------------------------------------

void add(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

GdrPrediction predict_one(const Context& c, const Endpoint& gpu) {
  GdrPrediction p;
  p.gpu = gpu.id;
  p.level = nccl_path_name(c.level.path);
  if (c.transport.ok != Tri::Yes) {
    p.send = p.recv = c.transport.ok;
    p.rules = c.transport.rules;
    p.causes.push_back(GdrCause::Transport);
    return p;
  }
  add(p.rules, c.hca_rules);
  if (c.nics.empty()) {
    p.send = p.recv = Tri::No;
    p.rules.push_back("no RDMA NIC available to NCCL: it falls back to the Socket transport, never GDR");
    p.causes.push_back(GdrCause::NoNic);
    return p;
  }
  NicChoice ch = choose_nics(c, gpu);
  for (const Endpoint* n : ch.nics) p.nics.push_back(n->id);
  Distance d = c2c_distance(c, gpu, ch.path.path);
  p.path = d.path;
  add(p.rules, ch.rules);
  int sm = gpu_sm(c, gpu);
  Side net = net_side(c, *ch.nics.front()), dev = gpu_side(gpu, sm), lvl = level_side(c, d);
  add(p.rules, net.rules);
  add(p.rules, dev.rules);
  if (!d.note.empty()) p.rules.push_back(d.note);
  add(p.rules, c.level.rules);
  add(p.rules, lvl.rules);
  p.recv = every({net.ok, dev.ok, lvl.ok});
  if (net.ok != Tri::Yes) p.causes.push_back(GdrCause::PeerMemory);
  if (dev.ok != Tri::Yes) p.causes.push_back(GdrCause::GpuSide);
  if (lvl.ok != Tri::Yes) p.causes.push_back(c.level.set ? GdrCause::LevelSetting : GdrCause::Distance);
  if (p.recv == Tri::No) {
    p.send = Tri::No;  // the read rules cannot change anything
    return p;
  }
  Side read = read_side(c, gpu, sm);
  add(p.rules, read.rules);
  p.send = every({p.recv, read.ok});
  if (read.ok != Tri::Yes)
    p.causes.push_back(c.in.settings.find("NCCL_NET_GDR_READ") ? GdrCause::ReadSetting : GdrCause::ReadRule);
  return p;
}

}  // namespace

std::vector<GdrPrediction> predict_gdr(const GdrPredictInput& input) {
  std::vector<GdrPrediction> out;
  if (!input.nccl_view) return out;
  Context c = make_context(input);
  for (const Endpoint* g : c.gpus) out.push_back(predict_one(c, *g));
  return out;
}

}  // namespace gdrcheck

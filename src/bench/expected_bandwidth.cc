#include "bench/expected_bandwidth.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "host/text_format.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

// Where the built-in figures come from (docs/bandwidth-model.md has the
// full table with context).
constexpr const char* kSource100 = "100G: about 12 GB/s busbw per NIC (NVIDIA/nccl-tests#119, maintainer)";
constexpr const char* kSource200 =
    "200G HDR: about 24 GB/s per NIC (NVIDIA/nccl-tests#119, #160); DGX A100 8 x HDR about 192 GB/s "
    "(NVIDIA/nccl#812, #778)";
constexpr const char* kSource400 =
    "400G NDR: 46-49 GB/s per NIC (NVIDIA/nccl-tests#290, #267, #319); 8 x NDR ring up to about 396 GB/s "
    "(NVIDIA/nccl-tests#319, maintainer)";
constexpr const char* kSourceRing =
    "two nodes: force NCCL_ALGO=RING, tree can exceed the network (NVIDIA/nccl-tests#196)";
constexpr const char* kSourceRdma =
    "pass at 90 % of port rate (Mellanox/ngc_multinode_perf); AzNHC GDR loopback >= 375 Gb/s on NDR, >= 185 on "
    "HDR; Imbue ib_write_bw -b >= 720 Gb/s on NDR";
// Measured values may sit a little above a limit through rounding in the
// tool's output; anything beyond this is a wrong premise, not a fast node.
constexpr double kAboveLineRateSlack = 1.01;
// Exactly at the pass figure passes, whatever the floating-point rounding.
constexpr double kPassEpsilon = 1e-9;

// "400" for 400.0, "2.5" for 2.5.
std::string rate_number(double gbps) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", gbps);
  return buf;
}

// "algorithm TREE", "algorithm not known".
std::string algorithm_text(Algorithm a) {
  return a == Algorithm::Unknown ? "algorithm not known" : std::string("algorithm ") + algorithm_name(a);
}

// "1 GPU", "8 GPUs".
std::string count_of(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool same_rate(double a, double b) {
  return std::fabs(a - b) < 1e-6;
}

std::string ib_generation(double gbps) {
  if (same_rate(gbps, 800)) return "XDR";
  if (same_rate(gbps, 400)) return "NDR";
  if (same_rate(gbps, 200)) return "HDR";
  if (same_rate(gbps, 100)) return "EDR/HDR100";
  return "";
}

// "400 Gb/s InfiniBand (NDR)", "200 Gb/s Ethernet (RoCE)".
std::string port_text(double gbps, LinkLayer l) {
  std::string s = rate_number(gbps) + " Gb/s ";
  if (l == LinkLayer::Unknown) return s + "(unknown link layer)";
  s += link_layer_name(l);
  if (l == LinkLayer::InfiniBand && !ib_generation(gbps).empty()) s += " (" + ib_generation(gbps) + ")";
  return s;
}

const NicCeiling* find_ceiling(const std::vector<NicCeiling>& table, double rate, std::optional<LinkLayer> layer) {
  for (const auto& c : table)
    if (same_rate(c.rate_gbps, rate) && c.link_layer == layer) return &c;
  return nullptr;
}

const char* builtin_source(double rate) {
  if (same_rate(rate, 100)) return kSource100;
  if (same_rate(rate, 200)) return kSource200;
  if (same_rate(rate, 400)) return kSource400;
  return nullptr;
}

// One NIC port of the node, with its ceiling.
struct Port {
  double rate_gbps = 0;
  LinkLayer link_layer = LinkLayer::Unknown;
  double ceiling_gbytes = 0;
};

BandwidthExpectation unknown_expectation(BandwidthExpectation e, std::string reason) {
  e.known = false;
  e.unknown_reason = std::move(reason);
  return e;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// The site's fixed figure for this scenario: one for this node count beats
// one for any node count.
const FixedBusbw* find_fixed(const BandwidthScenario& s, const BandwidthOverrides& o) {
  if (s.node_type.empty()) return nullptr;
  const FixedBusbw* any = nullptr;
  for (const auto& f : o.fixed_busbw) {
    if (f.node_type != s.node_type || f.collective != s.collective) continue;
    if (f.nodes && *f.nodes == s.nodes) return &f;
    if (!f.nodes && !any) any = &f;
  }
  return any;
}

// "8 x 400 Gb/s InfiniBand (NDR) + 2 x 200 Gb/s Ethernet (RoCE)".
std::string nic_list_text(const std::vector<NicSpec>& nics) {
  std::string s;
  for (const auto& n : nics) {
    if (!s.empty()) s += " + ";
    s += std::to_string(n.count) + " x " + port_text(n.rate_gbps, n.link_layer);
  }
  return s;
}

// Checks the NIC list and expands it into ports; an error text when a
// rate or count is not known.
std::string expand_ports(const std::vector<NicSpec>& nics, const BandwidthOverrides& o, std::vector<Port>& ports,
                         BandwidthExpectation& e) {
  if (nics.empty()) return "no NIC listed for the nodes: the network ceiling cannot be computed";
  for (const auto& n : nics) {
    std::string who = n.name.empty() ? "a NIC" : n.name;
    if (n.count < 1) return who + ": NIC count " + std::to_string(n.count) + " is not a count";
    if (!std::isfinite(n.rate_gbps) || n.rate_gbps <= 0)
      return who + ": port rate not known (no expectation without every NIC's rate)";
    auto c = nic_ceiling(n.rate_gbps, n.link_layer, o);
    if (!c) return who + ": port rate not known";
    add_unique(e.sources, c->basis);
    for (int i = 0; i < n.count; ++i) ports.push_back({n.rate_gbps, n.link_layer, c->per_nic_gbytes});
    e.line_rate_gbytes += n.count * n.rate_gbps / 8;
  }
  return "";
}

void note_link_layers(const std::vector<NicSpec>& nics, BandwidthExpectation& e) {
  for (const auto& n : nics) {
    if (n.link_layer == LinkLayer::Ethernet)
      add_unique(e.assumptions,
                 "RoCE is counted like InfiniBand at the same rate (no separate published NCCL figure); a RoCE "
                 "fabric without lossless settings (PFC/ECN) falls short of it");
    if (n.link_layer == LinkLayer::Unknown)
      add_unique(e.assumptions, "link layer not known: counted like InfiniBand at the same rate");
  }
}

// How many NICs per node carry the collective, with the assumption made.
int nics_used(const BandwidthScenario& s, int ports, BandwidthExpectation& e) {
  if (s.nics_driven_per_node) {
    int n = std::clamp(*s.nics_driven_per_node, 1, ports);
    e.assumptions.push_back(count_of(n, "NIC") + " per node driven by NCCL (as given)");
    return n;
  }
  if (ports > s.gpus_per_node)
    e.assumptions.push_back(count_of(ports, "NIC") + " for " + count_of(s.gpus_per_node, "GPU") +
                            " per node: one NIC per GPU counted, a lower bound — NCCL can drive several NICs "
                            "from one GPU (NVIDIA/nccl#1579: one GH200 per node, 4 x 200G, 96.1 GB/s); give the "
                            "NICs NCCL drives to judge against all of them");
  if (ports < s.gpus_per_node)
    e.assumptions.push_back(count_of(ports, "NIC") + " shared by " + count_of(s.gpus_per_node, "GPU") +
                            " per node: the NICs cap the aggregate");
  return std::min(ports, s.gpus_per_node);
}

void note_algorithm(Algorithm a, BandwidthExpectation& e) {
  e.assumptions.push_back(
      "ring figure: on two nodes or more each ring leaves the node through one NIC, and busbw (algbw x 2(n-1)/n "
      "for all_reduce) equals the traffic on that link, so busbw is the sum of the used NICs' ceilings");
  if (a != Algorithm::Ring)
    e.assumptions.push_back(algorithm_text(a) +
                            ": the figure is a RING figure; tree/NVLS/CollNet can exceed it on two nodes and fall "
                            "below it on many, so it is not a floor — force NCCL_ALGO=RING to judge");
  e.sources.push_back(kSourceRing);
}

BandwidthExpectation from_fixed(const FixedBusbw& f, const BandwidthScenario& s, const BandwidthOverrides& o,
                                BandwidthExpectation e) {
  e.known = true;
  e.network_bound = s.nodes >= 2;
  e.expected_busbw_gbytes = f.busbw_gbytes;
  e.pass_ratio = f.pass_ratio.value_or(o.pass_ratio);
  e.pass_busbw_gbytes = e.pass_ratio * e.expected_busbw_gbytes;
  e.site_figure = true;
  e.basis = f.node_type + " " + collective_name(f.collective) +
            (f.nodes ? " on " + count_of(*f.nodes, "node") : std::string(" on any node count"));
  e.sources.push_back("site file " + o.source);
  e.assumptions.push_back("site figure: replaces the NIC model for this node type and collective");
  return e;
}

// alltoall sends (n-G)/n of each rank's data off the node, so its busbw on
// a NIC-bound fabric is A(n-1)/(G(n-G)) for A the node's NIC ceiling; real
// alltoall efficiency varies too much with fabric and congestion control to
// make that a pass figure without a measurement from the site.
std::string alltoall_reason(const BandwidthScenario& s, double aggregate) {
  double n = static_cast<double>(s.gpus_per_node) * s.nodes;
  double g = s.gpus_per_node;
  double bound = aggregate * (n - 1) / (g * (n - g));
  return "alltoall has no published per-generation figure: the NIC bound is busbw = A(n-1)/(G(n-G)) = " +
         fixed(bound, 1) +
         " GB/s here, but achieved alltoall bandwidth varies with the fabric; set a fixed figure "
         "for it in the site bandwidth file";
}

}  // namespace

const char* link_layer_name(LinkLayer l) {
  switch (l) {
    case LinkLayer::InfiniBand:
      return "InfiniBand";
    case LinkLayer::Ethernet:
      return "Ethernet (RoCE)";
    case LinkLayer::Unknown:
      break;
  }
  return "unknown link layer";
}

LinkLayer link_layer_from_name(std::string_view name) {
  std::string n = ascii::lower(name);
  if (n == "infiniband" || n == "ib") return LinkLayer::InfiniBand;
  if (n == "ethernet" || n == "roce" || n == "eth" || n == "ethernet (roce)") return LinkLayer::Ethernet;
  return LinkLayer::Unknown;
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all_reduce";
    case Collective::AllGather:
      return "all_gather";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::Broadcast:
      return "broadcast";
    case Collective::Reduce:
      return "reduce";
    case Collective::AllToAll:
      return "alltoall";
    case Collective::SendRecv:
      return "sendrecv";
    case Collective::Unknown:
      break;
  }
  return "unknown collective";
}

Collective collective_from_name(std::string_view name) {
  std::string n = ascii::lower(name);
  for (std::string_view suffix : {"_perf_mpi", "_perf"})
    if (n.size() > suffix.size() && n.ends_with(suffix)) n.resize(n.size() - suffix.size());
  std::erase(n, '_');
  if (n == "allreduce") return Collective::AllReduce;
  if (n == "allgather") return Collective::AllGather;
  if (n == "reducescatter") return Collective::ReduceScatter;
  if (n == "broadcast") return Collective::Broadcast;
  if (n == "reduce") return Collective::Reduce;
  if (n == "alltoall") return Collective::AllToAll;
  if (n == "sendrecv") return Collective::SendRecv;
  return Collective::Unknown;
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Ring:
      return "RING";
    case Algorithm::Tree:
      return "TREE";
    case Algorithm::Nvls:
      return "NVLS";
    case Algorithm::CollNet:
      return "COLLNET";
    case Algorithm::Pat:
      return "PAT";
    case Algorithm::Unknown:
      break;
  }
  return "unknown algorithm";
}

Algorithm algorithm_from_name(std::string_view name) {
  std::string n = ascii::lower(name);
  if (n == "ring") return Algorithm::Ring;
  if (n == "tree") return Algorithm::Tree;
  if (n == "nvls" || n == "nvlstree") return Algorithm::Nvls;
  if (n == "collnet" || n == "collnetdirect" || n == "collnetchain") return Algorithm::CollNet;
  if (n == "pat") return Algorithm::Pat;
  return Algorithm::Unknown;
}

const std::vector<NicCeiling>& default_nic_ceilings() {
  static const std::vector<NicCeiling> table = {
      {100, std::nullopt, 12.0},
      {200, std::nullopt, 24.0},
      {400, std::nullopt, 48.0},
  };
  return table;
}

std::optional<NicCeilingLookup> nic_ceiling(double rate_gbps, LinkLayer link_layer, const BandwidthOverrides& o) {
  if (!std::isfinite(rate_gbps) || rate_gbps <= 0) return std::nullopt;
  std::string port = port_text(rate_gbps, link_layer);
  const NicCeiling* site = find_ceiling(o.nic_ceilings, rate_gbps, link_layer);
  if (!site) site = find_ceiling(o.nic_ceilings, rate_gbps, std::nullopt);
  if (site)
    return NicCeilingLookup{site->per_nic_gbytes, "site file " + o.source + ": " + port + " = " +
                                                      fixed(site->per_nic_gbytes, 1) + " GB/s per NIC"};
  if (const NicCeiling* c = find_ceiling(default_nic_ceilings(), rate_gbps, std::nullopt))
    return NicCeilingLookup{c->per_nic_gbytes, builtin_source(rate_gbps)};
  double derived = rate_gbps * kBusbwGbytesPerGbps;
  std::string basis = rate_number(rate_gbps) + "G: derived " + fixed(derived, 1) +
                      " GB/s per NIC = 0.12 GB/s per Gb/s of port rate (0.96 of line rate in bytes, as the 100, 200 "
                      "and 400G figures)";
  if (rate_gbps > 400) basis += "; no published NCCL figure above 400G yet — set a site ceiling once measured";
  return NicCeilingLookup{derived, basis};
}

BandwidthExpectation expect_nccl_busbw(const BandwidthScenario& s, const BandwidthOverrides& o) {
  BandwidthExpectation e;
  e.collective = s.collective;
  e.algorithm = s.algorithm;
  e.pass_ratio = o.pass_ratio;
  if (s.collective == Collective::Unknown) return unknown_expectation(e, "no bandwidth model for this collective");
  if (s.nodes < 1) return unknown_expectation(e, "node count not known");
  if (s.gpus_per_node < 1) return unknown_expectation(e, "GPUs per node not known");
  if (const FixedBusbw* f = find_fixed(s, o)) return from_fixed(*f, s, o, e);
  if (s.nodes == 1)
    return unknown_expectation(e, std::string("single node: bandwidth is bound by ") +
                                      (s.amd_gpus ? "xGMI" : "NVLink") +
                                      "/PCIe, not the network, so there is no NIC-based expectation (a site figure for "
                                      "single-node runs can be set in the bandwidth file)");
  std::vector<Port> ports;
  if (std::string why = expand_ports(s.nics_per_node, o, ports, e); !why.empty()) return unknown_expectation(e, why);
  e.network_bound = true;
  note_link_layers(s.nics_per_node, e);
  // The fastest ports first: the ones NCCL prefers when it cannot use all.
  std::stable_sort(ports.begin(), ports.end(),
                   [](const Port& a, const Port& b) { return a.ceiling_gbytes > b.ceiling_gbytes; });
  int driven = nics_used(s, static_cast<int>(ports.size()), e);
  if (s.collective == Collective::AllToAll) {
    double aggregate = 0;
    for (int i = 0; i < driven; ++i) aggregate += ports[i].ceiling_gbytes;
    return unknown_expectation(e, alltoall_reason(s, aggregate));
  }
  e.nics_used = driven;
  if (s.collective == Collective::SendRecv) {
    e.nics_used = 1;
    e.assumptions.push_back(
        "sendrecv: one rank pair per node boundary crosses the network, through one NIC; NCCL may spread it over "
        "more NICs (PXN), which only raises the result");
  }
  for (int i = 0; i < e.nics_used; ++i) e.expected_busbw_gbytes += ports[i].ceiling_gbytes;
  e.per_nic_gbytes = e.expected_busbw_gbytes / e.nics_used;
  bool uniform = ports.front().ceiling_gbytes == ports[e.nics_used - 1].ceiling_gbytes;
  std::string list = nic_list_text(s.nics_per_node);
  e.basis = e.nics_used < static_cast<int>(ports.size())
                ? std::to_string(e.nics_used) + " of " + std::to_string(ports.size()) + " NICs per node (" + list + ")"
                : list + " NICs per node";
  e.basis += uniform ? ", " + fixed(e.per_nic_gbytes, 1) + " GB/s each" : std::string(", the fastest counted");
  note_algorithm(s.algorithm, e);
  e.known = true;
  e.pass_busbw_gbytes = e.pass_ratio * e.expected_busbw_gbytes;
  return e;
}

namespace {

// A RING busbw above what every listed NIC carries at line rate cannot have
// come from the scenario described.
bool impossible_for_ring(const BandwidthExpectation& e, double measured) {
  return !e.site_figure && e.network_bound && e.algorithm == Algorithm::Ring && e.line_rate_gbytes > 0 &&
         measured > e.line_rate_gbytes * kAboveLineRateSlack;
}

const char* figure_name(const BandwidthExpectation& e) {
  return e.site_figure ? "site figure" : "ring figure";
}

std::vector<std::string> expectation_evidence(const BandwidthExpectation& e) {
  std::vector<std::string> ev;
  if (e.known)
    ev.push_back("expected busbw " + fixed(e.expected_busbw_gbytes, 1) + " GB/s (bytes): " + figure_name(e) + " for " +
                 e.basis + "; pass at " + fixed(e.pass_ratio, 2) + " = " + fixed(e.pass_busbw_gbytes, 1) + " GB/s");
  for (const auto& a : e.assumptions) ev.push_back("assumption: " + a);
  for (const auto& s : e.sources) ev.push_back("source: " + s);
  return ev;
}

constexpr const char* kBusbwFix =
    "prove GPUDirect RDMA from the run's NCCL_DEBUG=INFO log (gdrcheck analyze), check every NIC port is active at "
    "full rate and each GPU-NIC path, ACS and IOMMU (gdrcheck node), then measure each GPU-NIC pair with "
    "ib_write_bw --use_cuda; judge messages of 1 GiB or more";

}  // namespace

BandwidthJudgement judge_busbw(const BandwidthExpectation& e, double measured) {
  BandwidthJudgement j;
  j.evidence = expectation_evidence(e);
  std::string coll = collective_name(e.collective);
  if (!e.known) {
    j.summary = coll + " busbw cannot be judged: " + e.unknown_reason;
    return j;
  }
  if (!std::isfinite(measured) || measured < 0) {
    j.summary = coll + " busbw cannot be judged: no measured busbw";
    return j;
  }
  j.ratio = e.expected_busbw_gbytes > 0 ? measured / e.expected_busbw_gbytes : 0;
  // A site figure is the site's own gate, whatever the algorithm; the NIC
  // model's ring figure is a floor only for RING.
  bool strict = e.site_figure || e.algorithm == Algorithm::Ring;
  std::string what = coll + " busbw " + fixed(measured, 1) + " GB/s (bytes, bus bandwidth)";
  if (impossible_for_ring(e, measured)) {
    j.summary = what + " is above the line rate of the listed NICs (" + fixed(e.line_rate_gbytes, 1) +
                " GB/s): the NIC list, node count or algorithm is not what ran";
    j.fix = "give the NICs, nodes and NCCL_ALGO of the run that produced this figure";
    return j;
  }
  j.summary = what + " = " + fixed(j.ratio, 2) + " of the " + figure_name(e) + " " + fixed(e.expected_busbw_gbytes, 1) +
              " GB/s for " + e.basis + "; pass at " + fixed(e.pass_ratio, 2) + " (" + fixed(e.pass_busbw_gbytes, 1) +
              " GB/s)";
  if (measured >= e.pass_busbw_gbytes * (1 - kPassEpsilon)) {
    j.status = Status::Ok;
    return j;
  }
  if (strict) {
    j.status = Status::Critical;
    j.fix = kBusbwFix;
  } else {
    j.status = Status::Warning;
    j.summary += "; " + algorithm_text(e.algorithm) + ", so the ring figure is not a floor";
    j.fix = std::string("rerun with NCCL_ALGO=RING to judge against the ring figure; if it stays low: ") + kBusbwFix;
  }
  return j;
}

RdmaExpectation expect_rdma_pair(double port_rate_gbps, RdmaDirection direction, const BandwidthOverrides& o) {
  RdmaExpectation e;
  e.port_rate_gbps = port_rate_gbps;
  e.direction = direction;
  e.pass_ratio = o.rdma_pass_ratio;
  if (!std::isfinite(port_rate_gbps) || port_rate_gbps <= 0) {
    e.unknown_reason = "port rate not known";
    return e;
  }
  bool both = direction == RdmaDirection::Bidirectional;
  e.expected_gbits = port_rate_gbps * (both ? 2 : 1);
  e.pass_gbits = e.pass_ratio * e.expected_gbits;
  e.known = true;
  e.assumptions.push_back(
      "large messages with the buffer in GPU memory (--use_cuda), one port, as "
      "ngc_multinode_perf runs it");
  if (both) e.assumptions.push_back("ib_write_bw -b reports both directions summed: expected 2 x port rate");
  e.sources.push_back(kSourceRdma);
  if (!o.source.empty()) e.sources.push_back("pass ratio from site file " + o.source);
  return e;
}

BandwidthJudgement judge_rdma_pair(const RdmaExpectation& e, double measured) {
  BandwidthJudgement j;
  for (const auto& a : e.assumptions) j.evidence.push_back("assumption: " + a);
  for (const auto& s : e.sources) j.evidence.push_back("source: " + s);
  if (!e.known) {
    j.summary = "ib_write_bw cannot be judged: " + e.unknown_reason;
    return j;
  }
  if (!std::isfinite(measured) || measured < 0) {
    j.summary = "ib_write_bw cannot be judged: no measured bandwidth";
    return j;
  }
  bool both = e.direction == RdmaDirection::Bidirectional;
  std::string what = "ib_write_bw " + fixed(measured, 1) + " Gb/s (bits, " +
                     (both ? "bidirectional, both directions summed" : "unidirectional") + ")";
  std::string limit = both ? fixed(e.expected_gbits, 0) + " Gb/s (2 x " + rate_number(e.port_rate_gbps) + " Gb/s port)"
                           : "the " + rate_number(e.port_rate_gbps) + " Gb/s port rate";
  j.ratio = measured / e.expected_gbits;
  if (measured > e.expected_gbits * kAboveLineRateSlack) {
    j.summary = what + " is above " + limit + ": the port rate or the direction is not what ran";
    j.fix = "give the rate of the port the test ran on, and -b when the test was bidirectional";
    return j;
  }
  j.summary = what + " = " + fixed(j.ratio, 2) + " of " + limit + "; pass at " + fixed(e.pass_ratio, 2) + " (" +
              fixed(e.pass_gbits, 1) + " Gb/s)";
  if (measured >= e.pass_gbits * (1 - kPassEpsilon)) {
    j.status = Status::Ok;
    return j;
  }
  j.status = Status::Critical;
  j.fix =
      "check the GPU-NIC path (gdrcheck node: PIX/PXB, ACS, IOMMU), peer memory (nvidia-peermem, or "
      "--use_cuda_dmabuf) and the port (ibstat rate, error counters); rerun with the buffer in host memory: if that "
      "reaches the rate, the GPU side of the path is at fault";
  return j;
}

}  // namespace gdrcheck

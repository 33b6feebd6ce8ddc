// The expected-bandwidth model: what nccl-tests busbw and perftest
// ib_write_bw should reach on a given set of NICs, and the judgement of a
// measured figure against it. Pure: no I/O (the site override file is read
// by the caller and parsed by bandwidth_overrides.h).
//
// Units, because they are the usual trap: NIC port rates and perftest
// figures are Gb/s (bits, 1e9); NCCL busbw is GB/s (bytes, 1e9). Every text
// this model produces says which. The figures and their sources are in
// docs/bandwidth-model.md.
//
// NCCL model in one line: on two nodes or more, a ring collective's busbw
// is what the NICs one node drives can carry in one direction (each ring
// leaves the node through one NIC; busbw is normalised so that it equals the
// traffic on the slowest link), i.e. the sum of per-NIC ceilings of the
// NICs used. Tree/NVLS/CollNet can exceed it on two nodes, which is why
// the figure is always a ring figure and is a strict floor only for RING.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/finding.h"

namespace gdrcheck {

// ---- vocabulary -----------------------------------------------------------

enum class LinkLayer { InfiniBand, Ethernet, Unknown };  // Ethernet = RoCE

// "InfiniBand", "Ethernet (RoCE)", "unknown link layer".
const char* link_layer_name(LinkLayer l);
// sysfs/ibstat spellings and short forms, any case: "InfiniBand", "IB" →
// InfiniBand; "Ethernet", "RoCE", "eth" → Ethernet; anything else Unknown.
LinkLayer link_layer_from_name(std::string_view name);

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv, Unknown };

// "all_reduce", "all_gather", ... , "sendrecv", "unknown collective".
const char* collective_name(Collective c);
// Accepts nccl-tests binary/test names and NCCL's spellings, any case:
// "all_reduce", "all_reduce_perf", "all_reduce_perf_mpi", "allreduce",
// "AllReduce". Others (gather, scatter, hypercube, "") → Unknown.
Collective collective_from_name(std::string_view name);

enum class Algorithm { Ring, Tree, Nvls, CollNet, Pat, Unknown };

const char* algorithm_name(Algorithm a);  // "RING", "TREE", "NVLS", "COLLNET", "PAT", "unknown algorithm"
// NCCL_ALGO / NCCL log spellings, any case: "Ring", "TREE", "NVLSTree" (→
// Nvls), "CollnetDirect"/"CollnetChain" (→ CollNet), "PAT".
Algorithm algorithm_from_name(std::string_view name);

// ---- inputs ---------------------------------------------------------------

// One kind of NIC port in a node. rate_gbps as ibstat / sysfs `rate`
// reports it: 100 (EDR), 200 (HDR), 400 (NDR), 800 (XDR), 25/50/100/200/
// 400 Ethernet. 0 or less = not known.
struct NicSpec {
  std::string name;  // "mlx5_0", or a group name ("compute NICs"); for messages
  double rate_gbps = 0;
  LinkLayer link_layer = LinkLayer::Unknown;
  int count = 1;  // identical ports of this kind per node
};

struct BandwidthScenario {
  std::vector<NicSpec> nics_per_node;  // the NICs NCCL may use (NCCL_IB_HCA-filtered when known)
  int gpus_per_node = 0;               // ranks per node
  int nodes = 0;
  Collective collective = Collective::Unknown;
  Algorithm algorithm = Algorithm::Unknown;  // as forced (NCCL_ALGO) or shown by the log
  // NICs NCCL drives per node when the caller knows it (distinct NET
  // devices in the log's channel lines). Unset: min(NICs, GPUs), one NIC
  // per GPU — a lower bound when one GPU can drive several NICs.
  std::optional<int> nics_driven_per_node;
  // A site's name for the node type ("dgx-h100"), matched against fixed
  // figures in the override file; empty = none.
  std::string node_type;
  // AMD GPUs (an RCCL job): linked inside a node by xGMI, not NVLink.
  bool amd_gpus = false;
};

// A site's per-NIC NCCL busbw ceiling for one port rate (and link layer).
struct NicCeiling {
  double rate_gbps = 0;
  std::optional<LinkLayer> link_layer;  // unset = any link layer
  double per_nic_gbytes = 0;            // GB/s (bytes) of busbw one NIC carries
};

// A site's fixed expected busbw for a node type and collective (optionally
// only at one node count). Beats the NIC model.
struct FixedBusbw {
  std::string node_type;
  Collective collective = Collective::Unknown;
  std::optional<int> nodes;  // unset = any node count
  double busbw_gbytes = 0;
  std::optional<double> pass_ratio;  // unset = BandwidthOverrides::pass_ratio
};

// Site overrides (docs/bandwidth-model.md "Site overrides"). A
// default-constructed value is the built-in model.
struct BandwidthOverrides {
  std::string source;  // the file they came from; empty = built-in defaults
  std::vector<NicCeiling> nic_ceilings;
  std::vector<FixedBusbw> fixed_busbw;
  double pass_ratio = 0.9;       // NCCL busbw: pass at >= ratio x expected
  double rdma_pass_ratio = 0.9;  // perftest: pass at >= ratio x port rate (ngc_multinode_perf's 90 %)
};

// ---- per-NIC ceilings -----------------------------------------------------

// Busbw (GB/s) the built-in model gives per Gb/s of port rate for rates not
// in the table: 12 GB/s per 100G, 24 per 200G, 48 per 400G (0.96 of line
// rate in bytes).
inline constexpr double kBusbwGbytesPerGbps = 0.12;

// The built-in per-NIC ceilings (100, 200, 400 Gb/s; any link layer).
const std::vector<NicCeiling>& default_nic_ceilings();

struct NicCeilingLookup {
  double per_nic_gbytes = 0;
  std::string basis;  // "site file bw.json: 400 Gb/s InfiniBand = 47.0 GB/s" / "built-in table ..." / "derived ..."
};

// The ceiling for one NIC: the site's entry for this rate and link layer,
// then the site's entry for this rate and any link layer, then the built-in
// table, then rate x kBusbwGbytesPerGbps. nullopt when the rate is unknown.
std::optional<NicCeilingLookup> nic_ceiling(double rate_gbps, LinkLayer link_layer, const BandwidthOverrides& o);

// ---- NCCL busbw -----------------------------------------------------------

struct BandwidthExpectation {
  // An expected figure exists. False: unknown_reason says why, and any
  // judgement against it is UNKNOWN (never a pass).
  bool known = false;
  // The figure is what the network carries (nodes >= 2). False for a single
  // node (NVLink/PCIe bound) — then known only from a site's fixed figure.
  bool network_bound = false;
  bool site_figure = false;  // from the site file's fixed_busbw, not the NIC model
  Collective collective = Collective::Unknown;
  Algorithm algorithm = Algorithm::Unknown;
  int nics_used = 0;                 // NICs per node the figure counts
  double per_nic_gbytes = 0;         // mean ceiling of those NICs, GB/s
  double expected_busbw_gbytes = 0;  // the ring figure, GB/s (bytes), bus bandwidth
  double line_rate_gbytes = 0;       // every listed NIC at line rate, GB/s; 0 when not known
  double pass_ratio = 0.9;
  double pass_busbw_gbytes = 0;  // pass_ratio x expected
  std::string basis;             // "8 x 400 Gb/s InfiniBand (NDR) per node"
  std::vector<std::string> assumptions;
  std::vector<std::string> sources;
  std::string unknown_reason;
};

BandwidthExpectation expect_nccl_busbw(const BandwidthScenario& s, const BandwidthOverrides& o);

// A judgement, ready to become a Finding (summary, evidence, fix).
struct BandwidthJudgement {
  Status status = Status::Unknown;
  double ratio = 0;  // measured / expected; 0 when not known
  std::string summary;
  std::vector<std::string> evidence;
  std::string fix;  // empty when OK
};

// OK at >= pass; below it CRITICAL for a RING figure, WARNING otherwise
// (the ring figure is not a floor for Tree/NVLS/unknown algorithms);
// UNKNOWN without an expectation, without a measurement, or (RING on two
// nodes or more) above the NICs' line rate, which means the NIC list or
// the scenario is wrong.
BandwidthJudgement judge_busbw(const BandwidthExpectation& e, double measured_busbw_gbytes);

// ---- perftest (ib_write_bw) per GPU-NIC pair ------------------------------

enum class RdmaDirection { Unidirectional, Bidirectional };  // ib_write_bw / ib_write_bw -b

struct RdmaExpectation {
  bool known = false;
  double port_rate_gbps = 0;
  RdmaDirection direction = RdmaDirection::Unidirectional;
  double expected_gbits = 0;  // Gb/s (bits): port rate, x2 bidirectional (perftest sums both directions)
  double pass_ratio = 0.9;
  double pass_gbits = 0;
  std::vector<std::string> assumptions;
  std::vector<std::string> sources;
  std::string unknown_reason;
};

RdmaExpectation expect_rdma_pair(double port_rate_gbps, RdmaDirection direction, const BandwidthOverrides& o);

// measured_gbits as `ib_write_bw --report_gbits` prints BW average (Gb/s).
// OK at >= pass, CRITICAL below, UNKNOWN without expectation/measurement
// or above the line rate.
BandwidthJudgement judge_rdma_pair(const RdmaExpectation& e, double measured_gbits);

}  // namespace gdrcheck

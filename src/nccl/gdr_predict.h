// NCCL's GPUDirect RDMA decision per GPU, predicted from the topology and
// host facts (reference nccl-spec.md §1.6, §2, §3): which NIC(s) the GPU
// uses, the path type, and whether the send (NIC reads GPU memory) and
// receive (NIC writes GPU memory) sides use GDR, with the rule that decided.
// Pure: no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nccl/nccl_settings.h"
#include "nccl/nccl_version.h"
#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck {

enum class Tri { No, Yes, Unknown };
const char* tri_name(Tri t);  // "no", "yes", "unknown"

// What the host offers NCCL's IB transport for GPU memory (nccl-spec §3).
struct GdrHostFacts {
  // Peer-memory files NCCL tests with access(): path → present? (absent key = unknown)
  //   /sys/kernel/mm/memory_peers/nv_mem/version
  //   /sys/kernel/mm/memory_peers/nv_mem_nc/version
  //   /sys/kernel/mm/memory_peers/nvidia-peermem/version
  //   /sys/module/nvidia_peermem/version
  std::map<std::string, bool> peermem_files;
  // DMA-BUF preconditions readable from files: open kernel module, kernel
  // >= 5.12, driver new enough, GPU Turing or newer. Unknown when any is.
  Tri dmabuf_possible = Tri::Unknown;
  std::string dmabuf_reason;  // why (not) possible, for the rule text
};

struct GpuFacts {
  int sm = 0;  // compute capability major*10+minor; 0 = unknown
};

// What kept GDR off (or unknown) for a GPU, for choosing the fix.
enum class GdrCause {
  Transport,     // NCCL_IB_DISABLE / NCCL_NET: not the IB transport
  NoNic,         // no RDMA NIC available to NCCL
  PeerMemory,    // NIC side: no peer-memory module and no DMA-BUF path
  GpuSide,       // GPU side: not GDR-capable or unknown
  Distance,      // the GPU→NIC path is farther than the level allows
  LevelSetting,  // NCCL_NET_GDR_LEVEL set (e.g. LOC) decided it
  ReadSetting,   // NCCL_NET_GDR_READ=0
  ReadRule,      // send side needs an NVLink peer (pre-Ampere, or NCCL <= 2.18)
};

struct GdrPrediction {
  std::string gpu;  // GPU endpoint id
  // NIC endpoint ids NCCL would use for this GPU: the equally close ("local")
  // NICs, channel 0's NIC first. Empty when NCCL would not use IB at all.
  std::vector<std::string> nics;
  NcclPath path = NcclPath::Unknown;  // GPU→first NIC, NCCL's view (P2C on Grace C2C, 2.27+)
  Tri send = Tri::Unknown;            // NIC reads GPU memory (read=1)
  Tri recv = Tri::Unknown;            // NIC writes GPU memory (read=0)
  std::string level;                  // effective NCCL_NET_GDR_LEVEL name, e.g. "PXB" ("P2C" by default from 2.29)
  std::vector<GdrCause> causes;       // why send or recv is not Yes; empty when both are
  std::vector<std::string> rules;     // each rule that decided, in words, e.g.
                                      // "distance PHB > level PXB (default): NCCL stages through host memory",
                                      // "NCCL_NET_GDR_LEVEL=LOC (from /etc/nccl.conf:2) disables GDR everywhere"
};

struct GdrPredictInput {
  const Topology* nccl_view = nullptr;   // from nccl_view(); GPUs and NICs as endpoints
  std::map<std::string, GpuFacts> gpus;  // by endpoint id
  GdrHostFacts host;
  NcclSettings settings;
  NcclVersion version = NcclVersion::newest();
};

std::vector<GdrPrediction> predict_gdr(const GdrPredictInput& input);

// Parses NCCL_NET_GDR_LEVEL as the given version would (names valid in that
// version, matched exactly; legacy integers 0..4+, read from a leading
// digit). nullopt = unrecognised (NCCL keeps the default). For NCCL <= 2.5,
// an integer parameter with "distance >= level disables" on the scale PIX0
// PXB1 PHB2 NODE3 SYS4, the result is the equivalent inclusive level.
std::optional<NcclPath> parse_gdr_level(const std::string& value, const NcclVersion& version);

// NCCL_IB_HCA filtering (nccl-spec: prefix match by default, '=' exact,
// '^' exclude, ':port' suffix; nothing trimmed). True when the RDMA device
// name/port passes. An empty filter selects everything; "^" alone nothing.
bool ib_hca_selects(const std::string& filter, const std::string& device, int port);

}  // namespace gdrcheck

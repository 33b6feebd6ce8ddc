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

struct GdrPrediction {
  std::string gpu;                // GPU endpoint id
  std::vector<std::string> nics;  // NIC endpoint ids NCCL would use for this GPU (first = default)
  NcclPath path = NcclPath::Unknown;  // GPU→first NIC, NCCL's view
  Tri send = Tri::Unknown;        // NIC reads GPU memory (read=1)
  Tri recv = Tri::Unknown;        // NIC writes GPU memory (read=0)
  std::string level;              // effective NCCL_NET_GDR_LEVEL name, e.g. "PXB"
  std::vector<std::string> rules; // each rule that decided, in words, e.g.
                                  // "distance PHB > level PXB: GDR disabled (NCCL_NET_GDR_LEVEL default)"
};

struct GdrPredictInput {
  const Topology* nccl_view = nullptr;  // from nccl_view(); GPUs and NICs as endpoints
  std::map<std::string, GpuFacts> gpus;  // by endpoint id
  GdrHostFacts host;
  NcclSettings settings;
  NcclVersion version = NcclVersion::newest();
};

std::vector<GdrPrediction> predict_gdr(const GdrPredictInput& input);

// Parses NCCL_NET_GDR_LEVEL as the given version would (names valid in that
// version, legacy integers 0..4+). nullopt = unrecognised (NCCL keeps the default).
std::optional<NcclPath> parse_gdr_level(const std::string& value, const NcclVersion& version);

// NCCL_IB_HCA filtering (nccl-spec: prefix match by default, '=' exact,
// '^' exclude, ':port' suffix). True when the RDMA device name/port passes.
bool ib_hca_selects(const std::string& filter, const std::string& device, int port);

}  // namespace gdrcheck

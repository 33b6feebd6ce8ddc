// NCCL's GPUDirect RDMA decision per GPU, predicted from the topology and
// host facts, following NCCL's source release by release (docs/nccl-model.md
// lists every rule with its versions and source). Per GPU: which NIC
// carries its sends and which its receives (directly, or through an NVLink
// peer: PXN), the path type, and whether each direction uses GDR, with the
// rules that decided. The pieces live in their own files: the NICs NCCL
// enumerates (nccl_nets.h), the NIC side (peer_memory.h), the level
// (gdr_level.h), NIC choice and PXN (net_choice.h). Pure: no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/nccl_nets.h"
#include "nccl/nccl_params.h"
#include "nccl/nccl_version.h"
#include "nccl/peer_memory.h"
#include "nccl/tri.h"
#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck {

struct GpuFacts {
  int sm = 0;  // compute capability major*10+minor; 0 = unknown
  // cudaDevAttrGPUDirectRDMASupported as far as the model tells: GeForce
  // parts report 0 (src/plugin/net.cc:ncclGpuGdrSupport@v2.30.7-1).
  Tri gdr_capable = Tri::Yes;
  std::string model;  // for rules: "GeForce RTX 4090"
  // Attached to its CPU by NVLink-C2C (Grace Hopper / Blackwell): NCCL
  // reads this from NVML and labels the NIC path P2C (2.27+).
  Tri c2c = Tri::No;
  // NVLink to another GPU: Yes with the peers' endpoint ids, No, or Unknown
  // with what would tell.
  Tri nvlink = Tri::Unknown;
  std::vector<std::string> nvlink_peers;
  std::string nvlink_evidence;
};

// An external net plugin that replaces NCCL's own IB transport.
struct NetPluginFacts {
  std::string plugin;  // "aws-ofi-nccl", "nccl-rdma-sharp-plugins", "unknown"
  std::string path;    // the library NCCL would load
};

// What kept GDR off (or unknown) for a GPU, for choosing the fix.
enum class GdrCause {
  Transport,      // NCCL_IB_DISABLE / NCCL_NET / a net plugin: not the IB transport
  NoNic,          // no RDMA NIC available to NCCL
  PeerMemory,     // NIC side: no peer-memory module and no DMA-BUF path
  OldNccl,        // NIC side: nvidia_peermem loaded, but this NCCL only reads memory_peers (< 2.23)
  GpuSide,        // GPU side: not GDR-capable or unknown
  Distance,       // the GPU→NIC path is farther than the level allows
  LevelSetting,   // NCCL_NET_GDR_LEVEL set (e.g. LOC) decided it
  ReadSetting,    // NCCL_NET_GDR_READ=0
  ReadRule,       // send side needs an NVLink peer (pre-Ampere, or NCCL <= 2.18)
  NvlinkUnknown,  // whether the GPU has NVLink decides, and it is not known
  PathUnknown,    // a PCIe path that could change the NIC choice is not proven by the files read
};

struct GdrPrediction {
  std::string gpu;  // GPU endpoint id
  // NIC endpoint ids NCCL would use for this GPU: the equally good ("local")
  // NICs, channel 0's NIC first. Empty when NCCL would not use IB at all.
  std::vector<std::string> nics;
  std::string net_name;            // channel 0's NCCL device name ("mlx5_0")
  std::string send_nic, recv_nic;  // endpoint ids; differ from nics[0] only through PXN
  std::string pxn_peer;            // GPU whose NIC carries this GPU's sends (PXN); "" when direct
  // The GPU's closest NIC when NCCL left it out: "mlx5_0 port 1 DOWN: ...".
  std::string closest_left_out;
  NcclPath path = NcclPath::Unknown;  // GPU→first NIC, NCCL's view (PXN, P2C on Grace C2C, 2.27+)
  Tri send = Tri::Unknown;            // NCCL lets the NIC read GPU memory (read=1)
  Tri recv = Tri::Unknown;            // NCCL lets the NIC write GPU memory (read=0)
  std::string level;                  // effective NCCL_NET_GDR_LEVEL name, e.g. "PXB" ("P2C" by default from 2.29)
  std::string through;                // NIC side: "peer memory", "DMA-BUF", ...
  std::string decided_by;             // the one rule that decided, for pairs[].nccl.rule
  std::vector<GdrCause> causes;       // why send or recv is not Yes; empty when both are
  std::string unknown_path;           // GdrCause::PathUnknown: why that path is unknown
  // NCCL selects GDR but the host makes registration fail (no fallback).
  std::vector<std::string> fail_reasons;
  std::vector<std::string> rules;  // each rule that decided, in words
};

struct GdrPredictInput {
  const Topology* nccl_view = nullptr;   // from nccl_view(); GPUs and NICs as endpoints
  std::map<std::string, GpuFacts> gpus;  // by endpoint id
  GdrHostFacts host;
  // RDMA ports as the host shows them; nullopt when the source shows none
  // (every RDMA NIC of the view is then assumed an ACTIVE port).
  std::optional<std::vector<NicPortFacts>> ports;
  std::optional<NetPluginFacts> net_plugin;
  NcclSettings settings;  // as read; settings_seen_by() is applied inside
  NcclVersion version = NcclVersion::newest();
};

std::vector<GdrPrediction> predict_gdr(const GdrPredictInput& input);

}  // namespace gdrcheck

// The NIC side of GPUDirect RDMA: can NCCL's IB transport register GPU
// memory with the NIC? Through a peer-memory client (the files NCCL tests
// with access(), per release: src/transport/net_ib.cc:ncclIbGdrSupport up
// to 2.22, src/transport/net_ib/gdr.cc:ncclIbGdrSupport@v2.23.4-1 on), or
// through DMA-BUF (2.13+: src/transport/net_ib.cc:ncclIbDmaBufSupport,
// src/init.cc:dmaBufSupported). Either one puts NCCL_PTR_CUDA or
// NCCL_PTR_DMABUF in the device's properties, which is what NCCL's
// GDR check reads (ncclIbGetProperties). Pure: no I/O.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/nccl_params.h"
#include "nccl/nccl_version.h"
#include "nccl/tri.h"

namespace gdrcheck {

// The files NCCL tests for a peer-memory client, and the legacy module's.
inline constexpr const char* kPeermemNvMem = "/sys/kernel/mm/memory_peers/nv_mem/version";
inline constexpr const char* kPeermemNvMemNc = "/sys/kernel/mm/memory_peers/nv_mem_nc/version";
inline constexpr const char* kPeermemNvidiaPeermem = "/sys/kernel/mm/memory_peers/nvidia-peermem/version";
inline constexpr const char* kPeermemModule = "/sys/module/nvidia_peermem/version";
inline constexpr const char* kPeermemLegacyModule = "/sys/module/nv_peer_mem/version";

// What the host offers, read from files by the caller.
struct GdrHostFacts {
  // Peer-memory files NCCL tests with access(): path → present? (absent key = unknown)
  //   /sys/kernel/mm/memory_peers/nv_mem/version
  //   /sys/kernel/mm/memory_peers/nv_mem_nc/version
  //   /sys/kernel/mm/memory_peers/nvidia-peermem/version
  //   /sys/module/nvidia_peermem/version
  std::map<std::string, bool> peermem_files;
  // /sys/kernel/mm/memory_peers exists. Current MLNX_OFED / DOCA stacks on
  // 6.x kernels no longer create it, although nvidia_peermem works there.
  Tri memory_peers_dir = Tri::Unknown;
  // DMA-BUF preconditions readable from files: open kernel module, kernel
  // >= 5.12, driver new enough, GPU Turing or newer, rdma-core with
  // ibv_reg_dmabuf_mr. Unknown when any is.
  Tri dmabuf_possible = Tri::Unknown;
  std::string dmabuf_reason;  // why (not) possible, for the rule text
  // libibverbs has ibv_reg_dmabuf_mr (rdma-core v34+), which NCCL looks up
  // at run time; Unknown when the library was not found.
  Tri ibv_reg_dmabuf_mr = Tri::Unknown;
  std::string rdma_core;  // "rdma-core v50 (/usr/lib/.../libibverbs.so.1.14.50.0)"
  // A host known only from a topology file (node --topo) has no files to
  // test: peer memory is stated instead (checks/host_assumptions.h). Yes or
  // No decides the NIC side; Unknown = decided from the files above.
  Tri stated_peer_memory = Tri::Unknown;
  std::string stated_by;  // "--assume peermem=ok", or why it is assumed
  bool assumed = false;   // nobody stated it: a default, weaker than what the file records
};

struct NicSideGdr {
  Tri selected = Tri::Unknown;  // NCCL's decision: GPU memory can be registered
  // How: "peer memory", "DMA-BUF", "peer memory or DMA-BUF"; empty when none.
  std::string through;
  // NCCL would use GDR if the release were newer: nvidia_peermem is loaded
  // but only 2.23+ looks at /sys/module/nvidia_peermem/version.
  bool newer_nccl_would = false;
  // Non-empty when NCCL selects GDR but registering GPU memory will fail;
  // NCCL does not fall back to staging, the communicator fails to start
  // (src/transport/net.cc:sendProxyConnect@v2.30.7-1).
  std::string fails;
  std::vector<std::string> rules;
  // Decided by a default for a topology file (GdrHostFacts::assumed), not
  // by files or a statement: what the file records for a NIC (NCCL XML
  // gdr="0") weighs more.
  bool assumed = false;
};

// The peer-memory files a release tests (2.9.7 was never released, so
// "< 2.9.8" is exact).
std::vector<std::string> peer_memory_files_checked(const NcclVersion& v);

NicSideGdr nic_side_gdr(const GdrHostFacts& host, const NcclSettings& settings, const NcclVersion& version);

}  // namespace gdrcheck

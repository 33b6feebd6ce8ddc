#include "nccl/peer_memory.h"

#include <algorithm>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

constexpr const char* kNvMem = kPeermemNvMem;
constexpr const char* kNvMemNc = kPeermemNvMemNc;
constexpr const char* kNvidiaPeermem = kPeermemNvidiaPeermem;
constexpr const char* kModNvidiaPeermem = kPeermemModule;
constexpr const char* kModNvPeerMem = kPeermemLegacyModule;

struct FileState {
  std::vector<std::string> present, unread;
  Tri any() const { return !present.empty() ? Tri::Yes : unread.empty() ? Tri::No : Tri::Unknown; }
};

FileState file_state(const GdrHostFacts& host, const std::vector<std::string>& files) {
  FileState s;
  for (const auto& f : files) {
    auto it = host.peermem_files.find(f);
    if (it == host.peermem_files.end())
      s.unread.push_back(f);
    else if (it->second)
      s.present.push_back(f);
  }
  return s;
}

bool present(const GdrHostFacts& host, const char* path) {
  auto it = host.peermem_files.find(path);
  return it != host.peermem_files.end() && it->second;
}

// DMA-BUF as NCCL decides it: from 2.13.4, unless NCCL_DMABUF_ENABLE=0,
// and (2.14.3+) only when libibverbs has ibv_reg_dmabuf_mr
// (src/misc/ibvwrap.cc:wrap_direct_ibv_reg_dmabuf_mr@v2.14.3-1 reports
// EOPNOTSUPP without it).
Tri dmabuf_state(const GdrHostFacts& host, const NcclSettings& st, const NcclVersion& v, std::string& why) {
  if (v < NcclVersion{2, 13, 4}) {
    why = "NCCL " + v.str() + " predates DMA-BUF support (2.13.4)";
    return Tri::No;
  }
  if (nccl_int_param(st, "NCCL_DMABUF_ENABLE", 1) == 0) {
    why = "DMA-BUF disabled by " + st.find("NCCL_DMABUF_ENABLE")->cite();
    return Tri::No;
  }
  if (host.ibv_reg_dmabuf_mr == Tri::No && v >= NcclVersion{2, 14, 3}) {
    why = "DMA-BUF not possible: " + host.rdma_core + " has no ibv_reg_dmabuf_mr (rdma-core v34+)";
    return Tri::No;
  }
  static const char* kWhat[] = {"DMA-BUF not possible", "DMA-BUF possible", "DMA-BUF possibility unknown"};
  const std::string& r = host.dmabuf_reason;
  why = std::string(kWhat[static_cast<int>(host.dmabuf_possible)]) + (r.empty() ? "" : ": " + r);
  return host.dmabuf_possible;
}

// Registration is visible in files only where the stack creates
// /sys/kernel/mm/memory_peers; say so when NCCL decided from the module file.
void registration_note(const GdrHostFacts& host, const FileState& files, std::vector<std::string>& rules) {
  bool only_module = files.present.size() == 1 && files.present.front() == kModNvidiaPeermem;
  if (!only_module || host.memory_peers_dir == Tri::Yes) return;
  rules.push_back(
      "nvidia_peermem registered itself when it loaded, but this RDMA stack does not show the registration in "
      "/sys/kernel/mm/memory_peers (current MLNX_OFED/DOCA on 6.x kernels); `gdrcheck bench rdma` proves it works");
}

// Peer-memory files the host has that this release does not look at.
void unchecked_files(const GdrHostFacts& host, const std::vector<std::string>& files, const NcclVersion& v,
                     std::vector<std::string>& rules) {
  for (const auto& [path, there] : host.peermem_files) {
    if (!there || std::find(files.begin(), files.end(), path) != files.end()) continue;
    rules.push_back(
        path + " is present but " +
        (path == kModNvPeerMem ? std::string("no NCCL release checks it") : "NCCL " + v.str() + " does not check it"));
  }
}

}  // namespace

std::vector<std::string> peer_memory_files_checked(const NcclVersion& v) {
  if (v < NcclVersion{2, 9, 8}) return {kNvMem};
  if (v < NcclVersion{2, 22, 0}) return {kNvMem, kNvidiaPeermem};
  if (v < NcclVersion{2, 23, 0}) return {kNvMem, kNvMemNc};
  return {kNvMem, kNvMemNc, kModNvidiaPeermem};
}

NicSideGdr nic_side_gdr(const GdrHostFacts& host, const NcclSettings& settings, const NcclVersion& version) {
  NicSideGdr s;
  if (host.stated_peer_memory != Tri::Unknown) {
    s.selected = host.stated_peer_memory;
    s.assumed = host.assumed;
    s.through = s.selected == Tri::Yes ? "peer memory" : "";
    s.rules.push_back(std::string("NIC side GDR: peer memory ") + (s.selected == Tri::Yes ? "present" : "missing") +
                      " by " + host.stated_by);
    return s;
  }
  std::vector<std::string> files = peer_memory_files_checked(version);
  FileState module = file_state(host, files);
  std::string dma_why;
  Tri dma = dmabuf_state(host, settings, version, dma_why);
  std::string v = version.str();
  if (module.any() == Tri::Yes) {
    s.selected = Tri::Yes;
    s.through = dma == Tri::Yes ? "peer memory or DMA-BUF" : "peer memory";
    s.rules.push_back("NIC side GDR: " + join(module.present) + " present (NCCL " + v + " checks " + join(files) + ")" +
                      (dma == Tri::Yes ? "; " + dma_why + " too (NCCL registers through DMA-BUF when both work)" : ""));
    registration_note(host, module, s.rules);
  } else if (dma == Tri::Yes) {
    s.selected = Tri::Yes;
    s.through = "DMA-BUF";
    s.rules.push_back("NIC side GDR through DMA-BUF: " + dma_why);
    // 2.13.4 reads a missing ibv_reg_dmabuf_mr as support (a stale errno in
    // its probe), then cannot register (ibvwrap.cc@v2.13.4-1).
    if (host.ibv_reg_dmabuf_mr == Tri::No && version < NcclVersion{2, 14, 3})
      s.fails = "NCCL " + v + " takes DMA-BUF as usable although " + host.rdma_core +
                " has no ibv_reg_dmabuf_mr: registering GPU memory fails and the communicator does not start";
  } else if (module.any() == Tri::No && dma == Tri::No) {
    s.selected = Tri::No;
    s.rules.push_back("NIC side has no GDR: none of " + join(files) + " present (the files NCCL " + v +
                      " checks) and " + dma_why);
  } else {
    s.selected = Tri::Unknown;
    std::string mod =
        module.any() == Tri::No ? "none of " + join(files) + " present" : "could not read " + join(module.unread);
    s.rules.push_back("NIC side GDR unknown: " + mod + "; " + dma_why);
  }
  s.newer_nccl_would = s.selected != Tri::Yes && present(host, kModNvidiaPeermem) && version < NcclVersion{2, 23, 0};
  if (s.newer_nccl_would)
    s.rules.push_back("nvidia_peermem is loaded, but NCCL " + v +
                      " looks only for /sys/kernel/mm/memory_peers, which this RDMA stack does not create; NCCL "
                      "2.23+ also checks /sys/module/nvidia_peermem/version");
  unchecked_files(host, files, version, s.rules);
  return s;
}

}  // namespace gdrcheck

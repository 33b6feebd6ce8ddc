// The NIC side of GPUDirect RDMA per release: peer-memory files
// (ncclIbGdrSupport), DMA-BUF (2.13.4+), rdma-core's ibv_reg_dmabuf_mr,
// and today's stacks that no longer create /sys/kernel/mm/memory_peers.
#include "nccl/peer_memory.h"

#include <gtest/gtest.h>

#include "gdr_predict_fixtures.h"
#include "nccl_versions.h"

namespace gdrcheck {
namespace {

using predict_testing::kModNvidiaPeermem;
using predict_testing::kNvidiaPeermem;
using predict_testing::kNvMem;
using predict_testing::kNvMemNc;
using testing::nccl_version;

GdrHostFacts peermem_host(std::vector<std::string> present, Tri dmabuf = Tri::No) {
  GdrHostFacts h;
  for (const char* f : {kNvMem, kNvMemNc, kNvidiaPeermem, kModNvidiaPeermem}) h.peermem_files[f] = false;
  for (const auto& f : present) h.peermem_files[f] = true;
  h.memory_peers_dir = present.empty() || present == std::vector<std::string>{kModNvidiaPeermem} ? Tri::No : Tri::Yes;
  h.dmabuf_possible = dmabuf;
  h.dmabuf_reason = dmabuf == Tri::Yes ? "open kernel module 550.90.07, kernel 6.8" : "proprietary kernel module";
  return h;
}

bool says(const NicSideGdr& s, const std::string& part) {
  for (const auto& r : s.rules)
    if (r.find(part) != std::string::npos) return true;
  return false;
}

// ncclIbGdrSupport: @v2.9.6-1 nv_mem; @v2.9.8-1..@v2.21.5-1 + nvidia-peermem;
// @v2.22.3-1 nv_mem_nc replaces nvidia-peermem; @v2.23.4-1 + the module file.
TEST(PeerMemory, FilesCheckedPerRelease) {
  EXPECT_EQ(peer_memory_files_checked(nccl_version("2.9.6")), (std::vector<std::string>{kNvMem}));
  EXPECT_EQ(peer_memory_files_checked(nccl_version("2.21.5")), (std::vector<std::string>{kNvMem, kNvidiaPeermem}));
  EXPECT_EQ(peer_memory_files_checked(nccl_version("2.22.3")), (std::vector<std::string>{kNvMem, kNvMemNc}));
  EXPECT_EQ(peer_memory_files_checked(nccl_version("2.23.4")),
            (std::vector<std::string>{kNvMem, kNvMemNc, kModNvidiaPeermem}));
}

TEST(PeerMemory, RegisteredClientIsGdr) {
  NicSideGdr s = nic_side_gdr(peermem_host({kNvMem, kNvMemNc, kModNvidiaPeermem}), {}, nccl_version("2.21.5"));
  EXPECT_EQ(s.selected, Tri::Yes);
  EXPECT_EQ(s.through, "peer memory");
  EXPECT_FALSE(s.newer_nccl_would);
}

// A 6.8 kernel with DOCA/MLNX_OFED 24.10: nvidia_peermem loaded, no
// /sys/kernel/mm/memory_peers (NVIDIA/nccl#1939, #1537).
TEST(PeerMemory, NewStackIsGdrFrom2234WithANoteAboutRegistration) {
  NicSideGdr s = nic_side_gdr(peermem_host({kModNvidiaPeermem}), {}, nccl_version("2.23.4"));
  EXPECT_EQ(s.selected, Tri::Yes);
  EXPECT_TRUE(says(s, "does not show the registration")) << s.rules.front();
  EXPECT_TRUE(says(s, "gdrcheck bench rdma"));
}

TEST(PeerMemory, NewStackHasNoGdrUpTo2223AndSaysANewerNcclWould) {
  NicSideGdr s = nic_side_gdr(peermem_host({kModNvidiaPeermem}), {}, nccl_version("2.22.3"));
  EXPECT_EQ(s.selected, Tri::No);
  EXPECT_TRUE(s.newer_nccl_would);
  EXPECT_TRUE(says(s, "2.23+ also checks /sys/module/nvidia_peermem/version"));
}

TEST(PeerMemory, NewStackOnOldNcclStillGetsDmaBuf) {
  NicSideGdr s = nic_side_gdr(peermem_host({kModNvidiaPeermem}, Tri::Yes), {}, nccl_version("2.21.5"));
  EXPECT_EQ(s.selected, Tri::Yes);
  EXPECT_EQ(s.through, "DMA-BUF");
}

TEST(PeerMemory, BothPathsAreNamed) {
  NicSideGdr s = nic_side_gdr(peermem_host({kNvMem}, Tri::Yes), {}, nccl_version("2.30.7"));
  EXPECT_EQ(s.through, "peer memory or DMA-BUF");
  EXPECT_TRUE(says(s, "NCCL registers through DMA-BUF when both work"));
}

// DMA-BUF first in v2.13.4-1 (init.cc:dmaBufSupported).
TEST(PeerMemory, DmaBufArrivedIn2134) {
  EXPECT_EQ(nic_side_gdr(peermem_host({}, Tri::Yes), {}, nccl_version("2.12.12")).selected, Tri::No);
  EXPECT_EQ(nic_side_gdr(peermem_host({}, Tri::Yes), {}, nccl_version("2.13.4")).selected, Tri::Yes);
}

TEST(PeerMemory, DmaBufOffBySetting) {
  NcclSettings st = merge_nccl_settings({{{"NCCL_DMABUF_ENABLE", "0", "/etc/nccl.conf:1"}}});
  NicSideGdr s = nic_side_gdr(peermem_host({}, Tri::Yes), st, nccl_version("2.30.7"));
  EXPECT_EQ(s.selected, Tri::No);
  EXPECT_TRUE(says(s, "NCCL_DMABUF_ENABLE=0 (from /etc/nccl.conf:1)"));
}

// ibvwrap.cc@v2.14.3-1: a libibverbs without ibv_reg_dmabuf_mr reads as
// EOPNOTSUPP; @v2.13.4-1 misread it as support and then failed to register.
TEST(PeerMemory, OldRdmaCoreHasNoDmaBufFrom2143AndFailsOn2134) {
  GdrHostFacts h = peermem_host({}, Tri::Yes);
  h.ibv_reg_dmabuf_mr = Tri::No;
  h.rdma_core = "rdma-core v28 (/usr/lib64/libibverbs.so.1.8.28.0)";
  NicSideGdr new_nccl = nic_side_gdr(h, {}, nccl_version("2.18.6"));
  EXPECT_EQ(new_nccl.selected, Tri::No);
  EXPECT_TRUE(says(new_nccl, "rdma-core v28"));
  NicSideGdr old_nccl = nic_side_gdr(h, {}, nccl_version("2.13.4"));
  EXPECT_EQ(old_nccl.selected, Tri::Yes);
  EXPECT_NE(old_nccl.fails.find("registering GPU memory fails"), std::string::npos);
}

TEST(PeerMemory, UnreadableFilesAreUnknownNeverNo) {
  GdrHostFacts h;  // nothing read
  h.dmabuf_possible = Tri::No;
  NicSideGdr s = nic_side_gdr(h, {}, nccl_version("2.30.7"));
  EXPECT_EQ(s.selected, Tri::Unknown);
  EXPECT_TRUE(says(s, "could not read"));
}

TEST(PeerMemory, LegacyNvPeerMemModuleFileIsNeverChecked) {
  GdrHostFacts h = peermem_host({});
  h.peermem_files["/sys/module/nv_peer_mem/version"] = true;
  NicSideGdr s = nic_side_gdr(h, {}, nccl_version("2.30.7"));
  EXPECT_EQ(s.selected, Tri::No);
  EXPECT_TRUE(says(s, "no NCCL release checks it"));
}

}  // namespace
}  // namespace gdrcheck

// PXN per release: when NCCL sends a GPU's traffic through an NVLink peer
// whose NIC is closer (src/graph/paths.cc:ncclTopoComputePaths), and how it
// judges GDR on such a path (ncclTopoCheckGdr: the peer's distance).
#include <gtest/gtest.h>

#include "gdr_predict_fixtures.h"

namespace gdrcheck {
namespace {

using namespace predict_testing;

// CPU0 ─ {switch ─ GPU0, switch ─ {GPU1, NIC0}}; GPU0 and GPU1 NVLinked.
// GPU0's own path to the only NIC is PHB; GPU1's is PIX.
Topo peer_owns_the_nic() {
  Topo b;
  int c = b.cpu(0);
  b.gpu(b.sw(c));
  int s1 = b.sw(c);
  b.gpu(s1);
  b.nic(s1, "mlx5_0");
  b.nvlink("GPU0", "GPU1");
  return b;
}

TEST(Pxn, PeerWithTheNicCarriesTheSendsWithGdr) {
  Topo b = peer_owns_the_nic();
  GdrPrediction p = predict(input(b.t, 90, nccl_version("2.30.7")));
  EXPECT_EQ(p.path, NcclPath::PXN) << dump(p);
  EXPECT_EQ(p.pxn_peer, "GPU1");
  EXPECT_EQ(p.send_nic, "NIC0");
  EXPECT_EQ(p.recv_nic, "NIC0");      // no PXN on receive: same device, no proxy
  expect_gdr(p, Tri::Yes, Tri::Yes);  // the peer's PIX distance is judged
}

TEST(Pxn, NoPxnBefore212) {
  Topo b = peer_owns_the_nic();
  GdrPrediction p = predict(input(b.t, 90, nccl_version("2.11.4")));
  EXPECT_TRUE(p.pxn_peer.empty());
  EXPECT_EQ(p.path, NcclPath::PHB) << dump(p);
  EXPECT_EQ(p.recv, Tri::No);
}

TEST(Pxn, FirstReleaseWithPxnAlreadyUsesIt) {
  Topo b = peer_owns_the_nic();
  GdrPrediction p = predict(input(b.t, 90, nccl_version("2.12.12")));
  EXPECT_EQ(p.pxn_peer, "GPU1") << dump(p);
  EXPECT_EQ(p.recv, Tri::Yes);
}

TEST(Pxn, DisabledBySettingOrWithoutNvlinkPaths) {
  Topo b = peer_owns_the_nic();
  for (auto setting : std::vector<std::pair<std::string, std::string>>{
           {"NCCL_PXN_DISABLE", "1"}, {"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "LOC"}}) {
    GdrPredictInput in = input(b.t);
    in.settings = env({setting});
    GdrPrediction p = predict(in);
    EXPECT_TRUE(p.pxn_peer.empty()) << setting.first << "\n" << dump(p);
    EXPECT_EQ(p.recv, Tri::No) << setting.first;
  }
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_PXN_DISABLE", "0"}});
  EXPECT_EQ(predict(in).pxn_peer, "GPU1");
}

TEST(Pxn, UnknownNvlinkLeavesTheChoiceUndecided) {
  Topo b = peer_owns_the_nic();
  b.t.endpoints[0].nvlinks.clear();  // the source shows no NVLink for GPU0
  b.t.endpoints[1].nvlinks.clear();
  GdrPredictInput in = input(b.t);
  in.gpus["GPU0"].nvlink = Tri::Unknown;
  in.gpus["GPU0"].nvlink_evidence = "H100 PCIe can take an NVLink bridge; nothing shows whether one is fitted";
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.recv, Tri::Unknown) << dump(p);
  EXPECT_RULE(p, "nvidia-smi nvlink --status");
  EXPECT_RULE(p, "NVLink bridge");
  // Known peers from nvidia-smi decide it.
  in.gpus["GPU0"].nvlink = Tri::Yes;
  in.gpus["GPU0"].nvlink_peers = {"GPU1"};
  EXPECT_EQ(predict(in).pxn_peer, "GPU1");
}

// CPU0 ─ switch ─ {switch ─ {GPU0, NIC0}, switch ─ GPU1}: GPU0 is PIX to its NIC.
// With GPU0 at x8 and GPU1 at x16, the peer has more bandwidth to the NIC.
Topo slower_own_link() {
  Topo b;
  int top = b.sw(b.cpu(0));
  int s0 = b.sw(top);
  b.gpu(s0);
  b.nic(s0, "mlx5_0");
  b.gpu(b.sw(top));
  b.nvlink("GPU0", "GPU1");
  b.link("GPU0", 16, 8);
  b.link("GPU1", 16, 16);
  b.link("NIC0", 16, 16);
  return b;
}

GdrPredictInput with_rate(const Topology& t, const char* version) {
  GdrPredictInput in = input(t, 90, nccl_version(version));
  in.ports = std::vector<NicPortFacts>{{"NIC0", "mlx5_0", 1, Tri::Yes, "ACTIVE", "InfiniBand", 200}};
  return in;
}

// 2.14.3 added "or the peer has more bandwidth" (ncclTopoComputePaths@v2.14.3-1);
// 2.18.1 took the NIC's local GPU as the only candidate peer, which is GPU0 here.
TEST(Pxn, PeerBandwidthAloneFrom2143UntilTheLocalGpuRule) {
  Topo b = slower_own_link();
  // GPU1 reaches NIC0 at PXB: it is GPU0 whose link is the bottleneck.
  EXPECT_TRUE(predict(with_rate(b.t, "2.13.4")).pxn_peer.empty());
  GdrPrediction p = predict(with_rate(b.t, "2.14.3"), "GPU0");
  EXPECT_EQ(p.pxn_peer, "GPU1") << dump(p);
  EXPECT_TRUE(predict(with_rate(b.t, "2.18.1"), "GPU0").pxn_peer.empty());
}

// 2.30.3: the peer must pass the send-side GDR check itself.
TEST(Pxn, PeerMustReadGpuMemoryFrom2303) {
  Topo b = peer_owns_the_nic();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.29.7"));
  in.settings = env({{"NCCL_NET_GDR_READ", "0"}});
  EXPECT_EQ(predict(in).pxn_peer, "GPU1");
  in.version = nccl_version("2.30.3");
  EXPECT_TRUE(predict(in).pxn_peer.empty()) << dump(predict(in));
}

// GDR disabled for a GPU (here by the level): NCCL routes its NIC traffic
// through the CPU and every NIC on that CPU ties (ncclTopoComputePaths).
// (From 2.30.3 the peer's own read check already refuses PXN here.)
TEST(Pxn, GdrOffRoutesThroughTheCpuAndOverwritesPxn) {
  Topo b = peer_owns_the_nic();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.29.7"));
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "LOC"}});
  GdrPrediction p = predict(in);
  EXPECT_TRUE(p.pxn_peer.empty()) << dump(p);
  EXPECT_EQ(p.path, NcclPath::PHB);
  EXPECT_RULE(p, "routes its NIC traffic through the CPU");
}

}  // namespace
}  // namespace gdrcheck

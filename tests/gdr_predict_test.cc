// predict_gdr on small hand-built NCCL-style (Switches) trees: one case per
// rule of nccl-spec.md §2 and §3, plus NCCL_NET_GDR_LEVEL parsing and
// NCCL_IB_HCA matching.
#include "nccl/gdr_predict.h"
#include "nccl/gdr_level.h"
#include "nccl/ib_hca_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "topology/nccl_view.h"
#include "topology/nccl_xml_source.h"

#include "gdr_predict_fixtures.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using namespace predict_testing;

// ---- distance and level ----------------------------------------------------------------

TEST(GdrPredictDistance, PixPairUsesGdrBothWays) {
  Topo b = pix();
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.path, NcclPath::PIX);
  EXPECT_EQ(p.nics, std::vector<std::string>{"NIC0"});
  EXPECT_EQ(p.level, "P2C");  // 2.29+ default while NCCL_NET_GDR_C2C is on
  EXPECT_RULE(p, "distance PIX <= level P2C (default; acts as PXB for PCIe-attached GPUs): close enough for GDR");
  EXPECT_RULE(p, "NIC side GDR: /sys/kernel/mm/memory_peers/nv_mem/version present (NCCL 2.30.7 checks");
  EXPECT_RULE(p, "send side: sm 90 reads GPU memory by default (NCCL >= 2.19)");
}

TEST(GdrPredictDistance, PxbPairUsesGdrWithPxbDefaultBefore229) {
  Topo b = pxb();
  GdrPrediction p = predict(input(b.t, 90, nccl_version("2.21.5")));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.path, NcclPath::PXB);
  EXPECT_EQ(p.level, "PXB");
  EXPECT_RULE(p, "distance PXB <= level PXB (default): close enough for GDR");
}

TEST(GdrPredictDistance, PhbStagesThroughHostMemory) {
  Topo b = phb();
  GdrPrediction p = predict(input(b.t, 90, nccl_version("2.21.5")));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.path, NcclPath::PHB);
  EXPECT_RULE(p, "distance PHB > level PXB (default): NCCL stages through host memory");
  EXPECT_NO_RULE(p, "send side");  // the read rule cannot matter any more

  GdrPrediction newest = predict(input(b.t));
  expect_gdr(newest, Tri::No, Tri::No);
  EXPECT_RULE(newest, "distance PHB > level P2C (default; acts as PXB for PCIe-attached GPUs)");
}

TEST(GdrPredictDistance, SysIsDisabledByDefault) {
  Topo b = sys();
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.path, NcclPath::SYS);
  EXPECT_RULE(p, "distance SYS > level P2C (default");
}

TEST(GdrPredictLevel, SysLevelFromConfEnablesSys) {
  Topo b = sys();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "SYS"}}, "/etc/nccl.conf:2");
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.level, "SYS");
  EXPECT_RULE(p, "distance SYS <= level SYS, set by NCCL_NET_GDR_LEVEL=SYS (from /etc/nccl.conf:2): close enough");
}

TEST(GdrPredictLevel, LocDisablesEvenPix) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "LOC"}}, "/etc/nccl.conf:2");
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.level, "LOC");
  EXPECT_RULE(p, "NCCL_NET_GDR_LEVEL=LOC (from /etc/nccl.conf:2) disables GDR everywhere");
}

TEST(GdrPredictLevel, LegacyTwoMeansPxb) {
  Topo ok = pxb(), far = phb();
  GdrPredictInput in = input(ok.t);
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "2"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.level, "PXB");
  EXPECT_RULE(p, "distance PXB <= level PXB, set by NCCL_NET_GDR_LEVEL=2 (from environment)");
  in.nccl_view = &far.t;
  GdrPrediction q = predict(in);
  expect_gdr(q, Tri::No, Tri::No);
  EXPECT_RULE(q, "distance PHB > level PXB, set by NCCL_NET_GDR_LEVEL=2");
}

TEST(GdrPredictLevel, UnrecognisedValueKeepsTheDefault) {
  Topo b = phb();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.21.5"));
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "P2C"}});  // exists only from 2.27
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.level, "PXB");
  EXPECT_RULE(p, "NCCL_NET_GDR_LEVEL=P2C (from environment) is not a level NCCL 2.21.5 knows: the default is kept");
  EXPECT_RULE(p, "distance PHB > level PXB (default)");
}

TEST(GdrPredictLevel, TrailingSpaceFromConfIsNotALevel) {
  Topo b = sys();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "SYS "}}, "/etc/nccl.conf:1");
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "is not a level NCCL 2.30.7 knows");
}

// ---- send side (read) --------------------------------------------------------------------

TEST(GdrPredictRead, GdrReadZeroKeepsReceiveOnly) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_READ", "0"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::Yes);
  EXPECT_RULE(p, "NCCL_NET_GDR_READ=0 (from environment): send side (NIC reads GPU memory) disabled");
}

TEST(GdrPredictRead, VoltaWithoutNvlinkReceivesOnly) {
  Topo b = two_pix_pairs();
  GdrPrediction p = predict(input(b.t, 70, nccl_version("2.19.3")));
  expect_gdr(p, Tri::No, Tri::Yes);
  EXPECT_RULE(p,
              "send side disabled: NCCL 2.19.3 on sm 70 reads GPU memory by default only with an NVLink to "
              "another GPU (NCCL_NET_GDR_READ=1 forces it); GPU0 has none");
}

TEST(GdrPredictRead, VoltaWithNvlinkSendsToo) {
  Topo b = two_pix_pairs();
  b.nvlink("GPU0", "GPU1");
  GdrPrediction p = predict(input(b.t, 70, nccl_version("2.19.3")));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_RULE(p, "send side allowed: NVLink to GPU1");
}

TEST(GdrPredictRead, GdrReadOneForcesSendWithoutNvlink) {
  Topo b = two_pix_pairs();
  GdrPredictInput in = input(b.t, 70, nccl_version("2.19.3"));
  in.settings = env({{"NCCL_NET_GDR_READ", "1"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_RULE(p, "NCCL_NET_GDR_READ=1 (from environment): send side allowed without the NVLink condition");
}

TEST(GdrPredictRead, SingleVoltaSends) {
  Topo b = pix();
  GdrPrediction p = predict(input(b.t, 70, nccl_version("2.19.3")));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_RULE(p, "send side allowed: the only GPU");
}

TEST(GdrPredictRead, AmpereNeedsNvlinkUntil218) {
  Topo b = two_pix_pairs();
  GdrPrediction old = predict(input(b.t, 80, nccl_version("2.18.6")));
  expect_gdr(old, Tri::No, Tri::Yes);
  EXPECT_RULE(old, "send side disabled: NCCL 2.18.6 reads GPU memory by default only with an NVLink");
  GdrPrediction now = predict(input(b.t, 80, nccl_version("2.19.3")));
  expect_gdr(now, Tri::Yes, Tri::Yes);
  EXPECT_RULE(now, "send side: sm 80 reads GPU memory by default (NCCL >= 2.19)");
}

TEST(GdrPredictRead, UnknownComputeCapabilityWithoutNvlink) {
  Topo b = two_pix_pairs();
  GdrPredictInput in = input(b.t, 0);
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Unknown, Tri::Yes);
  EXPECT_RULE(p, "compute capability of GPU0 unknown: assumed GDR-capable");
  EXPECT_RULE(p, "send side unknown: unknown compute capability; below sm 80 NCCL 2.30.7 reads");
}

TEST(GdrPredictRead, ComputeCapabilityFromXmlAttribute) {
  Topo b = two_pix_pairs();
  b.ep("GPU0").attributes["sm"] = "70";
  GdrPredictInput in = input(b.t);
  for (auto& [id, f] : in.gpus) f.sm = 0;  // only the XML attribute tells
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::Yes);
  EXPECT_RULE(p, "on sm 70");
}

// ---- NIC side: peer memory and DMA-BUF ------------------------------------------------------

TEST(GdrPredictPeermem, NoModuleAndNoDmabufMeansNoGdr) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = host_with({});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p,
              "NIC side has no GDR: none of /sys/kernel/mm/memory_peers/nv_mem/version, "
              "/sys/kernel/mm/memory_peers/nv_mem_nc/version, /sys/module/nvidia_peermem/version present "
              "(the files NCCL 2.30.7 checks) and DMA-BUF not possible: proprietary NVIDIA kernel module");
}

TEST(GdrPredictPeermem, NvPeerMemModuleFileIsNeverChecked) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = host_with({kModNvPeerMem});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "/sys/module/nv_peer_mem/version is present but no NCCL release checks it");
}

TEST(GdrPredictPeermem, NvMemPresentEnablesGdr) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = host_with({kNvMem});
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);
}

TEST(GdrPredictPeermem, Nccl222ChecksNvMemNcButNotTheModule) {
  Topo b = pix();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.22.3"));
  in.host = host_with({kModNvidiaPeermem});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p,
              "none of /sys/kernel/mm/memory_peers/nv_mem/version, /sys/kernel/mm/memory_peers/nv_mem_nc/version "
              "present (the files NCCL 2.22.3 checks)");
  EXPECT_RULE(p, "/sys/module/nvidia_peermem/version is present but NCCL 2.22.3 does not check it");

  in.host = host_with({kNvMemNc});
  GdrPrediction q = predict(in);
  expect_gdr(q, Tri::Yes, Tri::Yes);
  EXPECT_RULE(q, "NIC side GDR: /sys/kernel/mm/memory_peers/nv_mem_nc/version present (NCCL 2.22.3 checks");
}

TEST(GdrPredictPeermem, Nccl223ChecksTheModuleFile) {
  Topo b = pix();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.23.4"));
  in.host = host_with({kModNvidiaPeermem});
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);
}

TEST(GdrPredictPeermem, Nccl221ChecksNvidiaPeermemClientNotNvMemNc) {
  Topo b = pix();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.21.5"));
  in.host = host_with({kNvidiaPeermem});
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);
  in.host = host_with({kNvMemNc});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "/sys/kernel/mm/memory_peers/nv_mem_nc/version is present but NCCL 2.21.5 does not check it");
}

TEST(GdrPredictPeermem, Nccl296ChecksOnlyNvMem) {
  Topo b = pix();
  GdrPredictInput in = input(b.t, 70, nccl_version("2.9.6"));
  in.host = host_with({kNvidiaPeermem});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "none of /sys/kernel/mm/memory_peers/nv_mem/version present (the files NCCL 2.9.6 checks)");
  EXPECT_RULE(p, "NCCL 2.9.6 predates DMA-BUF support (2.13.4)");
}

TEST(GdrPredictDmabuf, ArrivedIn213) {
  Topo b = pix();
  GdrPredictInput in = input(b.t, 90, nccl_version("2.12.12"));
  in.host = host_with({}, Tri::Yes, "open kernel module, kernel 6.8");
  GdrPrediction old = predict(in);
  expect_gdr(old, Tri::No, Tri::No);
  EXPECT_RULE(old, "NCCL 2.12.12 predates DMA-BUF support (2.13.4)");

  in.version = nccl_version("2.13.4");
  GdrPrediction now = predict(in);
  expect_gdr(now, Tri::Yes, Tri::Yes);
  EXPECT_RULE(now, "NIC side GDR through DMA-BUF: DMA-BUF possible: open kernel module, kernel 6.8");
}

TEST(GdrPredictDmabuf, DisabledBySetting) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = host_with({}, Tri::Yes, "open kernel module");
  in.settings = env({{"NCCL_DMABUF_ENABLE", "0"}}, "/etc/nccl.conf:4");
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "DMA-BUF disabled by NCCL_DMABUF_ENABLE=0 (from /etc/nccl.conf:4)");

  in.host = host_with({kNvMem}, Tri::Yes, "open kernel module");  // the module path stays
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);
}

TEST(GdrPredictDmabuf, UnreadableFilesAndUnknownDmabufAreUnknown) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = GdrHostFacts{};
  in.host.dmabuf_reason = "kernel release unreadable";
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  EXPECT_RULE(p, "NIC side GDR unknown: could not read /sys/kernel/mm/memory_peers/nv_mem/version");
  EXPECT_RULE(p, "DMA-BUF possibility unknown: kernel release unreadable");
}

TEST(GdrPredictDmabuf, NoModuleButUnknownDmabufIsUnknownNotNo) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.host = host_with({}, Tri::Unknown, "driver flavour unknown");
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  EXPECT_RULE(p, "NIC side GDR unknown: none of /sys/kernel/mm/memory_peers/nv_mem/version");
  EXPECT_RULE(p, "DMA-BUF possibility unknown: driver flavour unknown");
}

TEST(GdrPredictDmabuf, RecordedXmlVerdictFillsTheGap) {
  Topo b = pix();
  b.ep("NIC0").attributes["gdr"] = "1";
  GdrPredictInput in = input(b.t);
  in.host = GdrHostFacts{};
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_RULE(p, "NCCL topology XML records gdr=1 for mlx5_0");
}

TEST(GdrPredictGpu, RecordedGpuGdrZeroDisables) {
  Topo b = pix();
  b.ep("GPU0").attributes["gdr"] = "0";
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "NCCL topology XML records gdr=0 for GPU0");
}

TEST(GdrPredictGpu, PrePascalIsUnknown) {
  Topo b = pix();
  GdrPrediction p = predict(input(b.t, 52, nccl_version("2.12.12")));
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  EXPECT_RULE(p, "sm 52 predates Pascal");
}

// ---- transport and NCCL_IB_HCA ---------------------------------------------------------------

TEST(GdrPredictTransport, IbDisableMeansSockets) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_DISABLE", "1"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_TRUE(p.nics.empty());
  EXPECT_RULE(p, "NCCL_IB_DISABLE=1 (from environment): Socket transport, never GDR");
}

TEST(GdrPredictTransport, IbDisableTextReadsAsZero) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_DISABLE", "yes"}});  // strtoll reads 0: IB stays on
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);
}

TEST(GdrPredictTransport, NcclNetSelectsTheNetwork) {
  Topo b = pix();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET", "Socket"}});
  GdrPrediction socket = predict(in);
  expect_gdr(socket, Tri::No, Tri::No);
  EXPECT_RULE(socket, "NCCL_NET=Socket (from environment): Socket transport, never GDR");

  in.settings = env({{"NCCL_NET", "ib"}});
  expect_gdr(predict(in), Tri::Yes, Tri::Yes);

  in.settings = env({{"NCCL_NET", "IBext_v8"}});
  GdrPrediction plugin = predict(in);
  expect_gdr(plugin, Tri::Unknown, Tri::Unknown);
  EXPECT_RULE(plugin, "NCCL_NET=IBext_v8 (from environment) selects a network plugin");
}

// CPU0 ─ sw ─ {GPU0, mlx5_0}; CPU0 ─ sw ─ {GPU1, mlx5_1}; CPU0 ─ sw ─ mlx5_10
Topo hca_topology() {
  Topo b;
  int c = b.cpu(0);
  int s0 = b.sw(c), s1 = b.sw(c), s2 = b.sw(c);
  b.gpu(s0);
  b.gpu(s1);
  b.nic(s0, "mlx5_0");
  b.nic(s1, "mlx5_1");
  b.nic(s2, "mlx5_10");
  return b;
}

TEST(GdrPredictIbHca, PrefixMatchAlsoSelectsMlx5_10) {
  EXPECT_TRUE(ib_hca_selects("mlx5_1", "mlx5_1", 1));
  EXPECT_TRUE(ib_hca_selects("mlx5_1", "mlx5_10", 1));
  EXPECT_TRUE(ib_hca_selects("mlx5_1", "mlx5_17", 2));
  EXPECT_FALSE(ib_hca_selects("mlx5_1", "mlx5_0", 1));
  EXPECT_TRUE(ib_hca_selects("mlx5", "mlx5_3", 1));

  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "mlx5_1"}});
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.nics, (std::vector<std::string>{"NIC1", "NIC2"}));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p,
              "NCCL_IB_HCA=mlx5_1 (from environment) selects mlx5_1:1, mlx5_10:1 of mlx5_0:1, mlx5_1:1, "
              "mlx5_10:1 (prefix match: 'mlx5_1' also matches mlx5_10; a leading '=' matches whole names)");
  EXPECT_RULE(p, "2 NICs equally good: mlx5_1 (PHB), mlx5_10 (PHB)");
}

TEST(GdrPredictIbHca, EqualsMeansExactNames) {
  EXPECT_TRUE(ib_hca_selects("=mlx5_1", "mlx5_1", 1));
  EXPECT_FALSE(ib_hca_selects("=mlx5_1", "mlx5_10", 1));
  EXPECT_TRUE(ib_hca_selects("=mlx5_0,mlx5_1", "mlx5_1", 1));

  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "=mlx5_1"}});
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.nics, std::vector<std::string>{"NIC1"});
  EXPECT_RULE(p, "NCCL_IB_HCA==mlx5_1 (from environment) selects mlx5_1:1 of");
  EXPECT_NO_RULE(p, "prefix match");
}

TEST(GdrPredictIbHca, CaretExcludes) {
  EXPECT_FALSE(ib_hca_selects("^mlx5_0", "mlx5_0", 1));
  EXPECT_TRUE(ib_hca_selects("^mlx5_0", "mlx5_1", 1));
  EXPECT_FALSE(ib_hca_selects("^mlx5_1", "mlx5_10", 1));  // the prefix pitfall, excluding
  EXPECT_TRUE(ib_hca_selects("^=mlx5_1", "mlx5_10", 1));
  EXPECT_FALSE(ib_hca_selects("^", "mlx5_0", 1));  // empty list after '^' excludes all

  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "^mlx5_0"}});
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.nics, (std::vector<std::string>{"NIC1", "NIC2"}));
  EXPECT_EQ(predict(in, "GPU1").nics, std::vector<std::string>{"NIC1"});
  EXPECT_NO_RULE(p, "prefix match");  // mlx5_0 prefixes no other device here

  in.settings = env({{"NCCL_IB_HCA", "^mlx5_1"}});
  GdrPrediction q = predict(in);
  EXPECT_EQ(q.nics, std::vector<std::string>{"NIC0"});
  EXPECT_RULE(q,
              "NCCL_IB_HCA=^mlx5_1 (from environment) selects mlx5_0:1 of mlx5_0:1, mlx5_1:1, mlx5_10:1 "
              "(prefix match: 'mlx5_1' also matches mlx5_10");
}

TEST(GdrPredictIbHca, PlainPrefixIsNotFlagged) {
  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "mlx5"}});
  GdrPrediction p = predict(in);
  EXPECT_RULE(p, "NCCL_IB_HCA=mlx5 (from environment) selects mlx5_0:1, mlx5_1:1, mlx5_10:1 of");
  EXPECT_NO_RULE(p, "prefix match");
}

TEST(GdrPredictIbHca, PortSuffix) {
  EXPECT_TRUE(ib_hca_selects("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(ib_hca_selects("mlx5_0:1", "mlx5_0", 2));
  EXPECT_TRUE(ib_hca_selects("mlx5_0:1,mlx5_0:2", "mlx5_0", 2));
  EXPECT_TRUE(ib_hca_selects("mlx5_0:", "mlx5_0", 2));  // empty port: any
  EXPECT_TRUE(ib_hca_selects("", "mlx5_9", 1));
  EXPECT_TRUE(ib_hca_selects("mlx5_0,,mlx5_1", "mlx5_1", 1));
  EXPECT_FALSE(ib_hca_selects("mlx5_0, mlx5_1", "mlx5_1", 1));  // NCCL does not trim entries

  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "mlx5_0:1"}});
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.nics, std::vector<std::string>{"NIC0"});
  expect_gdr(p, Tri::Yes, Tri::Yes);
}

TEST(GdrPredictIbHca, FilterMatchingNothingMeansSockets) {
  Topo b = hca_topology();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_IB_HCA", "mlx5_0:2"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_TRUE(p.nics.empty());
  EXPECT_RULE(p, "NCCL_IB_HCA=mlx5_0:2 (from environment) selects none of");
  EXPECT_RULE(p, "no RDMA NIC available to NCCL's IB transport: NCCL falls back to sockets, no GPUDirect RDMA");
}

TEST(GdrPredictIbHca, NonRdmaNicsAreNotCandidates) {
  Topo b = pix();
  b.ep("NIC0").rdma_device = false;
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_RULE(p, "no RDMA NIC available to NCCL");
}

// ---- NIC choice --------------------------------------------------------------------------------

TEST(GdrPredictNicChoice, ClosestNicWins) {
  Topo b = two_pix_pairs();
  EXPECT_EQ(predict(input(b.t), "GPU0").nics, std::vector<std::string>{"NIC0"});
  EXPECT_EQ(predict(input(b.t), "GPU1").nics, std::vector<std::string>{"NIC1"});
}

TEST(GdrPredictNicChoice, TwoGpusShareTwoNics) {
  Topo b;
  int s = b.sw(b.cpu(0));
  b.gpu(s);
  b.gpu(s);
  b.nic(s, "mlx5_0");
  b.nic(s, "mlx5_1");
  GdrPrediction g0 = predict(input(b.t), "GPU0"), g1 = predict(input(b.t), "GPU1");
  EXPECT_EQ(g0.nics, (std::vector<std::string>{"NIC0", "NIC1"}));
  EXPECT_EQ(g1.nics, (std::vector<std::string>{"NIC1", "NIC0"}));
  EXPECT_RULE(g1, "2 NICs equally good: mlx5_1 (PIX), mlx5_0 (PIX); channel 0 uses mlx5_1");
}

TEST(GdrPredictNicChoice, FourNicsAreBitMirrored) {
  Topo b;
  int s = b.sw(b.cpu(0));
  for (int i = 0; i < 4; ++i) b.gpu(s);
  for (int i = 0; i < 4; ++i) b.nic(s, "mlx5_" + std::to_string(i));
  // NVML index 1 of 4 → mirrored over 2 bits → 2; index 3 stays 3.
  EXPECT_EQ(predict(input(b.t), "GPU1").nics, (std::vector<std::string>{"NIC2", "NIC3", "NIC0", "NIC1"}));
  EXPECT_EQ(predict(input(b.t), "GPU2").nics, (std::vector<std::string>{"NIC1", "NIC2", "NIC3", "NIC0"}));
  EXPECT_EQ(predict(input(b.t), "GPU3").nics, (std::vector<std::string>{"NIC3", "NIC0", "NIC1", "NIC2"}));
}

// ---- unknown paths and printed matrices ---------------------------------------------------------

TEST(GdrPredictPath, UnknownLocalityIsUnknown) {
  Topo b = pix();
  b.ep("GPU0").node = -1;  // the source could not place the GPU
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  EXPECT_EQ(p.path, NcclPath::Unknown);
  EXPECT_RULE(p, "path from GPU0 to the NICs unknown: no PCI tree position for this pair");
}

TEST(GdrPredictPath, UnknownLocalityStillNoWithoutNicSupport) {
  Topo b = pix();
  b.ep("GPU0").node = -1;
  GdrPredictInput in = input(b.t);
  in.host = host_with({});
  expect_gdr(predict(in), Tri::No, Tri::No);
}

TEST(GdrPredictPath, PrintedMatrixCodesAreUsed) {
  Topo b = pix();
  b.t.tree = TreeStyle::None;
  b.t.kind = SourceKind::SmiText;
  b.t.printed_matrix[{"GPU0", "NIC0"}] = "PIX";
  expect_gdr(predict(input(b.t)), Tri::Yes, Tri::Yes);
  b.t.printed_matrix[{"GPU0", "NIC0"}] = "NODE";
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.path, NcclPath::PHB);
}

// ---- paths the files do not prove ------------------------------------------------------------

bool has_cause(const GdrPrediction& p, GdrCause c) {
  return std::find(p.causes.begin(), p.causes.end(), c) != p.causes.end();
}

constexpr const char* kLostBridge = "PCIe path of GPU0 (0000:10:00.0) not proven: bridge config not found";

TEST(GdrPredictUnproven, ProvenPixPathHasNoCause) {
  Topo b = pix();
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_TRUE(p.causes.empty());
  EXPECT_EQ(p.unknown_path, "");
}

// hwloc lost a bridge: the distance is not known, and neither distance nor
// NVLink is the thing to fix.
TEST(GdrPredictUnproven, UnprovenGpuPathIsThePathCause) {
  Topo b = pix();
  b.ep("GPU0").path_unproven = kLostBridge;
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  ASSERT_FALSE(p.causes.empty()) << dump(p);
  EXPECT_EQ(p.causes.front(), GdrCause::PathUnknown);
  EXPECT_FALSE(has_cause(p, GdrCause::Distance));
  EXPECT_FALSE(has_cause(p, GdrCause::NvlinkUnknown));
  EXPECT_EQ(p.unknown_path, kLostBridge);
  EXPECT_EQ(p.decided_by, kLostBridge);
}

// A NIC whose path is not proven may be closer than the PHB one chosen.
TEST(GdrPredictUnproven, UnprovenNicThatMayBeCloserIsThePathCause) {
  Topo b;
  int c = b.cpu(0);
  int s = b.sw(c);
  b.gpu(s);
  b.nic(b.sw(c), "mlx5_0");
  b.nic(s, "mlx5_1");
  EXPECT_EQ(predict(input(b.t)).nics, std::vector<std::string>{"NIC1"});
  b.ep("NIC1").path_unproven = "PCIe path of NIC1 (0000:14:00.0) not proven: its config is a directory";
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Unknown, Tri::Unknown);
  ASSERT_FALSE(p.causes.empty()) << dump(p);
  EXPECT_EQ(p.causes.front(), GdrCause::PathUnknown);
  EXPECT_FALSE(has_cause(p, GdrCause::Distance));
  EXPECT_EQ(p.unknown_path, "PCIe path of NIC1 (0000:14:00.0) not proven: its config is a directory");
  EXPECT_RULE(p, "it may be closer than the NIC chosen");
}

// NCCL_NET_GDR_LEVEL=LOC turns GDR off whatever the path: the setting stays
// the cause.
TEST(GdrPredictUnproven, LocLevelStillDecidesAlone) {
  Topo b = pix();
  b.ep("GPU0").path_unproven = kLostBridge;
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_LEVEL", "LOC"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  ASSERT_FALSE(p.causes.empty()) << dump(p);
  EXPECT_EQ(p.causes.front(), GdrCause::LevelSetting);
}

// Without a path problem, an unknown NVLink that could change the NIC (PXN)
// is still the NVLink cause.
TEST(GdrPredictUnproven, UnknownNvlinkAloneKeepsTheNvlinkCause) {
  Topo b = phb();
  b.gpu(b.sw(0));
  GdrPredictInput in = input(b.t);
  in.gpus["GPU0"].nvlink = Tri::Unknown;
  GdrPrediction p = predict(in);
  EXPECT_EQ(p.recv, Tri::Unknown) << dump(p);
  EXPECT_TRUE(has_cause(p, GdrCause::NvlinkUnknown)) << dump(p);
  EXPECT_FALSE(has_cause(p, GdrCause::PathUnknown));
  EXPECT_EQ(p.unknown_path, "");
}

// ---- Grace / NVLink-C2C -----------------------------------------------------------------------

Topo c2c() {
  Topo b = phb();
  b.ep("GPU0").attributes["c2c_count"] = "10";
  return b;
}

TEST(GdrPredictC2c, P2cPathUsesGdrByDefaultOn230) {
  Topo b = c2c();
  GdrPrediction p = predict(input(b.t));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.path, NcclPath::P2C);
  EXPECT_RULE(p, "GPU0 reaches the NIC's CPU over NVLink-C2C: path P2C");
  EXPECT_RULE(p, "distance P2C <= level P2C (default");
}

TEST(GdrPredictC2c, GdrC2cOffFallsBackToPxb) {
  Topo b = c2c();
  GdrPredictInput in = input(b.t);
  in.settings = env({{"NCCL_NET_GDR_C2C", "0"}});
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::No, Tri::No);
  EXPECT_EQ(p.level, "PXB");
  EXPECT_RULE(p, "distance P2C > level PXB (default)");
}

TEST(GdrPredictC2c, VersionHistory) {
  Topo b = c2c();
  GdrPrediction v225 = predict(input(b.t, 90, nccl_version("2.25.1")));
  expect_gdr(v225, Tri::No, Tri::No);
  EXPECT_EQ(v225.path, NcclPath::PHB);

  GdrPrediction v226 = predict(input(b.t, 90, nccl_version("2.26.6")));
  expect_gdr(v226, Tri::No, Tri::No);
  EXPECT_RULE(v226, "but NCCL_NET_GDR_C2C is off (the 2.26 default)");

  GdrPredictInput on = input(b.t, 90, nccl_version("2.26.6"));
  on.settings = env({{"NCCL_NET_GDR_C2C", "1"}});
  GdrPrediction v226on = predict(on);
  expect_gdr(v226on, Tri::Yes, Tri::Yes);
  EXPECT_RULE(v226on, "distance C2C (path PHB) <= level PXB (default)");

  GdrPrediction v228 = predict(input(b.t, 90, nccl_version("2.28.9")));
  expect_gdr(v228, Tri::Yes, Tri::Yes);
  EXPECT_EQ(v228.path, NcclPath::P2C);
  EXPECT_RULE(v228, "distance C2C (path P2C) <= level PXB (default)");
}

// ---- recorded NCCL topology XML files (tests/data/recorded) -----------------------------------

Topology recorded_view(const std::string& rel) {
  return nccl_view(read_nccl_xml(testing::read_test_data("recorded/" + rel), rel));
}

std::vector<std::string> nic_names(const Topology& v, const GdrPrediction& p) {
  std::vector<std::string> out;
  for (const auto& id : p.nics) out.push_back(v.find(id)->name);
  return out;
}

// OCI BM.GPU.H100.8: every GPU has a dual-port adapter behind its Broadcom
// switch (PIX once NCCL flattens it); sm and NVML index come from the XML.
// From 2.20.3 NCCL fuses the two ports into one device
// (src/graph/topo.cc:ncclTopoAutoMerge@v2.24.3-1, level PORT: one <nic>).
TEST(GdrPredictRecorded, OciH100EveryGpuUsesGdrThroughItsFusedPixAdapter) {
  Topology v = recorded_view("oci-hpc/H100-topology.xml");
  GdrPredictInput in = input(v);
  in.gpus.clear();
  auto all = predict_gdr(in);
  ASSERT_EQ(all.size(), 8u);
  for (const auto& p : all) {
    expect_gdr(p, Tri::Yes, Tri::Yes);
    EXPECT_EQ(p.path, NcclPath::PIX) << p.gpu;
    EXPECT_EQ(p.nics.size(), 1u) << p.gpu;
    EXPECT_RULE(p, "send side: sm 90 reads GPU memory by default");
  }
  EXPECT_EQ(all[0].net_name, "mlx5_0+mlx5_1");
  EXPECT_RULE(all[0], "fuses the ports of one adapter into mlx5_0+mlx5_1 (360 Gb/s)");
}

// Without fusing, two equally good ports: 2.30.7 takes the NVML index
// modulo the GPUs sharing them (one here), so channel 0 uses the first;
// 2.18.5-2.30.4 mirror the index itself; 2.12-2.17 take dev % nL.
TEST(GdrPredictRecorded, OciH100UnfusedPortsChannelZeroPerRelease) {
  Topology v = recorded_view("oci-hpc/H100-topology.xml");
  GdrPredictInput in = input(v);
  in.gpus.clear();
  in.settings = env({{"NCCL_NET_MERGE_LEVEL", "LOC"}});
  auto newest = predict_gdr(in);
  EXPECT_EQ(nic_names(v, newest[1]), (std::vector<std::string>{"mlx5_3", "mlx5_4"}));
  in.version = nccl_version("2.29.7");
  auto older = predict_gdr(in);
  EXPECT_EQ(nic_names(v, older[1]), (std::vector<std::string>{"mlx5_4", "mlx5_3"}));
  EXPECT_RULE(older[1], "2 NICs equally good: mlx5_4 (PIX, 22.5 GB/s), mlx5_3 (PIX, 22.5 GB/s); channel 0 uses mlx5_4");
  in.version = nccl_version("2.17.1");
  EXPECT_EQ(nic_names(v, predict_gdr(in)[1]), (std::vector<std::string>{"mlx5_4", "mlx5_3"}));  // 1 % 2
  EXPECT_EQ(nic_names(v, predict_gdr(in)[2]), (std::vector<std::string>{"mlx5_5", "mlx5_6"}));  // 2 % 2
}

TEST(GdrPredictRecorded, OciH100WithoutFlatteningIsPxbAndStillGdr) {
  Topology v = nccl_view(read_nccl_xml(testing::read_test_data("recorded/oci-hpc/H100-topology.xml"), "H100"),
                         NcclViewOptions{.flatten_bcm = false});
  GdrPrediction p = predict(input(v));
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_EQ(p.path, NcclPath::PXB);
}

TEST(GdrPredictRecorded, OciH100RecordedGdrWhenHostFactsAreMissing) {
  Topology v = recorded_view("oci-hpc/H100-topology.xml");
  GdrPredictInput in = input(v);
  in.host = GdrHostFacts{};
  GdrPrediction p = predict(in);
  expect_gdr(p, Tri::Yes, Tri::Yes);
  EXPECT_RULE(p, "NCCL topology XML records gdr=1 for mlx5_0");
}

TEST(GdrPredictRecorded, AzureNcv4HasNoRdmaNic) {
  Topology v = recorded_view("azhpc-images/ncv4-topo.xml");
  auto all = predict_gdr(input(v));
  ASSERT_EQ(all.size(), 4u);
  for (const auto& p : all) {
    expect_gdr(p, Tri::No, Tri::No);
    EXPECT_RULE(p, "no RDMA NIC available to NCCL");
  }
}

// ---- parse_gdr_level ---------------------------------------------------------------------------

TEST(GdrPredictParseLevel, NamesOfTheNewestRelease) {
  NcclVersion v = NcclVersion::newest();
  for (NcclPath p : {NcclPath::LOC, NcclPath::NVL, NcclPath::NVB, NcclPath::C2C, NcclPath::PIX, NcclPath::PXB,
                     NcclPath::P2C, NcclPath::PXN, NcclPath::PHB, NcclPath::SYS})
    EXPECT_EQ(parse_gdr_level(nccl_path_name(p), v), p) << nccl_path_name(p);
  for (const char* bad : {"NET", "DIS", "pxb", " PXB", "PXB ", "", "-1", "x"})
    EXPECT_FALSE(parse_gdr_level(bad, v).has_value()) << "'" << bad << "'";
}

TEST(GdrPredictParseLevel, NamesExistOnlyFromTheirRelease) {
  EXPECT_FALSE(parse_gdr_level("NVB", nccl_version("2.7.8")));
  EXPECT_EQ(parse_gdr_level("NVB", nccl_version("2.8.3")), NcclPath::NVB);
  EXPECT_FALSE(parse_gdr_level("PXN", nccl_version("2.11.4")));
  EXPECT_EQ(parse_gdr_level("PXN", nccl_version("2.12.12")), NcclPath::PXN);
  EXPECT_FALSE(parse_gdr_level("C2C", nccl_version("2.25.1")));
  EXPECT_EQ(parse_gdr_level("C2C", nccl_version("2.26.2")), NcclPath::C2C);
  EXPECT_FALSE(parse_gdr_level("P2C", nccl_version("2.26.6")));
  EXPECT_EQ(parse_gdr_level("P2C", nccl_version("2.27.3")), NcclPath::P2C);
}

TEST(GdrPredictParseLevel, LegacyIntegers) {
  NcclVersion v = NcclVersion::newest();
  EXPECT_EQ(parse_gdr_level("0", v), NcclPath::LOC);
  EXPECT_EQ(parse_gdr_level("1", v), NcclPath::PIX);
  EXPECT_EQ(parse_gdr_level("2", v), NcclPath::PXB);
  EXPECT_EQ(parse_gdr_level("3", v), NcclPath::PHB);
  EXPECT_EQ(parse_gdr_level("4", v), NcclPath::SYS);
  EXPECT_EQ(parse_gdr_level("7", v), NcclPath::SYS);
  EXPECT_EQ(parse_gdr_level("99999999999999999999", v), NcclPath::SYS);
  EXPECT_EQ(parse_gdr_level("0x3", v), NcclPath::PHB);   // strtol base 0, as NCCL
  EXPECT_EQ(parse_gdr_level("2abc", v), NcclPath::PXB);  // NCCL reads the leading number
}

TEST(GdrPredictParseLevel, Nccl25UsesTheOldExclusiveScale) {
  NcclVersion v = nccl_version("2.5.6");
  EXPECT_EQ(parse_gdr_level("0", v), NcclPath::LOC);
  EXPECT_EQ(parse_gdr_level("1", v), NcclPath::PIX);
  EXPECT_EQ(parse_gdr_level("2", v), NcclPath::PXB);  // the old default (PHB, exclusive)
  EXPECT_EQ(parse_gdr_level("3", v), NcclPath::PHB);
  EXPECT_EQ(parse_gdr_level("5", v), NcclPath::SYS);
  EXPECT_EQ(parse_gdr_level("PXB", v), NcclPath::LOC);  // an integer parameter: text reads as 0
  EXPECT_FALSE(parse_gdr_level("", v));
}

TEST(GdrPredictTri, Names) {
  EXPECT_STREQ(tri_name(Tri::Yes), "yes");
  EXPECT_STREQ(tri_name(Tri::No), "no");
  EXPECT_STREQ(tri_name(Tri::Unknown), "unknown");
}

TEST(GdrPredictInputs, NoViewNoPredictions) {
  EXPECT_TRUE(predict_gdr(GdrPredictInput{}).empty());
}

}  // namespace
}  // namespace gdrcheck

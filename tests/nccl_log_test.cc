// Tests for the NCCL / RCCL debug-log reader. The real logs in
// tests/data/nccl-logs were posted publicly (see PROVENANCE.md); each test
// checks facts read off that file by eye (line numbers count from 1, the
// "[...]" lines mark where excerpts of one post were joined).
#include "evidence/nccl_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using Lines = std::vector<std::size_t>;
using testing::contains;

std::string nccl_log_text(const std::string& name) {
  return testing::read_test_data("nccl-logs/" + name);
}

NcclLogReport load_nccl_log(const std::string& name, std::optional<NcclVersion> assumed = std::nullopt) {
  return parse_nccl_log(nccl_log_text(name), assumed);
}

// Lines of the first reason with that code; {} when there is none.
Lines reason_lines(const NcclLogReport& r, std::string_view code) {
  const NcclReason* reason = r.reason(code);
  return reason ? reason->lines : Lines{};
}

std::string message_of(const NcclLogReport& r, std::string_view code) {
  const NcclReason* reason = r.reason(code);
  return reason ? reason->message : "<none>";
}

std::string env_echo(const NcclLogReport& r, std::string_view name) {
  const NcclEnvEcho* e = r.env_value(name);
  return e ? e->value : "<none>";
}

std::size_t count_side(const NcclLogReport& r, NetSide side) {
  return static_cast<std::size_t>(
      std::count_if(r.connections.begin(), r.connections.end(), [&](const auto& c) { return c.side == side; }));
}

using Hosts = std::vector<std::string>;

// ================================================================ real logs

TEST(NcclLogRealLogs, AksGdrLevelSysAllGdr) {
  auto r = load_nccl_log("aks-rdma-infiniband-36-gdr-level-sys.log");
  EXPECT_EQ(r.nccl_version, "");
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_connections, 7u);
  EXPECT_EQ(r.gdr_connections, 7u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.hosts, Hosts{"leader-h2nng"});
  EXPECT_EQ(reason_lines(r, "gdr_forced"), (Lines{2, 3, 4, 5, 6}));
  EXPECT_EQ(r.reason("gdr_forced")->count, 8u);
  EXPECT_EQ(env_echo(r, "NCCL_NET_GDR_LEVEL"), "SYS");
  EXPECT_EQ(r.env_value("NCCL_NET_GDR_LEVEL")->line, 2u);
  EXPECT_EQ(count_side(r, NetSide::Receive), 6u);
}

TEST(NcclLogRealLogs, Automodel229PluginLinesNoChannels) {
  auto r = load_nccl_log("automodel-3032-2.29-net-plugin-assigned.log");
  EXPECT_EQ(r.net_transport, "IB");  // "Using network IB", line 8
  EXPECT_EQ(r.net_devices, (Hosts{"mlx5_0:1/IB", "mlx5_1:1/IB", "mlx5_2:1/IB", "mlx5_3:1/IB"}));
  EXPECT_EQ(r.ranks, 8);
  EXPECT_EQ(r.hosts, Hosts{"node-0"});
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, AwsOfiLibfabricSharedWithTimestampLines) {
  auto r = load_nccl_log("aws-ofi-nccl-715-libfabric-shared-timestamps.log");
  EXPECT_EQ(r.net_transport, "AWS Libfabric");
  EXPECT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 4u);
  EXPECT_EQ(r.intra_node_lines, 5u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.records, 12u);  // the timestamp lines between them are not records
  const auto& c = r.connections.front();
  EXPECT_EQ(c.line, 1u);
  EXPECT_EQ(c.channel, 4);
  EXPECT_EQ(c.conn_index, 1);
  EXPECT_EQ(c.from_rank, 15);
  EXPECT_EQ(c.to_rank, 2);
  EXPECT_EQ(c.side, NetSide::Receive);
  EXPECT_EQ(c.net, "AWS Libfabric");
  EXPECT_EQ(c.dev, 1);
  EXPECT_TRUE(c.gdr);
  EXPECT_TRUE(c.shared);
  EXPECT_EQ(c.host, "algo-1");
}

TEST(NcclLogRealLogs, PythonLoggingPrefixAndRingOrderLines) {
  auto r = load_nccl_log("easydistill-4-python-logging-ring-order.log");
  EXPECT_EQ(r.records, 11u);
  EXPECT_EQ(r.hosts, Hosts{"g340-cd51-4900-b72a-d104-a9bf-df48"});
  // "Ring 00 : 7 -> 0 -> 1" is ring order, neither a connection nor a cut line.
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.intra_node_lines, 0u);
  EXPECT_EQ(r.cut_lines, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, NcclTestsRoce218) {
  auto r = load_nccl_log("nccl-1052-nccl-tests-roce-2.18.5.log");
  EXPECT_EQ(r.nccl_version, "2.18.5+cuda12.0");  // bare version line 6
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_devices, Hosts{"mlx5_4:1/RoCE"});
  EXPECT_EQ(r.ranks, 2);  // "... rank 0 nranks 2 ... Init COMPLETE", line 31
  EXPECT_EQ(r.hosts, (Hosts{"node2", "node4"}));
  EXPECT_EQ(env_echo(r, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(r.env_value("NCCL_IB_GID_INDEX")->line, 17u);
  EXPECT_TRUE(r.ring_summaries.empty());  // plain "Connected all rings" (2.18)
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, SocketBecauseIbDisabled) {
  auto r = load_nccl_log("nccl-1053-socket-ib-disabled-lo.log");
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.socket_interfaces, Hosts{"lo:127.0.0.1<0>"});
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{3, 7}));
  EXPECT_TRUE(contains(message_of(r, "socket_fallback"), "NCCL_IB_DISABLE=1")) << message_of(r, "socket_fallback");
  EXPECT_EQ(env_echo(r, "NCCL_IB_DISABLE"), "1");
  // "NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lo'" is no module problem.
  EXPECT_EQ(r.reason("gdr_disabled_no_module"), nullptr);
}

TEST(NcclLogRealLogs, H20AllGdr) {
  auto r = load_nccl_log("nccl-1189-h20-ib-gdrdma.log");
  EXPECT_EQ(r.net_connections, 9u);
  EXPECT_EQ(r.gdr_connections, 9u);
  EXPECT_EQ(r.intra_node_lines, 5u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.hosts, (Hosts{"H20-GPU-05", "H20-GPU-06"}));
  EXPECT_EQ(r.ranks, 4);  // no nranks printed: ranks 0-3 seen
}

TEST(NcclLogRealLogs, VllmSoftRoceWarning) {
  auto r = load_nccl_log("nccl-1297-vllm-rxe-softroce.log");
  EXPECT_EQ(r.nccl_version, "2.20.5+cuda12.4");
  EXPECT_EQ(r.net_devices, Hosts{"rxe0:1/RoCE"});
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(reason_lines(r, "nccl_warn"), Lines{14});
  EXPECT_EQ(env_echo(r, "NCCL_IB_HCA"), "rxe0");
  EXPECT_EQ(r.hosts, Hosts{"master"});
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, IbWithoutGdr16Ranks) {
  auto r = load_nccl_log("nccl-1412-ib-no-gdr-init-complete.log");
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.intra_node_lines, 10u);
  const auto& c = r.connections.front();
  EXPECT_EQ(c.line, 2u);
  EXPECT_EQ(c.channel, 3);
  EXPECT_EQ(c.from_rank, 5);
  EXPECT_EQ(c.to_rank, 12);
  EXPECT_EQ(c.from_device, "5");  // "5[5] -> 12[4]": NVML indices (2.18.3 and later)
  EXPECT_EQ(c.to_device, "4");
  EXPECT_EQ(c.side, NetSide::Send);
  EXPECT_EQ(c.dev, 3);
  EXPECT_FALSE(c.gdr);
}

TEST(NcclLogRealLogs, RankTagPrefixIbext) {
  auto r = load_nccl_log("nccl-1453-rank-tag-ibext-v8-gdrdma.log");
  EXPECT_EQ(r.net_transport, "IBext_v8");
  EXPECT_EQ(r.net_connections, 12u);
  EXPECT_EQ(r.gdr_connections, 12u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.hosts, Hosts{"h100clust-worker-1"});
  EXPECT_EQ(r.connections.front().dev, 7);
}

TEST(NcclLogRealLogs, GluedWritersOldNccl) {
  auto r = load_nccl_log("nccl-147-glued-writers.log");
  // Line 6 holds two records; line 8 ("comm 0x... rank 2 nranks 8") none.
  EXPECT_EQ(r.lines, 17u);
  EXPECT_EQ(r.records, 17u);
  EXPECT_EQ(r.hosts, Hosts{"learnfair062"});
  EXPECT_EQ(r.net_transport, "IB");  // "Using internal Network IB" (2.3)
  EXPECT_EQ(r.net_devices.size(), 4u);
  EXPECT_EQ(r.ranks, 8);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, HcaDisabledWithoutChannelsIsNo) {
  auto r = load_nccl_log("nccl-1537-roce-gdr-disabled-hca.log");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_disabled_no_module"), (Lines{5, 6}));
  EXPECT_EQ(r.net_devices, (Hosts{"mlx5_0:1/RoCE", "mlx5_1:1/RoCE"}));
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.net_transport, "IB");
}

TEST(NcclLogRealLogs, IntraNodeOnlyIsUnknown) {
  auto r = load_nccl_log("nccl-1538-p2p-cumem-only.log");
  EXPECT_EQ(r.intra_node_lines, 11u);
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_TRUE(contains(r.verdict_why, "intra-node"));
  EXPECT_EQ(r.hosts, Hosts{"job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0"});
}

TEST(NcclLogRealLogs, DistanceDisabledNeedsTheVersion) {
  // The post's pip list names nvidia-nccl-cu12==2.21.5; the log has no version line.
  auto r = load_nccl_log("nccl-1657-distance-disabled-2.21.log", NcclVersion{2, 21, 5});
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_distance"), Lines{5});
  EXPECT_TRUE(contains(message_of(r, "gdr_distance"), "6 (PHB) > 4 (PXB)")) << message_of(r, "gdr_distance");
  auto unversioned = load_nccl_log("nccl-1657-distance-disabled-2.21.log");
  EXPECT_TRUE(contains(message_of(unversioned, "gdr_distance"), "depend on the NCCL version"));
}

TEST(NcclLogRealLogs, PeermemRenameDisablesGdr) {
  auto r = load_nccl_log("nccl-1676-dgx-peermem-rename.log");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_disabled_no_module"), (Lines{1, 2, 3, 4}));
  EXPECT_EQ(r.hosts, Hosts{"learn01"});
}

TEST(NcclLogRealLogs, NoLibibverbsMeansSocket) {
  auto r = load_nccl_log("nccl-1680-2.25-no-libibverbs-socket.log");
  EXPECT_EQ(r.nccl_version, "2.25.1+cuda12.8");  // INFO form, line 3
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), Lines{16});
  EXPECT_TRUE(contains(message_of(r, "socket_fallback"), "libibverbs"));
  EXPECT_EQ(r.hosts, Hosts{"ada6000-02"});
}

TEST(NcclLogRealLogs, MarkdownQuotedWarnings) {
  auto r = load_nccl_log("nccl-1710-markdown-quoted-warn.log");
  EXPECT_EQ(r.hosts, (Hosts{"node023", "node201"}));
  EXPECT_EQ(reason_lines(r, "net_error"), (Lines{1, 3, 5, 7}));
  EXPECT_EQ(r.reason("acs_hint"), nullptr);  // status=9, not a protection error
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, OpenMpiPrefixAndGluedNcclTestsRow) {
  auto r = load_nccl_log("nccl-1713-openmpi-glued-nccl-tests.log");
  // Line 4 glues an nccl-tests row ("... -1") to a host name.
  EXPECT_EQ(r.hosts, (Hosts{"aiplatform-wlf2-ge78-70", "aiplatform-wlf2-ge78-72"}));
  EXPECT_EQ(r.net_connections, 6u);
  EXPECT_EQ(r.gdr_connections, 6u);
  EXPECT_EQ(r.intra_node_lines, 1u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  for (const auto& c : r.connections) {
    EXPECT_TRUE(c.shared);
    EXPECT_EQ(c.conn_index, 1);
  }
}

TEST(NcclLogRealLogs, Nccl23PerDeviceLines) {
  auto r = load_nccl_log("nccl-179-v2.3.7-ib-devices.log");
  EXPECT_EQ(r.nccl_version, "2.3.7+cuda9.0");
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_devices, (Hosts{"mlx5_1:1/IB", "mlx5_3:1/IB", "mlx5_0:1/IB", "mlx5_2:1/IB"}));
  EXPECT_EQ(r.ranks, 8);
}

TEST(NcclLogRealLogs, IbextWithoutGdr) {
  auto r = load_nccl_log("nccl-1814-ibext-v8-no-gdr.log");
  EXPECT_EQ(r.net_transport, "IBext_v8");
  EXPECT_EQ(r.net_connections, 25u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(count_side(r, NetSide::Receive), 12u);
  EXPECT_EQ(count_side(r, NetSide::Send), 13u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.hosts, Hosts{"hostname-test"});
}

TEST(NcclLogRealLogs, ThirtyFourRoceDevicesEmptyOob) {
  auto r = load_nccl_log("nccl-224-openmpi-34-roce-devices.log");
  ASSERT_EQ(r.net_devices.size(), 34u);
  EXPECT_EQ(r.net_devices.front(), "mlx5_18:1/RoCE");
  EXPECT_EQ(r.net_devices.back(), "mlx5_26:1/RoCE");
  EXPECT_EQ(r.hosts, Hosts{"gpu6"});
  EXPECT_EQ(r.net_transport, "IB");
}

TEST(NcclLogRealLogs, Ec2RingFormatOverSocket) {
  auto r = load_nccl_log("nccl-226-aws-ring-socket.log");
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.net_connections, 15u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.hosts.size(), 28u);
  const auto& c = r.connections.front();  // "Ring 00 : 43 -> 44 [receive] via NET/Socket/0"
  EXPECT_EQ(c.line, 19u);
  EXPECT_EQ(c.from_rank, 43);
  EXPECT_EQ(c.to_rank, 44);
  EXPECT_EQ(c.net, "Socket");
  EXPECT_EQ(reason_lines(r, "socket_fallback").front(), 1u);
  EXPECT_TRUE(contains(message_of(r, "socket_fallback"), "NET/IB : No device found."));
}

TEST(NcclLogRealLogs, OpenMpiBareVersionLine) {
  auto r = load_nccl_log("nccl-300-openmpi-prefix-socket-lo.log");
  EXPECT_EQ(r.nccl_version, "2.5.6+cuda10.2");  // "[1,0]<stdout>:NCCL version ..."
  EXPECT_EQ(r.hosts, Hosts{"5873af64cf59"});
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{3, 8, 12}));
}

TEST(NcclLogRealLogs, MpiRankPrefix256) {
  auto r = load_nccl_log("nccl-302-mpi-rank-prefix-2.5.6.log");
  EXPECT_EQ(r.hosts, Hosts{"crow-ib-new-nccl-256-info-19"});
  EXPECT_EQ(r.net_devices.size(), 5u);
  EXPECT_EQ(r.net_devices[3], "mlx5_2:1/RoCE");
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.intra_node_lines, 3u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, Nccl24SocketAndSharedMemory) {
  auto r = load_nccl_log("nccl-367-ring-socket-shm.log");
  EXPECT_EQ(r.net_transport, "Socket");
  ASSERT_EQ(r.net_connections, 1u);
  EXPECT_EQ(r.connections[0].line, 14u);
  EXPECT_EQ(r.connections[0].from_rank, 15);
  EXPECT_EQ(r.intra_node_lines, 2u);  // "via direct shared memory"
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(env_echo(r, "NCCL_NSOCKS_PERTHREAD"), "8");
}

TEST(NcclLogRealLogs, NumberedLinesWithoutHost) {
  auto r = load_nccl_log("nccl-385-numbered-lines-ring-gdrdma.log");
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.gdr_connections, 2u);
  EXPECT_EQ(r.intra_node_lines, 9u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.connections[0].line, 8u);
  EXPECT_EQ(r.connections[0].dev, 1);
}

TEST(NcclLogRealLogs, NoHostPrefix257) {
  auto r = load_nccl_log("nccl-392-no-host-2.5.7-partial-gdr.log");
  EXPECT_EQ(r.nccl_version, "2.5.7+cuda10.0");
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.net_devices, Hosts{"mlx5_0:1/RoCE"});
  EXPECT_EQ(r.net_connections, 2u);  // Ring 00 and Ring 01, 15 -> 0 receive
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
}

TEST(NcclLogRealLogs, Ec2LibfabricGdr) {
  auto r = load_nccl_log("nccl-527-ec2-libfabric-gdrdma-2.9.9.log");
  EXPECT_EQ(r.net_transport, "AWS Libfabric");
  EXPECT_EQ(r.net_connections, 5u);
  EXPECT_EQ(r.gdr_connections, 5u);
  EXPECT_EQ(r.intra_node_lines, 7u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.hosts.size(), 4u);
}

TEST(NcclLogRealLogs, Nccl27ChannelFormat) {
  auto r = load_nccl_log("nccl-687-channel-hex-gdrdma-connected-rings.log");
  EXPECT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 4u);
  EXPECT_EQ(count_side(r, NetSide::Send), 4u);
  EXPECT_EQ(r.intra_node_lines, 7u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.hosts, (Hosts{"cosmos-hpc-100a45", "cosmos-hpc-100a55"}));
}

TEST(NcclLogRealLogs, A100Nccl276AllGdr) {
  auto r = load_nccl_log("nccl-707-a100-channel-hex-gdrdma.log");
  EXPECT_EQ(r.nccl_version, "2.7.6+cuda11.1");
  EXPECT_EQ(r.net_devices.size(), 9u);
  EXPECT_EQ(r.net_connections, 12u);
  EXPECT_EQ(r.gdr_connections, 12u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(env_echo(r, "NCCL_P2P_LEVEL"), "LOC");
  EXPECT_EQ(r.env_value("NCCL_P2P_LEVEL")->line, 13u);
  EXPECT_EQ(r.hosts, Hosts{"10-90-43-152"});
}

TEST(NcclLogRealLogs, MaskedHostNames) {
  auto r = load_nccl_log("nccl-875-masked-host-2.10.3.log");
  EXPECT_TRUE(r.hosts.empty());  // "xxx-xxx-xxx-xxx"
  EXPECT_EQ(r.nccl_version, "2.10.3+cuda11.3");
  EXPECT_EQ(r.net_devices, Hosts{"mlx5_0:1/IB"});
  EXPECT_EQ(r.net_transport, "IB");
}

TEST(NcclLogRealLogs, NoModuleOldFormatAndDuplicates) {
  auto r = load_nccl_log("nccl-899-no-module-channel-hex.log");
  EXPECT_EQ(r.net_connections, 7u);  // 11 lines, 4 repeated
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_disabled_no_module"), (Lines{1, 2, 3}));
  EXPECT_TRUE(contains(message_of(r, "gdr_disabled_no_module"), "peer-memory module"));
  EXPECT_EQ(r.hosts, (Hosts{"21346d5cefce", "6a5a91752e39"}));
}

TEST(NcclLogRealLogs, CompletionError4HintsAcs) {
  auto r = load_nccl_log("nccl-928-warn-error4-acs.log");
  EXPECT_EQ(reason_lines(r, "acs_hint"), (Lines{1, 6, 11}));
  EXPECT_EQ(r.hosts, (Hosts{"H100-1", "H100-2", "H100-5"}));
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, AngleBracketHostSocketChannels) {
  auto r = load_nccl_log("nccl-952-masked-host-ibext-socket.log");
  EXPECT_TRUE(r.hosts.empty());  // "<cluster_name>"
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.connections[0].dev, 3);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{27, 28}));
  EXPECT_EQ(r.intra_node_lines, 14u);
}

TEST(NcclLogRealLogs, EmptyHostRingSummaryGdr0) {
  auto r = load_nccl_log("nccl-mesh-plugin-56-empty-host-no-gdr.log");
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.net_connections, 16u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  ASSERT_EQ(r.ring_summaries.size(), 1u);
  EXPECT_EQ(r.ring_summaries[0].pxn, 0);
  EXPECT_EQ(r.ring_summaries[0].gdr, 0);
  EXPECT_EQ(r.ring_summaries[0].line, 18u);
  EXPECT_EQ(r.connections[0].dev, 4);
  EXPECT_EQ(r.connections[1].dev, 5);
}

TEST(NcclLogRealLogs, NcclTestsPosterReplacedAddresses) {
  auto r = load_nccl_log("nccl-tests-133-2.10.3-masked-ip.log");
  EXPECT_EQ(r.nccl_version, "2.10.3+cuda11.0");
  EXPECT_EQ(r.hosts, (Hosts{"nodea", "nodeb"}));
  EXPECT_EQ(r.net_devices, Hosts{"mlx5_6:1/RoCE"});
  EXPECT_EQ(r.net_transport, "IB");
}

TEST(NcclLogRealLogs, PluginNotFoundOnly) {
  auto r = load_nccl_log("nccl-tests-188-plugin-not-found.log");
  EXPECT_EQ(r.hosts, Hosts{"user"});
  EXPECT_EQ(r.net_transport, "");
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, CodeFenceGluedToFirstLine) {
  auto r = load_nccl_log("nccl-tests-224-gdrdma-shared.log");
  EXPECT_EQ(r.hosts, Hosts{"lambda-server-1"});
  EXPECT_EQ(r.net_connections, 10u);
  EXPECT_EQ(r.gdr_connections, 10u);
  EXPECT_EQ(std::count_if(r.connections.begin(), r.connections.end(), [](const auto& c) { return c.shared; }), 2);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
}

TEST(NcclLogRealLogs, OfiPluginDisablesGdr) {
  auto r = load_nccl_log("nccl-tests-245-ofi-no-host-prefix.log");
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_disabled_plugin"), (Lines{1, 3}));
  EXPECT_EQ(r.ranks, 2);
  // The OFI plugin's lines say it was loaded, not that NCCL used it: the
  // network stays unknown, and the module is named.
  EXPECT_EQ(r.net_transport, "");
  EXPECT_EQ(r.net_modules, Hosts{"OFI"});
}

TEST(NcclLogRealLogs, Nccl247DistanceInOldScale) {
  auto r = load_nccl_log("nv-peer-memory-56-v2.4.7-distance-disabled.log");
  EXPECT_EQ(r.nccl_version, "2.4.7+cuda10.0");
  EXPECT_EQ(r.hosts, (Hosts{"master_node", "secondary_node"}));
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_devices, Hosts{"mlx5_0:1/IB"});
  EXPECT_EQ(r.socket_interfaces.size(), 2u);
  EXPECT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "gdr_distance").front(), 19u);
  EXPECT_TRUE(contains(message_of(r, "gdr_distance"), "3 (NODE) >= 2 (PHB)")) << message_of(r, "gdr_distance");
  const auto& c = r.connections.front();  // "Ring 00 : 6 -> 2 [receive] via NET/IB/0"
  EXPECT_EQ(c.line, 20u);
  EXPECT_EQ(c.from_rank, 6);
  EXPECT_EQ(c.to_rank, 2);
  EXPECT_EQ(c.side, NetSide::Receive);
}

TEST(NcclLogRealLogs, NoIbDeviceSocketChannels) {
  auto r = load_nccl_log("oneflow-3586-no-ib-device-socket.log");
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.connections[0].dev, 1);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{4, 6, 10, 11}));
  EXPECT_EQ(r.hosts, Hosts{"worker"});
}

TEST(NcclLogRealLogs, RayPrefixAndCommSuffix) {
  auto r = load_nccl_log("ray-59778-ray-prefix-comm-suffix.log");
  EXPECT_EQ(r.hosts, (Hosts{"k8s17", "k8s19"}));
  EXPECT_EQ(r.ranks, 32);  // "... comm 0x5609976f9470 nRanks 32"
  EXPECT_EQ(r.intra_node_lines, 1u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_EQ(env_echo(r, "NCCL_MIN_P2P_NCHANNELS"), "16");
}

TEST(NcclLogRealLogs, RcclVersionBlock) {
  auto r = load_nccl_log("rccl-1454-rccl-version-warn-path.log");
  EXPECT_TRUE(r.rccl);
  EXPECT_EQ(r.nccl_version, "2.21.5-main:a29a210+");
  EXPECT_EQ(reason_lines(r, "nccl_warn"), Lines{1});
  EXPECT_EQ(r.hosts, Hosts{"UVOSLinux"});
}

TEST(NcclLogRealLogs, RcclWithoutLibibverbs) {
  auto r = load_nccl_log("rccl-tests-163-rccl-no-libibverbs-socket.log");
  EXPECT_TRUE(r.rccl);
  EXPECT_EQ(r.nccl_version, "2.21.5-HEAD:9a0e6a1");
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{14, 17}));
  EXPECT_TRUE(contains(message_of(r, "socket_fallback"), "libibverbs"));
}

TEST(NcclLogRealLogs, Rccl230TimestampedWarn) {
  auto r = load_nccl_log("rocm-build-6074-rccl-2.30-timestamp-warn.log");
  EXPECT_TRUE(r.rccl);
  EXPECT_EQ(r.nccl_version, "2.30.4-HEAD:2b22ab0");
  EXPECT_EQ(reason_lines(r, "nccl_warn"), Lines{1});
  EXPECT_EQ(r.hosts, Hosts{"a88286dd3b8f"});
}

TEST(NcclLogRealLogs, RayWorkerGdr) {
  auto r = load_nccl_log("vllm-15100-ray-ib-gdrdma.log");
  // Line 2 lost the host's first letter in the paste; kept as printed.
  EXPECT_EQ(r.hosts, (Hosts{"deepseek-v2-5-0", "eepseek-v2-5-0"}));
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.gdr_connections, 2u);
  EXPECT_EQ(r.intra_node_lines, 8u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
}

TEST(NcclLogRealLogs, RayAnsiDebrisMaskedHost) {
  auto r = load_nccl_log("vllm-2734-ray-ansi-masked-ibext.log");
  EXPECT_TRUE(r.hosts.empty());  // "[pod-name]"
  EXPECT_EQ(r.records, 9u);
  EXPECT_EQ(r.intra_node_lines, 5u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogRealLogs, LineCutByAnotherWriter) {
  auto r = load_nccl_log("vllm-9329-cut-line-no-libibverbs.log");
  EXPECT_EQ(r.cut_lines, 1u);  // "Channel 11/0 : 0[0] ->" + next writer
  EXPECT_EQ(r.records, 15u);
  EXPECT_EQ(r.hosts, Hosts{"3837134f4773"});
  EXPECT_EQ(r.intra_node_lines, 6u);
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{10, 13}));
}

TEST(NcclLogRealLogs, DmabufCapableButChannelsWithoutGdr) {
  auto r = load_nccl_log("vllm-dgx-spark-1-nested-ray-dmabuf-ibext-v10.log");
  EXPECT_EQ(r.net_transport, "IBext_v10");
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::No);  // "GPU Direct RDMA (DMABUF) enabled for HCA" is capability only
  EXPECT_EQ(r.hosts, Hosts{"spark-3995"});
}

// ================================================================ synthetic

TEST(NcclLogSynthetic, LaunchersPartialPxn) {
  auto r = load_nccl_log("synthetic-launchers-partial-pxn.log");
  EXPECT_EQ(r.nccl_version, "2.21.5+cuda12.4");
  EXPECT_EQ(r.versions.size(), 1u);
  EXPECT_EQ(r.hosts, (Hosts{"gpu-a", "gpu-b"}));
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_devices, (Hosts{"mlx5_0:1/IB", "mlx5_1:1/IB"}));
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 3u);
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
  EXPECT_EQ(reason_lines(r, "partial_nodes"), Lines{9});
  EXPECT_TRUE(contains(message_of(r, "partial_nodes"), "hosts gpu-b"));
  EXPECT_EQ(reason_lines(r, "gdr_distance"), Lines{6});
  EXPECT_TRUE(contains(message_of(r, "gdr_distance"), "6 (PHB) > 4 (PXB) in NCCL 2.21.5"));
  ASSERT_EQ(r.connections.size(), 4u);
  EXPECT_EQ(r.connections[1].proxy_rank, 8);
  EXPECT_EQ(r.connections[1].host, "gpu-a");
  EXPECT_TRUE(r.connections[3].pci);
  EXPECT_TRUE(r.connections[3].shared);
  EXPECT_EQ(r.connections[3].conn_index, 1);
  ASSERT_EQ(r.ring_summaries.size(), 1u);
  EXPECT_EQ(r.ring_summaries[0].line, 12u);
}

// ============================================================== line forms

// One channel line behind several prefixes: the record is the same.
TEST(NcclLogLineForms, PrefixesAreIgnored) {
  const std::string rec = "node1:1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA";
  for (std::string prefix :
       {"", "[1,3]<stdout>:", "(pid=123, ip=10.0.0.1) ", "0: ", "13: ", "[2024-01-01 12:00:00] ",
        "2024-01-01T12:00:00.123Z ", "(RayWorkerWrapper pid=9) ", "\x1b[36m(Worker pid=1)\x1b[0m ", "[155] "}) {
    auto r = parse_nccl_log(prefix + rec);
    ASSERT_EQ(r.net_connections, 1u) << prefix;
    EXPECT_EQ(r.hosts, Hosts{"node1"}) << prefix;
    EXPECT_EQ(r.connections[0].host, "node1") << prefix;
    EXPECT_TRUE(r.connections[0].gdr) << prefix;
  }
}

TEST(NcclLogLineForms, MaskedOrMissingHosts) {
  for (std::string prefix : {"XXXXX:123:456 [0] ", ":123:456 [0] ", "<host>:123:456 [0] ", "[0] ", " [0] ",
                             "xxx-xxx:1:2 [0] ", "[node]:1:2 [0] "}) {
    auto r = parse_nccl_log(prefix + "NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0");
    EXPECT_TRUE(r.hosts.empty()) << prefix;
    ASSERT_EQ(r.net_connections, 1u) << prefix;
    EXPECT_EQ(r.connections[0].host, "") << prefix;
  }
}

TEST(NcclLogLineForms, WarnPrefixWithFileAndFunction) {
  auto r = parse_nccl_log(
      "n1:1:2 [3] transport/net_ib/common.cc:88 (printIbWcStatusHint) NCCL WARN NET/IB: IBV_WC_LOC_PROT_ERR seen\n"
      "[2024-05-01 10:00:00] n2:1:2 [0] misc/socket.cc:50 NCCL WARN NET/IB : something else\n");
  EXPECT_EQ(r.hosts, (Hosts{"n1", "n2"}));
  EXPECT_EQ(reason_lines(r, "acs_hint"), Lines{1});
  EXPECT_EQ(reason_lines(r, "net_error"), Lines{2});
}

TEST(NcclLogLineForms, GluedRecordsAreSplit) {
  // Two writers, the first line's newline lost.
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA b:3:4 [1] NCCL INFO Channel 00/0 : "
      "9[1] -> 1[1] [receive] via NET/IB/1/GDRDMA");
  EXPECT_EQ(r.records, 2u);
  ASSERT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.connections[0].host, "a");
  EXPECT_EQ(r.connections[1].host, "b");
  EXPECT_EQ(r.gdr_connections, 2u);
  // A record cut by the next one: the cut one is dropped, the next kept.
  auto cut = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] ->b:3:4 [1] NCCL INFO Channel 00/0 : 9[1] -> 1[1] [receive] via "
      "NET/IB/1/GDRDMA");
  EXPECT_EQ(cut.cut_lines, 1u);
  ASSERT_EQ(cut.net_connections, 1u);
  EXPECT_EQ(cut.connections[0].host, "b");
  // An empty record glued to a full one (nccl #147).
  auto empty = parse_nccl_log("a:1:2 [2] NCCL INFO a:1:3 [6] NCCL INFO Using network IB");
  EXPECT_EQ(empty.records, 2u);
  EXPECT_EQ(empty.net_transport, "IB");
}

TEST(NcclLogLineForms, CutLinesAreIgnored) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] ->\n"
      "a:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/I\n"
      "a:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 8[0] [se\n"
      "a:1:2 [0] NCCL INF\n"
      "0] -> 8[0] [send] via NET/IB/0/GDRDMA\n");
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.cut_lines, 3u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogLineForms, CrlfAndTrailingSpace) {
  auto r = parse_nccl_log("a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA  \r\n");
  ASSERT_EQ(r.net_connections, 1u);
  EXPECT_TRUE(r.connections[0].gdr);
}

TEST(NcclLogLineForms, SeveralJobsAndCommunicators) {
  auto r = parse_nccl_log(
      "h1:10:10 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n"
      "h1:10:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "h1:10:11 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
      "NCCL version 2.21.5+cuda12.4\n"
      "h1:20:21 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
      "h1:20:21 [0] NCCL INFO ncclCommInitRank comm 0x2 rank 0 nranks 16 cudaDev 0 - Init COMPLETE\n");
  EXPECT_EQ(r.nccl_version, "2.18.5+cuda12.2");
  EXPECT_EQ(r.versions, (Hosts{"2.18.5+cuda12.2", "2.21.5+cuda12.4"}));
  EXPECT_EQ(r.ranks, 16);
  // Same channel and ranks, different processes: two connections.
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
}

TEST(NcclLogLineForms, Rccl) {
  auto r = parse_nccl_log(
      "RCCL version : 2.18.3-HEAD:abc\n"
      "m:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n");
  EXPECT_TRUE(r.rccl);
  EXPECT_EQ(r.nccl_version, "2.18.3-HEAD:abc");
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  auto info = parse_nccl_log("m:1:2 [0] NCCL INFO RCCL version : 2.30.4-HEAD:2b22ab0\n");
  EXPECT_TRUE(info.rccl);
  EXPECT_EQ(info.nccl_version, "2.30.4-HEAD:2b22ab0");
  EXPECT_FALSE(parse_nccl_log("m:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n").rccl);
}

TEST(NcclLogLineForms, NcclTestsRankLinesNameHosts) {
  auto r =
      parse_nccl_log("#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n");
  EXPECT_EQ(r.hosts, Hosts{"node01"});
}

// ============================================================ channel forms

NcclConnection only_connection(const std::string& msg) {
  auto r = parse_nccl_log("h:1:2 [0] NCCL INFO " + msg);
  EXPECT_EQ(r.net_connections, 1u) << msg;
  return r.connections.empty() ? NcclConnection{} : r.connections[0];
}

TEST(NcclLogChannel, Ring24WithoutBusIds) {
  auto c = only_connection("Ring 00 : 6 -> 2 [send] via NET/IB/0/GDRDMA");
  EXPECT_EQ(c.channel, 0);
  EXPECT_EQ(c.from_rank, 6);
  EXPECT_EQ(c.to_rank, 2);
  EXPECT_EQ(c.side, NetSide::Send);
  EXPECT_TRUE(c.gdr);
}

TEST(NcclLogChannel, Ring25WithBusIds) {
  auto c = only_connection("Ring 03 : 3[b1000] -> 4[18000] [receive] via NET/IB/0");
  EXPECT_EQ(c.channel, 3);
  EXPECT_EQ(c.from_rank, 3);
  EXPECT_EQ(c.to_rank, 4);
  EXPECT_EQ(c.side, NetSide::Receive);
  EXPECT_FALSE(c.gdr);
}

TEST(NcclLogChannel, Channel27AndChannelConnIndex) {
  auto c = only_connection("Channel 07 : 3[b1000] -> 4[18000] [send] via NET/IB/2/GDRDMA");
  EXPECT_EQ(c.channel, 7);
  EXPECT_EQ(c.conn_index, 0);
  EXPECT_EQ(c.dev, 2);
  auto d = only_connection("Channel 02/1 : 0[0] -> 9[1] [send] via NET/IB/1/GDRDMA/Shared");
  EXPECT_EQ(d.channel, 2);
  EXPECT_EQ(d.conn_index, 1);
  EXPECT_EQ(d.to_rank, 9);
  EXPECT_TRUE(d.shared);
  EXPECT_TRUE(d.gdr);
}

TEST(NcclLogChannel, PxnProxyPciAndFlush) {
  auto pxn = only_connection("Channel 00/0 : 15[7] -> 0[0] [send] via NET/IBext/0(8)/GDRDMA");
  EXPECT_EQ(pxn.net, "IBext");
  EXPECT_EQ(pxn.proxy_rank, 8);
  EXPECT_TRUE(pxn.gdr);
  auto pci = only_connection("Channel 01/0 : 0[0] -> 4[0] [send] via NET/IB/1/GDRDMA(PCI)/Shared");
  EXPECT_TRUE(pci.gdr);
  EXPECT_TRUE(pci.pci);
  EXPECT_TRUE(pci.shared);
  EXPECT_FALSE(pci.proxy_rank);
  auto flush = only_connection("Channel 01/0 : 4[0] -> 0[0] [receive] via NET/IB/1/GDRDMA/flush=None");
  EXPECT_TRUE(flush.gdr);
  auto future = only_connection("Channel 01/0 : 4[0] -> 0[0] [receive] via NET/IB/1/NewFlag/GDRDMA");
  EXPECT_TRUE(future.gdr);  // unknown tokens are skipped
}

TEST(NcclLogChannel, CommSuffixAndTrailingDebris) {
  auto c = only_connection("Channel 00/0 : 16[17000] -> 24[17000] [send] via NET/IB/0/GDRDMA comm 0x5609 nRanks 32");
  EXPECT_TRUE(c.gdr);
  EXPECT_EQ(c.dev, 0);
  auto d = only_connection("Channel 00/0 : 1[0] -> 2[0] [send] via NET/IB/0 [32m [repeated 6x across cluster] [0m");
  EXPECT_FALSE(d.gdr);
}

TEST(NcclLogChannel, PluginNames) {
  EXPECT_EQ(only_connection("Channel 00/0 : 0[0] -> 8[0] [send] via NET/IBext_v8/0/GDRDMA").net, "IBext_v8");
  EXPECT_EQ(only_connection("Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/0/GDRDMA").net, "AWS Libfabric");
  EXPECT_EQ(only_connection("Channel 00/0 : 0[0] -> 8[0] [send] via NET/Libfabric/2/GDRDMA").dev, 2);
  EXPECT_EQ(only_connection("Channel 00/0 : 0[0] -> 8[0] [send] via NET/UCX/0/GDRDMA").net, "UCX");
  EXPECT_EQ(only_connection("Channel 00/1 : 1[0] -> 2[1] [receive] via NET/NCCL RDMA Plugin v6/0/GDRDMA/Shared").net,
            "NCCL RDMA Plugin v6");
  auto sock = only_connection("Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0");
  EXPECT_EQ(sock.net, "Socket");
  EXPECT_FALSE(sock.gdr);
}

TEST(NcclLogChannel, IntraNodeLinesAreCountedApart) {
  auto r = parse_nccl_log(
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:2 [0] NCCL INFO Channel 00 : 0[3000] -> 1[44000] via SHM/direct/direct\n"
      "h:1:2 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO Ring 00 : 1[1] -> 2[2] via direct shared memory\n"
      "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/indirect/2[2]\n");
  EXPECT_EQ(r.intra_node_lines, 5u);
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogChannel, RingOrderAndTreeLinesAreNotConnections) {
  auto r = parse_nccl_log(
      "h:1:2 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n"
      "h:1:2 [0] NCCL INFO Ring 00 : 7 -> 0 -> 1\n"
      "h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n"
      "h:1:2 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/IBext/0/GDRDMA\n");
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.intra_node_lines, 0u);
  EXPECT_EQ(r.cut_lines, 0u);
}

TEST(NcclLogChannel, DuplicatesFromOneProcessMerge) {
  std::string line = "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n";
  auto r = parse_nccl_log(line + line + "h:1:3 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n");
  EXPECT_EQ(r.net_connections, 1u);  // another thread of the same pid
  EXPECT_EQ(r.connections[0].line, 1u);
}

// ================================================================ verdicts

TEST(NcclLogVerdict, AllGdrIsYes) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "b:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.reason("partial_nodes"), nullptr);
}

TEST(NcclLogVerdict, SomeGdrIsPartialAndNamesTheHosts) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "b:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0\n"
      "c:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [receive] via NET/IB/1\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
  EXPECT_EQ(r.gdr_connections, 1u);
  EXPECT_EQ(reason_lines(r, "partial_nodes"), (Lines{2, 3}));
  EXPECT_TRUE(contains(message_of(r, "partial_nodes"), "hosts b, c")) << message_of(r, "partial_nodes");
}

TEST(NcclLogVerdict, PartialWithoutHostsNamesRanks) {
  auto r = parse_nccl_log(
      "[0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "[0] NCCL INFO Channel 00/0 : 3[0] -> 8[0] [send] via NET/IB/0\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
  EXPECT_TRUE(contains(message_of(r, "partial_nodes"), "ranks 3"));
}

TEST(NcclLogVerdict, NoGdrIsNo) {
  auto r = parse_nccl_log("a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
}

TEST(NcclLogVerdict, RingSummaryAloneIsUnknown) {
  for (std::string gdr : {"0", "1"}) {
    auto r = parse_nccl_log("a:1:2 [0] NCCL INFO Connected all rings, use ring PXN 1 GDR " + gdr + "\n");
    EXPECT_EQ(r.verdict, GdrVerdict::Unknown) << gdr;
    ASSERT_EQ(r.ring_summaries.size(), 1u);
    EXPECT_EQ(r.ring_summaries[0].pxn, 1);
    EXPECT_EQ(r.ring_summaries[0].gdr, gdr == "1" ? 1 : 0);
  }
}

TEST(NcclLogVerdict, ExplicitDisabledWithoutChannelsIsNo) {
  for (std::string line : {"NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
                           "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
                           "GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 6 > 4)",
                           "NCCL_NET_GDR_LEVEL set by environment to LOC"}) {
    auto r = parse_nccl_log("a:1:2 [0] NCCL INFO " + line + "\n");
    EXPECT_EQ(r.verdict, GdrVerdict::No) << line;
  }
}

TEST(NcclLogVerdict, EnabledStatementsAloneAreUnknown) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
      "a:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 1b000 / HCA 0 (distance 3 <= 4), read 1\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_TRUE(contains(r.verdict_why, "capability"));
}

TEST(NcclLogVerdict, MixedStatementsWithoutChannelsArePartial) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 1b000 / HCA 0 (distance 3 <= 4), read 1\n"
      "a:1:2 [1] NCCL INFO GPU Direct RDMA Disabled for GPU 3d000 / HCA 0 (distance 7 > 4)\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
}

TEST(NcclLogVerdict, ChannelsOutrankStatements) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n"
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(reason_lines(r, "gdr_disabled_no_module"), Lines{1});
}

TEST(NcclLogVerdict, SocketNetworkIsNo) {
  auto r = parse_nccl_log("a:1:2 [0] NCCL INFO Using network Socket\n");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.net_transport, "Socket");
  EXPECT_EQ(reason_lines(r, "socket_fallback"), Lines{1});
}

TEST(NcclLogVerdict, NothingIsUnknown) {
  auto r = parse_nccl_log("hello\nworld\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_EQ(r.records, 0u);
  EXPECT_EQ(r.lines, 2u);
}

// ================================================================ distance

TEST(NcclLogDistance, NamesPerVersion) {
  // nccl-spec §1.1.
  EXPECT_EQ(nccl_distance_name({2, 4, 8}, 3), "NODE");
  EXPECT_EQ(nccl_distance_name({2, 5, 6}, 2), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 6, 4}, 4), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 7, 8}, 6), "NET");
  EXPECT_EQ(nccl_distance_name({2, 8, 4}, 5), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 11, 4}, 6), "SYS");
  EXPECT_EQ(nccl_distance_name({2, 12, 12}, 5), "PXN");
  EXPECT_EQ(nccl_distance_name({2, 12, 12}, 6), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 17, 1}, 8), "?");
  EXPECT_EQ(nccl_distance_name({2, 18, 3}, 8), "NET");
  EXPECT_EQ(nccl_distance_name({2, 21, 5}, 4), "PXB");
  EXPECT_EQ(nccl_distance_name({2, 25, 1}, 6), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 26, 6}, 3), "C2C");
  EXPECT_EQ(nccl_distance_name({2, 26, 6}, 7), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 27, 3}, 7), "P2C");
  EXPECT_EQ(nccl_distance_name({2, 27, 3}, 8), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 27, 5}, 6), "P2C");
  EXPECT_EQ(nccl_distance_name({2, 27, 5}, 7), "PXN");
  EXPECT_EQ(nccl_distance_name({2, 27, 5}, 8), "PHB");
  EXPECT_EQ(nccl_distance_name({2, 30, 7}, 9), "SYS");
  EXPECT_EQ(nccl_distance_name({2, 30, 7}, 12), "?");
  EXPECT_EQ(nccl_distance_name({2, 30, 7}, -1), "?");
}

TEST(NcclLogDistance, TranslatedWithTheVersionInForce) {
  auto r = parse_nccl_log(
      "NCCL version 2.26.6+cuda12.8\n"
      "a:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 3 / HCA 1 (distance 7 > 5)\n"
      "NCCL version 2.27.7+cuda12.9\n"
      "a:3:4 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 3 / HCA 1 (distance 8 > 5)\n"
      "a:3:4 [0] NCCL INFO GPU Direct RDMA Disabled for GPU/0-3 (rank 3) - NET/0-1 (distance 9 > 6)\n");
  std::vector<std::string> messages;
  for (const auto& reason : r.reasons)
    if (reason.code == "gdr_distance") messages.push_back(reason.message);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_TRUE(contains(messages[0], "7 (PHB) > 5 (PXB) in NCCL 2.26.6")) << messages[0];
  EXPECT_TRUE(contains(messages[1], "8 (PHB) > 5 (PXB) in NCCL 2.27.7")) << messages[1];
  EXPECT_TRUE(contains(messages[2], "9 (SYS) > 6 (P2C)")) << messages[2];
}

TEST(NcclLogDistance, LogVersionWinsOverAssumed) {
  auto r = parse_nccl_log(
      "NCCL version 2.12.12+cuda11.6\n"
      "a:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 6 > 4)\n",
      NcclVersion{2, 27, 5});
  EXPECT_TRUE(contains(message_of(r, "gdr_distance"), "6 (PHB) > 4 (PXB) in NCCL 2.12.12"));
}

TEST(NcclLogDistance, Old24LineFormat) {
  auto r = parse_nccl_log(
      "NCCL version 2.4.8+cuda10.1\n"
      "m:1:2 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 4 >= 2)\n");
  EXPECT_TRUE(contains(message_of(r, "gdr_distance"), "4 (SYS) >= 2 (PHB)"));
}

// ================================================================= reasons

TEST(NcclLogReasons, SocketFallbackCauses) {
  struct Case {
    std::string line, cause;
  };
  for (const Case& c :
       {Case{"NET/IB : No device found.", "No device found"}, Case{"Failed to open libibverbs.so[.1]", "libibverbs"},
        Case{"Failed to initialize NET plugin IB", "failed to initialize"},
        Case{"NCCL_IB_DISABLE set by environment to 1.", "NCCL_IB_DISABLE=1"},
        Case{"NCCL_NET set by environment to Socket", "NCCL_NET=Socket"}}) {
    auto r = parse_nccl_log("a:1:2 [0] NCCL INFO " + c.line + "\na:1:2 [0] NCCL INFO Using network Socket\n");
    EXPECT_EQ(r.verdict, GdrVerdict::No) << c.line;
    EXPECT_TRUE(contains(message_of(r, "socket_fallback"), c.cause)) << message_of(r, "socket_fallback");
    EXPECT_EQ(reason_lines(r, "socket_fallback"), (Lines{1, 2})) << c.line;
  }
}

TEST(NcclLogReasons, IbFailureIgnoredWhenAnotherNetworkIsUsed) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NET/IB : No device found.\n"
      "a:1:2 [0] NCCL INFO Using network AWS Libfabric\n");
  EXPECT_EQ(r.reason("socket_fallback"), nullptr);
  EXPECT_EQ(r.net_transport, "AWS Libfabric");
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

TEST(NcclLogReasons, SendSideWithoutGdr) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
      "a:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0\n");
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
  EXPECT_EQ(reason_lines(r, "send_side_no_gdr"), (Lines{2, 3}));
  EXPECT_EQ(r.reason("send_side_no_gdr")->count, 2u);
}

// NCCL says GDR is enabled for the HCAs (the NIC side is ready), yet the
// connections do not use it: the reason points at the per-pair decision,
// not at peer memory. Real: vllm-dgx-spark #1 (DMA-BUF, IBext_v10).
TEST(NcclLogReasons, HcaEnabledButConnectionsWithoutGdr) {
  auto r = parse_nccl_log(testing::read_test_data("nccl-logs/vllm-dgx-spark-1-nested-ray-dmabuf-ibext-v10.log"));
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  ASSERT_NE(r.reason("gdr_enabled_unused"), nullptr);
  EXPECT_EQ(reason_lines(r, "gdr_enabled_unused"), (Lines{2, 6}));
  EXPECT_TRUE(contains(message_of(r, "gdr_enabled_unused"), "(DMA-BUF) enabled for 2 HCA"));
  EXPECT_TRUE(contains(message_of(r, "gdr_enabled_unused"), "NCCL_NET_GDR_LEVEL"));
  // Every connection on GDRDMA: nothing to explain.
  auto used = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
      "a:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n");
  EXPECT_EQ(used.reason("gdr_enabled_unused"), nullptr);
  EXPECT_EQ(used.verdict, GdrVerdict::Yes);
}

// IB completion errors in every release's format: the transfers failed.
TEST(NcclLogReasons, IbCompletionErrorsOfEachFormat) {
  auto r = parse_nccl_log(
      "a:1:2 [0] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with error 12, "
      "opcode 0, len 0, vendor err 129\n"
      "a:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with status=5 opcode=0 len=0 vendor err "
      "249\n"
      "a:1:2 [0] NCCL WARN NET/IB: Got completion from peer 10.0.0.3<4243> with status=IBV_WC_RETRY_EXC_ERR(12) "
      "opcode=IBV_WC_SEND(0) vendor_err=129 hca mlx5_0\n");
  const NcclReason* retry = r.reason("ib_completion_error");
  ASSERT_NE(retry, nullptr);
  EXPECT_TRUE(contains(retry->message, "IB completion error 12 (transport retry counter exceeded)")) << retry->message;
  EXPECT_TRUE(contains(retry->message, "NCCL_IB_TIMEOUT"));
  std::size_t twelve = 0, five = 0;
  for (const auto& x : r.reasons) {
    twelve += x.code == "ib_completion_error" && contains(x.message, "error 12") ? x.count : 0;
    five += x.code == "ib_completion_error" && contains(x.message, "error 5") ? x.count : 0;
  }
  EXPECT_EQ(twelve, 2u);
  EXPECT_EQ(five, 1u);
  // The real one of NVIDIA/nccl#928: status 4 with the ACS hint too.
  auto acs = parse_nccl_log(nccl_log_text("nccl-928-warn-error4-acs.log"));
  ASSERT_NE(acs.reason("ib_completion_error"), nullptr);
  EXPECT_EQ(acs.reason("ib_completion_error")->count, 3u);
  EXPECT_NE(acs.reason("acs_hint"), nullptr);
  EXPECT_EQ(parse_nccl_log("a:1:2 [0] NCCL WARN NET/IB : got async event\n").reason("ib_completion_error"), nullptr);
}

TEST(NcclLogReasons, GdrLevelEnvironment) {
  auto forced = parse_nccl_log("a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS\n");
  EXPECT_EQ(reason_lines(forced, "gdr_forced"), Lines{1});
  auto legacy = parse_nccl_log("a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to 5.\n");
  EXPECT_EQ(reason_lines(legacy, "gdr_forced"), Lines{1});
  EXPECT_EQ(env_echo(legacy, "NCCL_NET_GDR_LEVEL"), "5");
  auto limit = parse_nccl_log("a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PIX\n");
  EXPECT_EQ(reason_lines(limit, "gdr_level_env"), Lines{1});
  auto off = parse_nccl_log("a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to 0.\n");
  EXPECT_EQ(reason_lines(off, "gdr_disabled_env"), Lines{1});
  auto read = parse_nccl_log("a:1:2 [0] NCCL INFO NCCL_NET_GDR_READ set by environment to 0.\n");
  EXPECT_EQ(reason_lines(read, "gdr_read_disabled"), Lines{1});
}

TEST(NcclLogReasons, EnvEchoes) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1\n"
      "a:1:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0.\n"
      "a:1:2 [0] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.\n"
      "a:1:3 [0] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.\n");
  ASSERT_EQ(r.env.size(), 3u);
  EXPECT_EQ(env_echo(r, "NCCL_IB_HCA"), "mlx5_0,mlx5_1");
  EXPECT_EQ(env_echo(r, "NCCL_SOCKET_IFNAME"), "eth0.");  // only integers lose the period
  EXPECT_EQ(env_echo(r, "NCCL_IB_TIMEOUT"), "22");
  const NcclReason* timeout = nullptr;
  for (const auto& reason : r.reasons)
    if (reason.code == "env" && contains(reason.message, "NCCL_IB_TIMEOUT")) timeout = &reason;
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->lines, (Lines{3, 4}));
}

TEST(NcclLogReasons, AcsHintForms) {
  for (std::string w : {"NET/IB : Got completion from peer 1.2.3.4<5> with status=4 opcode=0 len=0 vendor err 81",
                        "NET/IB : Got completion with error 4, opcode 1, len 21938, vendor err 81",
                        "NET/IB : IBV_WC_LOC_PROT_ERR: check ACS", "NET/IB: local protection error"}) {
    auto r = parse_nccl_log("a:1:2 [0] transport/net_ib.cc:1 NCCL WARN " + w + "\n");
    EXPECT_EQ(reason_lines(r, "acs_hint"), Lines{1}) << w;
  }
  auto other = parse_nccl_log("a:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion with status=12 opcode=1\n");
  EXPECT_EQ(other.reason("acs_hint"), nullptr);
  EXPECT_EQ(reason_lines(other, "net_error"), Lines{1});
}

TEST(NcclLogReasons, RoceGid) {
  auto r = parse_nccl_log("a:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Unable to find GID index 3 for mlx5_0\n");
  EXPECT_EQ(reason_lines(r, "roce_gid"), Lines{1});
  // "localGid"/"remoteGids" in completion errors are not GID problems.
  auto c = parse_nccl_log(
      "a:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer x with status=12 localGid ::1 "
      "remoteGids::2\n");
  EXPECT_EQ(c.reason("roce_gid"), nullptr);
}

TEST(NcclLogReasons, MergedDeviceList) {
  auto r = parse_nccl_log(
      "a:1:2 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]mlx5_2:1/RoCE [RO]; OOB "
      "ib0:10.0.0.1<0>\n");
  EXPECT_EQ(r.net_devices, (Hosts{"mlx5_0:1/IB", "mlx5_1:1/IB", "mlx5_2:1/RoCE"}));
  EXPECT_EQ(r.net_transport, "IB");
}

// ================================================================= bounded

TEST(NcclLogBounded, MillionIdenticalLines) {
  NcclLogParser p;
  const std::string line = "node1:1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0";
  const std::string warn = "node1:1234:1300 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion with error 4, opcode 0";
  for (int i = 0; i < 1000000; ++i) p.feed(i % 2 ? warn : line);
  auto r = p.finish();
  EXPECT_EQ(r.lines, 1000000u);
  EXPECT_EQ(r.connections.size(), 1u);
  EXPECT_EQ(r.hosts.size(), 1u);
  ASSERT_NE(r.reason("acs_hint"), nullptr);
  EXPECT_EQ(r.reason("acs_hint")->count, 500000u);
  EXPECT_EQ(r.reason("acs_hint")->lines, (Lines{2, 4, 6, 8, 10}));
  for (const auto& reason : r.reasons) EXPECT_LE(reason.lines.size(), kNcclEvidenceLines);
  EXPECT_EQ(r.verdict, GdrVerdict::No);
}

TEST(NcclLogBounded, DistinctConnectionsAreCapped) {
  NcclLogParser p;
  const std::size_t n = kNcclMaxConnections + 1000;
  for (std::size_t i = 0; i < n; ++i)
    p.feed("h:1:2 [0] NCCL INFO Channel " + std::to_string(i) + "/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA");
  auto r = p.finish();
  EXPECT_EQ(r.connections.size(), kNcclMaxConnections);
  EXPECT_EQ(r.connections_dropped, 1000u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
}

TEST(NcclLogBounded, ManyHostsEnvAndVersionsStayBounded) {
  NcclLogParser p;
  for (int i = 0; i < 20000; ++i) {
    std::string n = std::to_string(i);
    p.feed("host" + n + ":1:2 [0] NCCL INFO NCCL_X" + n + " set by environment to " + n);
    p.feed("NCCL version 2." + n + ".0");
  }
  auto r = p.finish();
  EXPECT_LE(r.hosts.size(), 1024u);
  EXPECT_LE(r.versions.size(), 1024u);
  EXPECT_LE(r.env.size(), 256u);
  EXPECT_LE(r.reasons.size(), 256u);
}

// ================================================================ detection

TEST(NcclLogDetect, RecognisesLogs) {
  EXPECT_TRUE(looks_like_nccl_log(nccl_log_text("nccl-1189-h20-ib-gdrdma.log")));
  EXPECT_TRUE(looks_like_nccl_log(nccl_log_text("nccl-tests-245-ofi-no-host-prefix.log")));
  EXPECT_TRUE(looks_like_nccl_log(nccl_log_text("nccl-1710-markdown-quoted-warn.log")));
  EXPECT_TRUE(looks_like_nccl_log("some output\nNCCL version 2.18.5+cuda12.0\n"));
  EXPECT_TRUE(looks_like_nccl_log("RCCL version : 2.21.5-HEAD:9a0e6a1\n"));
}

TEST(NcclLogDetect, RejectsOtherText) {
  EXPECT_FALSE(looks_like_nccl_log(""));
  EXPECT_FALSE(looks_like_nccl_log("\tGPU0\tNIC0\nGPU0\t X \tPIX\n"));
  EXPECT_FALSE(looks_like_nccl_log("look for NCCL INFO lines in the log\n"));
  EXPECT_FALSE(looks_like_nccl_log("NCCL version unknown\n"));
}

// Lines whose "host:pid:tid [dev] NCCL INFO" prefix was cut, as documents
// and tickets quote them: the message shapes alone show an NCCL log.
TEST(NcclLogDetect, RecognisesPrefixStrippedMessages) {
  EXPECT_TRUE(looks_like_nccl_log("NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>\n"));
  EXPECT_TRUE(looks_like_nccl_log("> `Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA`\n"));
  EXPECT_TRUE(looks_like_nccl_log("NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'\n"));
  EXPECT_TRUE(looks_like_nccl_log("NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE\n"));
  EXPECT_TRUE(looks_like_nccl_log("we saw NET/IBP:Got completion from peer 1.2.3.4<5> with status=12 opcode=0\n"));
}

TEST(NcclLogDetect, RecognisesAWarnThatOnlyNamesItsSourceLine) {
  EXPECT_TRUE(looks_like_nccl_log("misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed\n"));
  EXPECT_TRUE(looks_like_nccl_log("\xE2\x80\x9Dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\n"));
  EXPECT_FALSE(looks_like_nccl_log("see ibvwrap.cc: NCCL WARN lines there\n"));
}

TEST(NcclLogDetect, RejectsProseThatOnlyNamesNcclThings) {
  EXPECT_FALSE(looks_like_nccl_log("Channel 4 is the one we use\nNET/0-0 (3/12.0/P2C)\n"));
  EXPECT_FALSE(looks_like_nccl_log("NET/IB is what NCCL uses: Using [0] means device 0\n"));
  EXPECT_FALSE(looks_like_nccl_log("Got completion from peer is a WARN NCCL prints\n"));
  EXPECT_FALSE(looks_like_nccl_log("GPU Direct RDMA Enabled for HCA means the module is loaded\n"));
}

// A stripped line is read as an INFO record of an unknown host; prose and
// fragments that do not start like a message are not.
TEST(NcclLogStripped, MessagesWithoutPrefixAreRead) {
  auto r = parse_nccl_log(
      "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"
      "  `Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA`\n"
      "Channel 02/0 : 8[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
      "NCCL_NET_GDR_LEVEL set by environment to PHB\n"
      "Channel coverage was fine, NET/0-0 (3/12.0/P2C)\n"
      "Using network bonding, we saw no change\n"
      "Using network IB\n");
  EXPECT_EQ(r.records, 5u);
  EXPECT_EQ(r.net_devices, std::vector<std::string>{"mlx5_0:1/RoCE"});
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_TRUE(r.hosts.empty());
  ASSERT_NE(r.env_value("NCCL_NET_GDR_LEVEL"), nullptr);
  EXPECT_EQ(r.net_transport, "IB");
}

// A completion error quoted without its prefix is a WARN like any other:
// counted once, with the protection hint when its status is 4.
TEST(NcclLogStripped, CompletionErrorWithoutPrefixCountsOnce) {
  auto r = parse_nccl_log(
      "NET/IB : Got completion from peer 10.0.0.2<1234> with status=IBV_WC_LOC_PROT_ERR(4) opcode=0 len=0\n"
      "Got completion from peer 10.0.0.2<1234> with status=12 opcode=0 len=0 vendor err 129\n");
  std::size_t errors = 0;
  for (const auto& reason : r.reasons)
    if (reason.code == "ib_completion_error") errors += reason.count;
  EXPECT_EQ(errors, 2u);
  EXPECT_EQ(reason_lines(r, "acs_hint"), Lines{1});
}

// The built-in transport can use DMA-BUF, the plugin in use says Disabled
// for the same HCA: the plugin's statement explains connections without
// GDRDMA, not a per-pair distance decision.
TEST(NcclLogStripped, PluginDisabledBesideBuiltInEnabledIsNotPerPair) {
  auto r = parse_nccl_log(
      "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'roce0'\n"
      "NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'roce0'\n"
      "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/NCCL RDMA Plugin v10/0\n");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.reason("gdr_enabled_unused"), nullptr);
  ASSERT_NE(r.reason("gdr_disabled_no_module"), nullptr);
  EXPECT_NE(r.reason("gdr_disabled_no_module")->message.find("NET/NCCL RDMA Plugin v10 reports"), std::string::npos);
}

// Failed verbs calls name the call; quotes around a quoted WARN are the
// poster's.
TEST(NcclLogWarnings, FailedVerbsCallsAreNamed) {
  auto r = parse_nccl_log(
      "h:1:2 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed\n"
      "h:1:3 [5] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed`\n"
      "h:1:3 [5] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported\n");
  std::vector<std::string> calls;
  for (const auto& reason : r.reasons)
    if (reason.code == "ib_verbs_failed") calls.push_back(reason.message.substr(0, reason.message.find(" call")));
  EXPECT_EQ(calls, (std::vector<std::string>{"NCCL's ibv_create_qp", "NCCL's ibv_create_cq"}));
  EXPECT_EQ(reason_lines(r, "dmabuf_registration_failed"), Lines{3});
  EXPECT_EQ(r.reason("nccl_warn"), nullptr);
  for (const auto& reason : r.reasons) EXPECT_EQ(reason.message.find('`'), std::string::npos) << reason.message;
}

// A call made while NCCL looks for devices only skips that device (NCCL may
// still choose another network): not the failed-connection reason.
TEST(NcclLogWarnings, FailedDeviceLookupIsNotAFailedConnection) {
  auto r = parse_nccl_log(
      "h:1:2 [0] misc/ibvwrap.cc:106 NCCL WARN Call to ibv_open_device failed\n"
      "h:1:2 [0] misc/ibvwrap.cc:120 NCCL WARN Call to ibv_query_port failed\n");
  EXPECT_EQ(r.reason("ib_verbs_failed"), nullptr);
  std::size_t init_reasons = 0;  // one per call
  for (const auto& reason : r.reasons) init_reasons += reason.code == "ib_init_failed";
  EXPECT_EQ(init_reasons, 2u);
  ASSERT_NE(r.reason("ib_init_failed"), nullptr);
  EXPECT_NE(r.reason("ib_init_failed")->message.find("skips that device"), std::string::npos);
}

// ================================================================ robustness

TEST(NcclLogRobust, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  const std::string alphabet = "NCL INFOWARchnel0123456789[]:/->() \tsendrcivaGDRMA\r\x1b\xff";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
    if (round % 3 == 0) text = "h:1:2 [0] NCCL INFO Channel 00/0 : " + text;
    auto r = parse_nccl_log(text);
    EXPECT_EQ(r.net_connections, r.connections.size());
    EXPECT_LE(r.gdr_connections, r.net_connections);
  }
}

// NIC rates: the real topology dump of nccl-1053 (line 13, "+ NET[1.2] -
// NET/0 (0/0/1.250000)" on host axa: lo at the 10 Gb/s default of line 8).
TEST(NcclLogSpeeds, TopologyDumpOfARealLog) {
  auto r = load_nccl_log("nccl-1053-socket-ib-disabled-lo.log");
  ASSERT_EQ(r.net_device_speeds.size(), 1u);
  const auto& d = r.net_device_speeds[0];
  EXPECT_EQ(d.name, "NET/0");
  EXPECT_EQ(d.port, 0);
  EXPECT_DOUBLE_EQ(d.speed_mbps, 10000);
  EXPECT_EQ(d.link_layer, "");
  EXPECT_EQ(d.host, "axa");
  EXPECT_EQ(d.line, 13u);
}

TEST(NcclLogSpeeds, NoneWhenTheLogPrintsNone) {
  for (const char* name :
       {"nccl-1189-h20-ib-gdrdma.log", "nccl-179-v2.3.7-ib-devices.log", "nccl-147-glued-writers.log"})
    EXPECT_TRUE(load_nccl_log(name).net_device_speeds.empty()) << name;
}

TEST(NcclLogSpeeds, OnePerHostAndName) {
  auto r = parse_nccl_log(
      "n1:1:1 [0] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x1 ar=1\n"
      "n1:2:2 [1] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x2 ar=1\n"
      "n2:1:1 [0] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/RoCE provider=Mlx5 speed=200000 context=0x1 ar=0\n"
      "n2:1:1 [0] NCCL INFO NET/IB : Made virtual device [1] name=mlx5_0+mlx5_1 speed=400000 ndevs=2\n");
  ASSERT_EQ(r.net_device_speeds.size(), 3u);
  EXPECT_EQ(r.net_device_speeds[0].host, "n1");
  EXPECT_EQ(r.net_device_speeds[0].line, 1u);
  EXPECT_EQ(r.net_device_speeds[1].host, "n2");
  EXPECT_EQ(r.net_device_speeds[1].link_layer, "RoCE");
  EXPECT_DOUBLE_EQ(r.net_device_speeds[1].speed_mbps, 200000);
  EXPECT_EQ(r.net_device_speeds[2].name, "mlx5_0+mlx5_1");
  EXPECT_FALSE(r.net_device_speeds[2].port);
}

// Repeated lines are replayed from the memo: the counts must be those of
// parsing every line.
TEST(NcclLogRepeats, RepeatedLinesCountLikeParsedOnes) {
  std::string block =
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"
      "h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/0\n";
  std::string text;
  for (int i = 0; i < 5; ++i) text += block;
  auto r = parse_nccl_log(text);
  EXPECT_EQ(r.lines, 20u);
  EXPECT_EQ(r.records, 20u);
  EXPECT_EQ(r.intra_node_lines, 5u);
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.gdr_connections, 1u);
  EXPECT_EQ(r.connections[1].line, 4u);
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
}

TEST(NcclLogRepeats, DroppedConnectionsAreCountedEveryTime) {
  std::string text;
  for (std::size_t i = 0; i <= kNcclMaxConnections; ++i)
    text += "h:1:1 [0] NCCL INFO Channel 00/0 : " + std::to_string(i) + "[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n";
  std::string last = "h:1:1 [0] NCCL INFO Channel 00/0 : " + std::to_string(kNcclMaxConnections) +
                     "[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n";
  text += last + last;
  auto r = parse_nccl_log(text);
  EXPECT_EQ(r.net_connections, kNcclMaxConnections);
  EXPECT_EQ(r.connections_dropped, 3u);
  EXPECT_EQ(r.records, kNcclMaxConnections + 3);
}

}  // namespace
}  // namespace gdrcheck

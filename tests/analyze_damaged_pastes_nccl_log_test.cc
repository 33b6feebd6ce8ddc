// `gdrcheck analyze` on the damaged pastes of tests/data/pastes (see its
// PROVENANCE.md for each file's source, damage and correct reading).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"
#include "report/analyze_text.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::contains;
using testing::test_data;

Artifact analyze_nccl_log_paste(const std::string& file) {
  return analyze_file(test_data("pastes/nccl-log/" + file));
}

std::size_t completion_lines(const NcclLogReport& r, int status) {
  std::size_t n = 0;
  for (const auto& reason : r.reasons)
    if (reason.code == "ib_completion_error" &&
        reason.message.rfind("IB completion error " + std::to_string(status) + " ", 0) == 0)
      n += reason.count;
  return n;
}

// Three WARNs from the RDMA-SHARP plugin's source (ib_plugin.c), each with
// status=12, vendor err 129, Recv, on kp-ddp-worker-0 GPU 4; the "-> 6"
// lines are the proxy returning a remote error. The job failed on retry
// exhaustion; nothing is shown about connections or GDR.
TEST(AnalyzeDamagedNcclLog, Nccl1405PluginStatus12IsCritical) {
  Artifact a = analyze_nccl_log_paste("nccl-1405-ib-plugin-status12-vendor129-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  EXPECT_TRUE(contains(a.verdict, "(3 completion error lines)")) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(completion_lines(r, 12), 3u);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"kp-ddp-worker-0"});
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_TRUE(r.nccl_version.empty());
}

// The description's first line has the inline-code backquote glued to the
// host. status=12 (vendor err 129) comes first; the two status=5 lines
// (vendor err 249) are flushed work requests that follow it. The verdict
// leads with 12, and 5 is still reported as what it is.
TEST(AnalyzeDamagedNcclLog, Nccl1814BacktickStatus12LeadsOverFlush) {
  Artifact a = analyze_nccl_log_paste("nccl-1814-description-backtick-status12-then-5-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(completion_lines(r, 12), 1u);
  EXPECT_EQ(completion_lines(r, 5), 2u);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"hostname-test"});  // the backquote is not part of it
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

// The error is quoted inside a sentence, with no host/pid/rank prefix and no
// "NCCL WARN": "NET/IBP:Got completion from peer 7.6.13.83<36315> with
// status=12 ... vendor err 129 (Send)". It is an NCCL log line, and it says
// the job's transfers failed; nothing else (version, devices, GDR) is shown.
TEST(AnalyzeDamagedNcclLog, Nccl1664Status12InProseIsCritical) {
  Artifact a = analyze_nccl_log_paste("nccl-1664-ibp-status12-in-prose.log");
  EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(completion_lines(r, 12), 1u);
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_TRUE(r.nccl_version.empty());
  EXPECT_TRUE(r.net_devices.empty());
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

// Every line stripped of its prefix. NCCL 2.27.3, RDMA-SHARP plugin v9 over
// eight RoCE bonds (the author elided bonds 2-6 with "..."); GDR available
// by peer memory and by DMA-BUF; the one connection shown, channel 03 send,
// runs via NET/NCCL RDMA Plugin v9/3/GDRDMA.
TEST(AnalyzeDamagedNcclLog, DocRoceBondStrippedPrefixGdrdmaIsOk) {
  Artifact a = analyze_nccl_log_paste("doc-roce-bond-prefix-stripped-dmabuf-peermem.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Ok) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.nccl_version, "2.27.3+cuda12.9");
  EXPECT_EQ(r.verdict, GdrVerdict::Yes);
  EXPECT_EQ(r.net_transport, "NCCL RDMA Plugin v9");
  ASSERT_EQ(r.connections.size(), 1u);
  const NcclConnection& c = r.connections[0];
  EXPECT_EQ(c.channel, 3);
  EXPECT_EQ(c.from_rank, 11);
  EXPECT_EQ(c.to_rank, 3);
  EXPECT_EQ(c.side, NetSide::Send);
  EXPECT_EQ(c.dev, 3);
  EXPECT_TRUE(c.gdr);
  EXPECT_TRUE(c.host.empty());
  EXPECT_TRUE(r.hosts.empty());
  // The named bonds are read; the elided ones are not invented.
  EXPECT_EQ(r.net_devices,
            (std::vector<std::string>{"mlx5_bond_0:1/RoCE", "mlx5_bond_1:1/RoCE", "mlx5_bond_7:1/RoCE"}));
  EXPECT_EQ(r.reason("ib_completion_error"), nullptr);
}

// Two fenced blocks of prefix-stripped lines with the author's sentence
// between them. The built-in IB transport can use DMA-BUF for rocep1s0f0,
// but the plugin in use says GPU Direct RDMA Disabled for the same HCA, and
// the connection runs via NET/NCCL RDMA Plugin v10/0 without GDRDMA: GDR is
// not used, and the plugin's statement (not a per-pair distance) says why.
TEST(AnalyzeDamagedNcclLog, DocGb10PluginDisabledIsCritical) {
  Artifact a = analyze_nccl_log_paste("doc-gb10-roce-dmabuf-enabled-plugin-disabled.log");
  EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.net_transport, "NCCL RDMA Plugin v10");
  EXPECT_EQ(r.net_devices, std::vector<std::string>{"rocep1s0f0:1/RoCE"});
  ASSERT_EQ(r.connections.size(), 1u);
  EXPECT_EQ(r.connections[0].side, NetSide::Receive);
  EXPECT_FALSE(r.connections[0].gdr);
  const NcclReason* off = r.reason("gdr_disabled_no_module");
  ASSERT_NE(off, nullptr);
  EXPECT_TRUE(contains(off->message, "NET/NCCL RDMA Plugin v10 ")) << off->message;
  EXPECT_EQ(r.reason("gdr_enabled_unused"), nullptr);  // the plugin's statement explains it
  EXPECT_TRUE(r.nccl_version.empty());
}

// A k9s log panel copied whole: every line framed by the panel's border
// ("│ " before, padding and "│" after), the last one without its border.
// Four network connections (channels 00 and 01, receive 3->0 and send
// 1->2, two processes of task-420-bzbzn) via NET/IB/0, none with GDRDMA,
// and one P2P/IPC line inside the node.
TEST(AnalyzeDamagedNcclLog, Nccl719BoxBorderedNoGdrIsCritical) {
  Artifact a = analyze_nccl_log_paste("nccl-719-k9s-box-border-padded-no-gdr.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.hosts, std::vector<std::string>{"task-420-bzbzn"});
  ASSERT_EQ(r.net_connections, 4u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_EQ(r.intra_node_lines, 1u);
  for (const auto& c : r.connections) {
    EXPECT_EQ(c.net, "IB");
    EXPECT_EQ(c.dev, 0);
    EXPECT_EQ(c.side, c.to_rank == 0 ? NetSide::Receive : NetSide::Send);
  }
  EXPECT_EQ(r.reason("ib_completion_error"), nullptr);
}

// The WARN quoted as inline code inside the poster's sentence ("problem 1:
// one pod hang with error message: `task-646--1-mhpnk:... NCCL WARN ...`"),
// in the <= 2.18 wording "with error 12, opcode 1, len 0, vendor err 129".
// The pod name is the host; the job failed on retry exhaustion.
TEST(AnalyzeDamagedNcclLog, Nccl733InlineCodeWarnInProseIsCritical) {
  Artifact a = analyze_nccl_log_paste("nccl-733-warn-inline-code-in-prose-error12.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 12 (transport retry counter exceeded)", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(completion_lines(r, 12), 1u);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"task-646--1-mhpnk"});
  const NcclReason* warn = r.reason("net_error");
  ASSERT_NE(warn, nullptr);
  EXPECT_FALSE(contains(warn->message, "`")) << warn->message;  // the closing backquote is not NCCL's
  EXPECT_EQ(r.net_connections, 0u);
}

// Only flushed work requests (error 5, vendor err 249, the <= 2.18 wording
// from the RDMA-SHARP plugin) on gh-3714u15: the error that broke the
// connection is not in the excerpt. CRITICAL, saying 5 follows an earlier
// error rather than inventing one.
TEST(AnalyzeDamagedNcclLog, Nccl1737FlushOnlyIsCriticalWithoutInventedCause) {
  Artifact a = analyze_nccl_log_paste("nccl-1737-turn2-flush-error5-only-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("IB completion error 5 (work request flushed): follows an earlier error", 0), 0u)
      << a.verdict;
  EXPECT_TRUE(contains(a.verdict, "(4 completion error lines)")) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(completion_lines(r, 5), 4u);
  EXPECT_EQ(completion_lines(r, 12), 0u);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"gh-3714u15"});
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
}

// The shell prompt above the log lost its first letter ("oot@gh-3714u06:")
// and carries NCCL_NET_GDR_LEVEL=0 on the command line; NCCL 2.21.5 prints
// its version bare, loads the RDMA-SHARP plugin (IBext_v8). Cut before the
// device list: no connection and no statement NCCL made about GDR, so
// UNKNOWN; the prompt's host is not a log host.
TEST(AnalyzeDamagedNcclLog, Nccl1737PromptCutBeforeDevicesIsUnknown) {
  Artifact a = analyze_nccl_log_paste("nccl-1737-prompt-cut-gdr-level-0-command.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.nccl_version, "2.21.5+cuda12.4");
  EXPECT_EQ(r.hosts, std::vector<std::string>{"gh-3714u06"});
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_TRUE(r.net_devices.empty());
  EXPECT_EQ(r.env_value("NCCL_NET_GDR_LEVEL"), nullptr);  // set on a command line, not echoed by NCCL
  EXPECT_EQ(r.reason("ib_completion_error"), nullptr);
}

// An excerpt from the middle of a log (NCCL 2.5 era, per-pair statements
// at INFO): with NCCL_NET_GDR_LEVEL=PHB echoed, GPUs 86000 and af000 are
// enabled (distance 4 <= 4), 18000 and 3b000 disabled (distance 5 > 4).
// No connection lines: partial by NCCL's own statements, and the version
// needed to name the distances is not printed.
TEST(AnalyzeDamagedNcclLog, Dle383DistanceStatementsArePartial) {
  Artifact a = analyze_nccl_log_paste("dle-383-distance-enabled-disabled-phb.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Warning) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::Partial);
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"node-1"});
  ASSERT_NE(r.env_value("NCCL_NET_GDR_LEVEL"), nullptr);
  EXPECT_EQ(r.env_value("NCCL_NET_GDR_LEVEL")->value, "PHB");
  const NcclReason* d = r.reason("gdr_distance");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->count, 5u);
  EXPECT_TRUE(contains(d->message, "5 > 4")) << d->message;
  EXPECT_TRUE(contains(d->message, "does not print")) << d->message;
}

// One WARN line, quoted without host, pid or device: only NCCL's source
// location ("misc/ibvwrap.cc:288") is left before the marker. DMA-BUF
// registration of GPU memory failed ("Operation not supported"); the line
// shows neither connections nor GDR use.
TEST(AnalyzeDamagedNcclLog, Nccl778LocatedWarnDmabufRegistrationFailed) {
  Artifact a = analyze_nccl_log_paste("nccl-778-warn-no-host-dmabuf-reg-failed.log");
  EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  const NcclReason* dmabuf = r.reason("dmabuf_registration_failed");
  ASSERT_NE(dmabuf, nullptr);
  EXPECT_TRUE(contains(dmabuf->message, "Operation not supported")) << dmabuf->message;
  EXPECT_TRUE(contains(dmabuf->message, "NCCL_DMABUF_ENABLE=0")) << dmabuf->message;
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_EQ(r.reason("ib_completion_error"), nullptr);
}

// The poster's sentence, the WARN between curly quotes (with no host), then
// an unfenced NCCL 2.7.8 log of node08: IB over mlx5_0, NCCL_IB_DISABLE=0.
// Cut before any connection. What is read: ibv_create_qp failed while a
// connection was set up, so the job failed (CRITICAL); nothing about GDR.
TEST(AnalyzeDamagedNcclLog, Nccl1129CurlyQuotedWarnThenUnfencedLog) {
  Artifact a = analyze_nccl_log_paste("nccl-1129-curly-quoted-warn-then-unfenced-log-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("NCCL's ibv_create_qp call failed", 0), 0u) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.nccl_version, "2.7.8+cuda11.1");
  EXPECT_EQ(r.hosts, std::vector<std::string>{"node08"});
  EXPECT_EQ(r.net_transport, "IB");
  EXPECT_EQ(r.net_devices, std::vector<std::string>{"mlx5_0:1/IB"});
  const NcclReason* qp = r.reason("ib_verbs_failed");
  ASSERT_NE(qp, nullptr);
  EXPECT_TRUE(contains(qp->message, "ibv_create_qp")) << qp->message;
  EXPECT_FALSE(contains(qp->message, "\xE2\x80\x9C")) << qp->message;  // the closing curly quote is the poster's
  EXPECT_EQ(qp->lines, std::vector<std::size_t>{2});
  EXPECT_EQ(r.net_connections, 0u);
}

// A TensorFlow build of NCCL printed its version with the CUDA placeholder
// unsubstituted ("2.8.3+cudaCUDA_MAJOR.CUDA_MINOR"); the RDMA-SHARP plugin
// (IBext) could not create queue pairs on GPUs 4, 5 and 6 of hai-a100-3, and
// the "-> 2" chain is the system error going up. The version's release is
// still 2.8.3. The job failed: CRITICAL.
TEST(AnalyzeDamagedNcclLog, Nccl562PlaceholderVersionCreateQpFailed) {
  Artifact a = analyze_nccl_log_paste("nccl-562-bazel-version-placeholder-create-qp-failed-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.nccl_version, "2.8.3+cudaCUDA_MAJOR.CUDA_MINOR");
  EXPECT_EQ(r.net_transport, "IBext");
  EXPECT_EQ(r.hosts, std::vector<std::string>{"hai-a100-3"});
  const NcclReason* qp = r.reason("ib_verbs_failed");
  ASSERT_NE(qp, nullptr);
  EXPECT_EQ(qp->count, 3u);
  EXPECT_EQ(qp->lines, (std::vector<std::size_t>{4, 14, 16}));
  EXPECT_EQ(r.net_connections, 0u);
}

// The poster's "> Node 1" heading and the opening fence above an NCCL 2.7.8
// log of spark01: RoCE over mlx5_1, two network connections (channel 00
// receive 1->0 and send 0->1) via NET/IB/0 without GDRDMA, then
// ibv_create_cq failed. Staged through host memory, and the job failed.
TEST(AnalyzeDamagedNcclLog, Nccl380QuoteHeadingRoceNoGdrThenCreateCqFailed) {
  Artifact a = analyze_nccl_log_paste("nccl-380-quote-heading-roce-no-gdr-create-cq-failed-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.nccl_version, "2.7.8+cuda11.0");
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.net_devices, std::vector<std::string>{"mlx5_1:1/RoCE"});
  ASSERT_EQ(r.connections.size(), 2u);
  EXPECT_EQ(r.connections[0].side, NetSide::Receive);
  EXPECT_EQ(r.connections[1].side, NetSide::Send);
  EXPECT_EQ(r.connections[0].from_device, "3000");
  const NcclReason* cq = r.reason("ib_verbs_failed");
  ASSERT_NE(cq, nullptr);
  EXPECT_TRUE(contains(cq->message, "ibv_create_cq")) << cq->message;
  EXPECT_EQ(cq->lines, std::vector<std::size_t>{15});
}

// pdsh/kubectl-style "host: " before every record (the same pod name as the
// record's own host). Only intra-node P2P/IPC channels and tree lines of
// rdma-gpu-train-worker-0 survive the cut: nothing about the network.
TEST(AnalyzeDamagedNcclLog, Nccl1029HostPrefixIntraNodeOnlyIsUnknown) {
  Artifact a = analyze_nccl_log_paste("nccl-1029-pdsh-host-prefix-intra-only-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.hosts, std::vector<std::string>{"rdma-gpu-train-worker-0"});
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.intra_node_lines, 4u);
  EXPECT_EQ(r.verdict, GdrVerdict::Unknown);
  EXPECT_TRUE(contains(r.verdict_why, "only intra-node")) << r.verdict_why;
}

// The log between single backticks on lines of their own: rank 0 of a
// 16-rank communicator on hostname1, RoCE mlx5_0/mlx5_1, NCCL 2.13+ wording
// "GPU Direct RDMA Disabled for HCA": GDR no. Only one host's lines: the
// text says they are the lines' hosts, not the job's.
TEST(AnalyzeDamagedNcclLog, Nccl1537SingleBacktickOneHostOfSixteenRanks) {
  Artifact a = analyze_nccl_log_paste("nccl-1537-single-backtick-roce-gdr-disabled-for-hca.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"hostname1"});
  EXPECT_EQ(r.net_devices, (std::vector<std::string>{"mlx5_0:1/RoCE", "mlx5_1:1/RoCE"}));
  EXPECT_NE(r.reason("gdr_disabled_no_module"), nullptr);
  EXPECT_EQ(r.net_connections, 0u);
  std::string text = render_analyze_text({a}, false);
  EXPECT_TRUE(contains(text, "16 ranks; lines from 1 host(s): hostname1")) << text;
  EXPECT_FALSE(contains(text, "16 ranks on 1 hosts")) << text;
}

// Docker container ids as host names; old "(no module)" wording for HCAs
// 1-3; seven connections via NET/IB/0, none with GDRDMA: GDR no.
TEST(AnalyzeDamagedNcclLog, Nccl899ContainerHostsNoModule) {
  Artifact a = analyze_nccl_log_paste("nccl-899-container-hosts-gdr-disabled-no-module-cut.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"21346d5cefce", "6a5a91752e39"}));
  EXPECT_EQ(r.net_connections, 7u);
  EXPECT_EQ(r.gdr_connections, 0u);
  EXPECT_NE(r.reason("gdr_disabled_no_module"), nullptr);
}

// Prefix stripped down to "[0]": the aws-ofi-nccl plugin says "disabling
// GDR" for both ranks; "DMA-BUF is available on GPU device 0" is NCCL's GPU
// probe, not DMA-BUF in use. GDR no, by the plugin; no connections.
TEST(AnalyzeDamagedNcclLog, NcclTests245OfiPluginDisablesGdr) {
  Artifact a = analyze_nccl_log_paste("nccl-tests-245-host-pid-stripped-ofi-disabling-gdr-dmabuf-available.log");
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
  EXPECT_EQ(a.status, Status::Critical) << a.verdict;
  ASSERT_TRUE(a.nccl_log);
  const NcclLogReport& r = *a.nccl_log;
  EXPECT_EQ(r.verdict, GdrVerdict::No);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_NE(r.reason("gdr_disabled_plugin"), nullptr);
  EXPECT_EQ(r.net_connections, 0u);
  EXPECT_EQ(r.reason("gdr_enabled_unused"), nullptr);
  // No "Using network" line and no connection: the network is unknown, and
  // the text says what the lines do show.
  std::string text = render_analyze_text({a}, false);
  EXPECT_TRUE(
      contains(text, "network: unknown (lines from NET/OFI: loaded or tried; no line says which network NCCL used)"))
      << text;
  // Where a network is known, no such note.
  Artifact used = analyze_nccl_log_paste("nccl-899-container-hosts-gdr-disabled-no-module-cut.log");
  EXPECT_FALSE(contains(render_analyze_text({used}, false), "loaded or tried"));
}

}  // namespace
}  // namespace gdrcheck

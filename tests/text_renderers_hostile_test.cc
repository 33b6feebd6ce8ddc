// Every text renderer fed models whose every string field is hostile (an OSC
// title change, a clear screen, CR, backspace, C1 CSI, a bidi override,
// bytes that are not UTF-8): the rendered text must reach a terminal inert,
// keep the renderer's own colours when asked, and still show the data
// escaped.
#include <gtest/gtest.h>

#include <string>

#include "report/analyze_text.h"
#include "report/bench_text.h"
#include "report/cluster_text.h"
#include "report/node_text.h"
#include "report/topo_text.h"
#include "terminal_checks.h"

namespace gdrcheck {
namespace {

using testing::kHostile;
using testing::terminal_offence;

// Data arrives through safe_line() (line breaks escaped) or safe_lines()
// (continuation lines indented): no data line starts at the left margin.
void expect_inert(const std::string& text, bool colour) {
  EXPECT_EQ(terminal_offence(text, colour), "") << text;
  EXPECT_EQ(text.find("\nend"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n\\tend"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n\tend"), std::string::npos) << text;  // a break kept by the guard alone
  EXPECT_NE(text.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\r\\x08\\u009b\\u202e\\x9b\\xff\\xfe\\xc3(\\n\\tend"),
            std::string::npos)
      << text;
}

std::string h(const std::string& tag) {
  return tag + kHostile;
}

Finding hostile_finding(const std::string& check, Status s) {
  Finding f;
  f.check = h(check);
  f.subject = h("subject");
  f.status = s;
  f.summary = h("summary");
  f.evidence = {h("evidence")};
  f.fix = h("fix");
  return f;
}

NodeReport hostile_node_report() {
  NodeReport r;
  r.host = h("host");
  r.root = h("/root");
  r.status = Status::Critical;
  r.nccl.origin = h("library ");
  r.nccl_topology = h("/topo.xml");
  PairVerdict p;
  p.gpu = h("GPU0");
  p.nic = "NIC0";
  p.nic_name = h("mlx5_0");
  p.path = h("PIX");
  p.nccl_path = h("PXB");
  p.status = Status::Critical;
  p.reason = h("reason");
  r.pairs = {p};
  r.findings = {hostile_finding("acs", Status::Critical), hostile_finding("gpu", Status::Ok),
                hostile_finding("gpu", Status::Ok)};
  return r;
}

TEST(HostileText, Node) {
  NodeReport r = hostile_node_report();
  for (bool colour : {false, true})
    for (bool quiet : {false, true})
      for (bool verbose : {false, true}) {
        std::string text = render_node_text(r, {colour, quiet, verbose});
        expect_inert(text, colour);
        // The renderer's own colours survive the guard.
        EXPECT_EQ(text.find("\033[31mCRITICAL\033[0m") != std::string::npos, colour) << text;
      }
  std::string text = render_node_text(r, {false, false, true});
  for (const char* tag : {"host", "/root", "library ", "/topo.xml", "GPU0", "mlx5_0", "PIX", "PXB", "reason", "acs",
                          "subject", "summary", "evidence", "fix"})
    EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
  EXPECT_EQ(terminal_offence(node_summary_line(r), false), "");
}

TEST(HostileText, NodeColourWithoutHostileDataIsUnchanged) {
  NodeReport r;
  r.host = "dgx-01";
  r.status = Status::Warning;
  r.findings = {ok("gpu", "GPU0", "fine", {}), problem("port", "mlx5_0", Status::Warning, "slow", {"rate"}, "reseat")};
  std::string text = render_node_text(r, {true, false, false});
  EXPECT_NE(text.find("  \033[33mWARNING\033[0m   mlx5_0        slow\n"), std::string::npos) << text;
  EXPECT_EQ(terminal_offence(text, true), "");
}

// Two GPUs and a NIC with hostile ids, names, models, affinities, codes
// and reasons, as a pasted nvidia-smi matrix could give them.
std::pair<Topology, TopologyPaths> hostile_topology() {
  Topology t;
  t.kind = SourceKind::SmiText;
  t.source = h("/pasted");
  t.notes = {h("note")};
  Endpoint g;
  g.id = h("GPU0");
  g.role = DeviceRole::Gpu;
  g.name = h("gpu-name");
  g.model = h("H100");
  g.locality.cpus = h("0-7");
  g.attributes["NUMA Affinity"] = h("numa");
  Endpoint n = g;
  n.id = h("NIC0");
  n.role = DeviceRole::Nic;
  n.name = h("mlx5_0");
  n.model = h("ConnectX-7");
  Endpoint d = g;
  d.id = h("DEV0");
  d.role = DeviceRole::Extra;
  d.address = PciAddress{0, 0x17, 0, 0};
  t.endpoints = {g, n, d};
  TopologyPaths p;
  p.set_ids({g.id, n.id});
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t b = 0; b < 2; ++b) {
      p.smi_cell(a, b) = {a == b ? "X" : h("PIX"), h("why")};
      p.nccl_cell(a, b) = {a == b ? "X" : h("SYS"), h("nccl-why")};
    }
  p.smi_cell(0, 1) = {"PIX", "plain"};  // painted by the renderer
  p.closest = {{g.id, {n.id}, h("smi"), h("nccl")}};
  return {t, p};
}

TEST(HostileText, Topo) {
  auto [t, p] = hostile_topology();
  for (bool colour : {false, true}) {
    std::string text = render_topo_text(t, p, TextStyle{colour});
    expect_inert(text, colour);
    EXPECT_EQ(text.find("\033[32mPIX\033[0m") != std::string::npos, colour) << text;
    for (const char* tag : {"/pasted", "note", "GPU0", "H100", "0-7", "numa", "NIC0", "mlx5_0", "ConnectX-7", "PIX",
                            "SYS", "nccl-why", "smi", "nccl"})
      EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
  }
}

TEST(HostileText, Cluster) {
  ClusterModel m;
  ClusterNode bad;
  bad.host = h("node17");
  bad.status = Status::Critical;
  bad.checks[h("acs")] = Status::Critical;
  bad.problems = {{h("acs"), h("subject"), h("summary"), h("fix"), Status::Critical}};
  ClusterNode lost;
  lost.host = h("node18");
  lost.how = NodeOutcome::How::Unreachable;
  lost.reason = h("ssh");
  m.nodes = {bad, lost};
  m.checks = {h("acs")};
  m.failures = {{h("what"), Status::Critical, {h("node17")}}};
  m.outliers.outliers = {{h("node17"), h("firmware"), h("value"), h("majority"), 2, 3}};
  m.outliers.splits = {{h("kernel"), {{h("6.1"), 1}, {h("6.8"), 1}}, 2}};
  m.notes = {h("note")};
  ClusterTextOptions o;
  o.verbose = true;
  o.verdict = Status::Critical;
  o.drain = {{"scontrol", "update", "NodeName=" + h("node17"), "Reason=" + h("gdrcheck: ")}};
  std::string text = render_cluster_text(m, o);
  expect_inert(text, false);
  for (const char* tag : {"node17", "acs", "summary", "node18", "ssh", "what", "firmware", "value", "majority",
                          "kernel", "6.1", "note", "NodeName=node17", "Reason=gdrcheck: "})
    EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
  EXPECT_EQ(terminal_offence(cluster_summary_line(m, Status::Critical), false), "");
}

Artifact hostile_artifact() {
  Artifact a;
  a.file = h("job.log");
  a.kind = ArtifactKind::NcclLog;
  a.status = Status::Critical;
  a.verdict = h("verdict");
  a.notes = {h("note")};
  NcclLogReport log;
  log.nccl_version = h("2.21.5");
  log.versions = {h("2.21.5"), h("2.18.1")};
  log.hosts = {h("hostA")};
  log.net_transport = h("IB");
  log.net_devices = {h("mlx5_0:1/IB")};
  log.socket_interfaces = {h("eth0")};
  log.net_device_speeds = {{h("mlx5_0"), 1, 400000, h("RoCE"), h("hostB"), 3}};
  NcclConnection c;
  c.net = h("IBext");
  c.host = h("hostC");
  log.connections = {c};
  log.reasons = {{h("code"), h("message"), {4}, 1}};
  a.nccl_log = log;
  NcclTestsRun run;
  run.test_name = h("all_reduce");
  run.errors = {h("error")};
  NcclTestsReport tests;
  tests.runs = {run};
  a.nccl_tests = tests;
  BusbwVsNics vs;
  vs.expectation.known = true;
  vs.expectation.basis = h("basis");
  vs.expectation.assumptions = {h("assumed")};
  vs.judgement.summary = h("judged");
  vs.judgement.evidence = {h("bw-evidence")};
  vs.judgement.fix = h("bw-fix");
  a.busbw_vs_nics = {vs};
  IbvReport ibv;
  IbvDevice d;
  d.name = h("mlx5_1");
  d.fw = h("28.39");
  IbvPort port;
  port.port = 1;
  port.state = h("ACTIVE");
  port.physical_state = h("LinkUp");
  port.link_layer = h("InfiniBand");
  d.ports = {port};
  ibv.devices = {d};
  a.ibv = ibv;
  GdscheckReport g;
  g.gds_version = h("1.13");
  g.nvidia_fs_version = h("2.17");
  g.supported = {h("nvme")};
  g.unsupported = {h("nfs")};
  g.notes = {h("gds-note")};
  a.gdscheck = g;
  return a;
}

TEST(HostileText, Analyze) {
  Artifact unreadable;
  unreadable.file = h("missing.log");
  unreadable.error = h("cannot read");
  std::string text = render_analyze_text({hostile_artifact(), unreadable}, true);
  expect_inert(text, false);
  for (const char* tag :
       {"job.log",    "verdict", "note",   "2.21.5",      "2.18.1", "hostA",    "IB",          "mlx5_0:1/IB", "eth0",
        "mlx5_0",     "RoCE",    "hostB",  "IBext",       "hostC",  "code",     "message",     "all_reduce",  "error",
        "basis",      "assumed", "judged", "bw-evidence", "bw-fix", "mlx5_1",   "28.39",       "ACTIVE",      "LinkUp",
        "InfiniBand", "1.13",    "2.17",   "nvme",        "nfs",    "gds-note", "missing.log", "cannot read"})
    EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
}

TEST(HostileText, NcclBench) {
  NcclBenchReport r;
  r.test = h("all_reduce_perf");
  r.hosts = {h("hostA")};
  r.env_notes = {h("env")};
  NcclRunResult ran;
  ran.label = h("gdr-on-1");
  ran.end = h("exit");
  ran.raw_output = h("/out");
  ran.nccl_version = h("2.21");
  ran.net_transport = h("IB");
  NodeGdrProof proof;
  proof.host = h("hostB");
  ran.nodes = {proof};
  NcclRunResult failed;
  failed.label = h("gdr-off-1");
  failed.could_not_run = h("no mpirun");
  r.gdr_on = {ran};
  r.gdr_off = {failed};
  r.expectation.known = true;
  r.expectation.basis = h("basis");
  r.nic_source = h("nics");
  r.units = h("units");
  r.findings = {hostile_finding("bench", Status::Warning), hostile_finding("bench", Status::Ok)};
  for (bool verbose : {false, true}) {
    std::string text = render_nccl_bench_text(r, verbose);
    expect_inert(text, false);
    for (const char* tag :
         {"all_reduce_perf", "hostA", "env", "gdr-on-1", "exit", "/out", "2.21", "IB", "hostB", "gdr-off-1",
          "no mpirun", "basis", "nics", "units", "bench", "subject", "summary", "evidence", "fix"})
      EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
  }
  r.expectation.known = false;
  r.expectation.unknown_reason = h("unknown");
  std::string text = render_nccl_bench_text(r, false);
  expect_inert(text, false);
  EXPECT_NE(text.find("unknownevil\\x1b"), std::string::npos) << text;
}

TEST(HostileText, RdmaBench) {
  RdmaBenchReport r;
  r.node = h("node");
  r.launcher = BenchLauncher::Srun;
  r.hosts = {h("server"), h("client")};
  r.notes = {h("note")};
  RdmaPairResult p;
  p.pair.gpu = h("GPU0");
  p.pair.nic = h("mlx5_0");
  r.pairs = {p};
  r.units = h("units");
  r.findings = {hostile_finding("rdma", Status::Critical)};
  std::string text = render_rdma_bench_text(r, true);
  expect_inert(text, false);
  for (const char* tag : {"node", "server", "client", "note", "GPU0", "units", "rdma", "summary", "fix"})
    EXPECT_NE(text.find(std::string(tag) + "evil\\x1b"), std::string::npos) << tag << "\n" << text;
}

}  // namespace
}  // namespace gdrcheck

// libFuzzer entry point for the renderers: report models whose strings,
// statuses and counts come from the input (host names, firmware, log
// lines and file names come from other machines in real runs) are printed
// by every renderer in src/report as text (colour, quiet or verbose, ASCII,
// width: one variant per run, chosen by the input) and JSON; one family
// (node, cluster, analyze, bench) per run. The JSON must parse back; the text must carry no
// control byte but newlines, tabs and SGR colour sequences. Nothing may
// throw.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/artifact.h"
#include "bench/nccl_verdict.h"
#include "bench/rdma_bench.h"
#include "checks/node_report.h"
#include "cluster/cluster_model.h"
#include "cluster/drain.h"
#include "evidence/nccl_log.h"
#include "evidence/nccl_tests.h"
#include "host/host_state.h"
#include "output_checks.h"
#include "report/analyze_json.h"
#include "report/analyze_text.h"
#include "report/bench_json.h"
#include "report/bench_text.h"
#include "report/cluster_json.h"
#include "report/cluster_text.h"
#include "report/json_text.h"
#include "report/node_json.h"
#include "report/node_text.h"
#include "report/output_style.h"
#include "report/topo_json.h"
#include "report/topo_text.h"

namespace {

using namespace gdrcheck;

class Model {
 public:
  Model(const uint8_t* data, size_t size) : p_(data, size) {}

  std::string str(std::size_t max = 48) { return p_.ConsumeRandomLengthString(max); }
  std::size_t count(std::size_t max) { return p_.ConsumeIntegralInRange<std::size_t>(0, max); }
  bool flag() { return p_.ConsumeBool(); }
  double number() { return p_.ConsumeFloatingPointInRange<double>(0, 1e4); }
  Status status() { return static_cast<Status>(p_.ConsumeIntegralInRange<int>(0, 3)); }
  template <typename E>
  E pick(std::initializer_list<E> values) {
    return *(values.begin() + p_.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1));
  }
  std::vector<std::string> strings(std::size_t max) {
    std::vector<std::string> out(count(max));
    for (auto& s : out) s = str();
    return out;
  }

  Finding finding() {
    Finding f;
    f.check = flag() ? pick<std::string>({"gpu", "nic", "port", "acs", "nccl", "manifest"}) : str(12);
    f.subject = str();
    f.status = status();
    f.summary = str(96);
    f.evidence = strings(3);
    f.fix = str();
    f.affects = strings(2);
    return f;
  }
  std::vector<Finding> findings(std::size_t max) {
    std::vector<Finding> out(count(max));
    for (auto& f : out) f = finding();
    return out;
  }

  Topology topology() {
    Topology t;
    t.kind = pick({SourceKind::Sysfs, SourceKind::HwlocXml, SourceKind::NcclXml, SourceKind::SmiText});
    t.source = str();
    std::size_t n = count(6);
    for (std::size_t i = 0; i < n; ++i) {
      Endpoint e;
      e.role = pick({DeviceRole::Gpu, DeviceRole::Nic, DeviceRole::NvSwitch, DeviceRole::Nvme, DeviceRole::Extra});
      e.id = flag() ? str(12) : (e.role == DeviceRole::Gpu ? "GPU" : "NIC") + std::to_string(i);
      e.name = str(16);
      e.model = str(32);
      if (flag()) e.attributes[str(12)] = str(24);
      t.endpoints.push_back(std::move(e));
    }
    for (const auto& a : t.endpoints)
      for (const auto& b : t.endpoints)
        if (flag()) t.printed_matrix[{a.id, b.id}] = flag() ? pick<std::string>({"X", "PIX", "SYS", "NV12"}) : str(6);
    t.notes = strings(2);
    return t;
  }

  ClusterModel cluster() {
    ClusterModel m;
    std::size_t n = count(5);
    for (std::size_t i = 0; i < n; ++i) {
      ClusterNode node;
      node.host = str(24);
      node.how = pick({NodeOutcome::How::Report, NodeOutcome::How::Unreachable, NodeOutcome::How::TimedOut,
                       NodeOutcome::How::Crashed, NodeOutcome::How::Failed, NodeOutcome::How::NotAReport});
      node.reason = str();
      node.status = status();
      node.gpus = count(8);
      node.gdr_gpus = count(node.gpus);
      node.gdr_ready = node.status == Status::Ok && node.gpus == node.gdr_gpus;
      for (std::size_t k = count(3); k > 0; --k) node.checks[str(10)] = status();
      for (std::size_t k = count(2); k > 0; --k)
        node.problems.push_back({str(10), str(16), str(64), str(32), status()});
      ++m.by_status[node.status];
      m.status = worse(m.status, node.status);
      m.reported += node.has_report();
      m.ready += node.gdr_ready;
      m.nodes.push_back(std::move(node));
    }
    for (const auto& [check, s] : m.nodes.empty() ? std::map<std::string, Status>{} : m.nodes.front().checks)
      m.checks.push_back(check);
    for (std::size_t k = count(2); k > 0; --k) m.failures.push_back({str(12), status(), strings(3)});
    m.notes = strings(2);
    return m;
  }

  Artifact artifact() {
    Artifact a;
    a.file = str(32);
    a.kind = pick({ArtifactKind::NcclLog, ArtifactKind::NcclTests, ArtifactKind::TopoMatrix, ArtifactKind::Ibv,
                   ArtifactKind::Gdscheck, ArtifactKind::Unknown});
    a.error = flag() ? str() : "";
    if (flag()) a.nccl_log = parse_nccl_log(str(512));
    if (flag()) a.nccl_tests = parse_nccl_tests(str(512));
    a.status = status();
    a.verdict = str(96);
    a.notes = strings(2);
    return a;
  }

  NcclRunResult nccl_run() {
    NcclRunResult r;
    r.label = str(16);
    r.gdr_off = flag();
    r.argv = strings(3);
    r.env.push_back({str(16), str(16)});
    r.raw_output = str(32);
    r.end = str(24);
    r.could_not_run = flag() ? str() : "";
    r.gdr = pick({GdrVerdict::Yes, GdrVerdict::No, GdrVerdict::Partial, GdrVerdict::Unknown});
    r.gdr_why = str();
    r.nccl_version = str(12);
    r.net_transport = str(12);
    r.net_devices = strings(2);
    r.hosts = strings(2);
    r.reasons.push_back({str(12), str(64), {1, 2}, 2});
    for (std::size_t k = count(3); k > 0; --k) r.table.push_back({1ull << count(33), number(), number(), {}});
    if (!r.table.empty()) r.large = r.table.back();
    r.test_errors = strings(2);
    return r;
  }

  NcclBenchReport nccl_bench() {
    NcclBenchReport b;
    b.test = str(16);
    b.binary = str(32);
    b.hosts = strings(3);
    b.env_notes = strings(2);
    for (std::size_t k = count(2); k > 0; --k) b.gdr_on.push_back(nccl_run());
    b.ab = flag();
    if (b.ab) b.gdr_off.push_back(nccl_run());
    b.nic_source = str(24);
    b.nic_notes = strings(2);
    judge_nccl_bench(b);
    auto more = findings(2);
    b.findings.insert(b.findings.end(), more.begin(), more.end());
    b.status = status();
    return b;
  }

  RdmaBenchReport rdma_bench() {
    RdmaBenchReport b;
    b.node = str(24);
    b.hosts = strings(2);
    b.notes = strings(2);
    for (std::size_t k = count(2); k > 0; --k) {
      RdmaPairResult pair;
      pair.node = str(16);
      pair.pair.gpu = str(8);
      pair.pair.nic = str(12);
      pair.pair.port_rate_gbps = number();
      pair.gpu.label = str(16);
      pair.gpu.could_not_run = flag() ? str() : "";
      pair.gpu.errors = strings(2);
      if (flag()) pair.gpu.gbits = {number()};
      b.pairs.push_back(std::move(pair));
    }
    judge_rdma_bench(b, {});
    auto more = findings(2);
    b.findings.insert(b.findings.end(), more.begin(), more.end());
    b.units = str(32);
    return b;
  }

 private:
  FuzzedDataProvider p_;
};

void render_node(Model& in) {
  HostState h;
  NodeReport r = build_node_report(in.topology(), h, {});
  r.host = in.str(24);
  r.root = in.str(32);
  for (auto& pair : r.pairs) {
    pair.reason = in.str(64);
    pair.reasons = in.strings(2);
  }
  auto more = in.findings(4);
  r.findings.insert(r.findings.end(), more.begin(), more.end());
  r.status = worst_status(r.findings);
  // One variant per run, chosen by the input: the fuzzer reaches every
  // combination across runs, and each run costs a quarter.
  bool color = in.flag(), quiet = in.flag(), utf8 = in.flag();
  int width = static_cast<int>(in.count(kMaxWidth - kMinWidth)) + kMinWidth;
  fuzz_checks::text_is_clean(render_node_text(r, {color, quiet, !quiet, utf8, width}));
  fuzz_checks::text_is_clean(node_summary_line(r));
  fuzz_checks::json_parses_back(json_text(node_json(r, h)));
  fuzz_checks::text_is_clean(render_topo_text(r.topology, r.paths, {color}));
  fuzz_checks::json_parses_back(json_text(topo_json(r.topology, r.paths)));
}

// What --drain and --resume did, with host names and reasons from the
// input (they come from reports and from scontrol in real runs).
SlurmActions slurm_actions(Model& in) {
  SlurmActions a;
  a.now = static_cast<UnixSeconds>(in.count(2'000'000'000));
  a.max_age = in.str(8);
  a.max_drain = in.str(8);
  a.max_drain_nodes = in.count(100);
  a.limit_refusal = in.flag() ? in.str(64) : "";
  a.drain_requested = in.flag();
  a.dry_run = in.flag();
  a.resume_requested = in.flag();
  for (std::size_t k = in.count(3); k > 0; --k) {
    NotDrained n{in.str(16), std::nullopt, in.str(48)};
    if (in.flag()) n.generated_at = static_cast<UnixSeconds>(in.count(2'000'000'000));
    (in.flag() ? a.not_drained : a.not_resumed).push_back(std::move(n));
  }
  if (in.flag()) a.resume.push_back({"scontrol", "update", "NodeName=" + in.str(16), "State=RESUME"});
  a.resumed = in.flag();
  a.resume_notes = in.strings(2);
  return a;
}

void render_cluster(Model& in) {
  ClusterModel m = in.cluster();
  std::vector<std::vector<std::string>> drain;
  if (in.flag()) drain.push_back({"scontrol", "update", "NodeName=" + in.str(16), "State=DRAIN", in.str(32)});
  bool drained = in.flag();
  SlurmActions actions = slurm_actions(in);
  fuzz_checks::text_is_clean(render_cluster_text(m, {in.flag(), m.status, drain, drained, actions}));
  fuzz_checks::text_is_clean(cluster_summary_line(m, m.status));
  fuzz_checks::json_parses_back(json_text(cluster_json(m, {m.status, std::nullopt, drain, drained, actions})));
}

void render_analyze(Model& in) {
  std::vector<Artifact> artifacts;
  for (std::size_t k = in.count(2) + 1; k > 0; --k) artifacts.push_back(in.artifact());
  bool detail = in.flag();
  fuzz_checks::text_is_clean(render_analyze_text(artifacts, detail));
  fuzz_checks::json_parses_back(json_text(analyze_json(artifacts, detail)));
}

void render_bench(Model& in) {
  NcclBenchReport nccl = in.nccl_bench();
  RdmaBenchReport rdma = in.rdma_bench();
  bool verbose = in.flag();
  fuzz_checks::text_is_clean(render_nccl_bench_text(nccl, verbose));
  fuzz_checks::text_is_clean(render_rdma_bench_text(rdma, verbose));
  fuzz_checks::json_parses_back(json_text(nccl_bench_json(nccl)));
  fuzz_checks::json_parses_back(json_text(rdma_bench_json(rdma)));
}

}  // namespace

// One renderer family per run, chosen by the first byte: each family's
// model is then built from bytes only it reads (a mutation aimed at the
// cluster table no longer shifts the node report's), and a run costs a
// quarter of rendering all four.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Model in(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      render_node(in);
      break;
    case 1:
      render_cluster(in);
      break;
    case 2:
      render_analyze(in);
      break;
    default:
      render_bench(in);
      break;
  }
  return 0;
}

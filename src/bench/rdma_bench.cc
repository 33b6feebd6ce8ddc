#include "bench/rdma_bench.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bench/private_output_dir.h"
#include "bench/raw_output_file.h"
#include "host/process.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

std::vector<std::string> common_args(const GpuNicPair& pair, RdmaMemory memory, const PerftestOptions& o, int port) {
  std::vector<std::string> a{o.program,
                             "-d",
                             pair.nic,
                             "-i",
                             std::to_string(pair.port),
                             "-D",
                             std::to_string(o.seconds),
                             "-s",
                             std::to_string(o.size),
                             "-q",
                             std::to_string(o.qps),
                             "-p",
                             std::to_string(port),
                             "-F",
                             "--report_gbits"};
  if (memory == RdmaMemory::Gpu) {
    // The GPU by PCI address: CUDA device numbers need not follow bus order.
    a.push_back("--use_cuda_bus_id=" + pair.gpu_bus_id);
    // perftest accepts --use_cuda_dmabuf only after the CUDA option.
    if (pair.dmabuf_only) a.push_back("--use_cuda_dmabuf");
  }
  return a;
}

// perftest's --out_json file is a few hundred bytes.
constexpr std::size_t kPerftestJsonCap = 1u << 20;

std::string side_problem(const ProcessResult& p, const char* side) {
  std::string who = side;
  switch (p.end) {
    case ProcessResult::End::NotStarted:
      return who + " could not start: " + p.start_error;
    case ProcessResult::End::TimedOut:
      return who + " hung: " + p.describe();
    case ProcessResult::End::Signaled:
      return who + " crashed: " + p.describe();
    case ProcessResult::End::Exited:
      return p.exit_code == 0 ? "" : who + " failed: " + p.describe();
  }
  return who + ": " + p.describe();
}

ProcessSpec spec_for(const std::vector<std::string>& argv, const RdmaRunOptions& o, const std::string& file) {
  ProcessSpec s = ProcessSpec::command(argv);
  s.timeout = o.timeout;
  s.merge_stderr = true;
  s.output_file = file;
  return s;
}

// One repeat: server (through the launcher for two nodes) then client here.
void measure_once(RdmaMeasurement& m, const PerftestCommands& cmds, const RdmaRunOptions& o, int round) {
  auto now = std::chrono::system_clock::now();
  std::string tag = m.label + (o.repeat > 1 ? "-" + std::to_string(round) : "");
  std::string server_file = fresh_raw_output_path(o.output_dir, o.host, now, ::getpid(), tag + "-server");
  std::string client_file = fresh_raw_output_path(o.output_dir, o.host, now, ::getpid(), tag + "-client");
  LaunchPlan server_plan = o.launch;
  server_plan.ranks_per_node = 1;
  server_plan.nodes = 1;
  LaunchCommand server = build_launch(server_plan, cmds.server);
  m.server_argv = server.argv;
  m.client_argv = cmds.client;
  m.raw_output = client_file;

  ProcessResult server_result;
  ProcessSpec server_spec = spec_for(server.argv, o, server_file);
  server_spec.env_set = server.env_set;
  std::thread server_thread([&server_result, server_spec] { server_result = run_process(server_spec); });
  // perftest's client does not retry: give the server time to listen.
  std::this_thread::sleep_for(std::chrono::milliseconds(o.launch.launcher == BenchLauncher::Local ? 1000 : 3000));
  ProcessResult client = run_process(spec_for(cmds.client, o, client_file));
  server_thread.join();

  PerftestReport text = parse_perftest_text(client.out);
  m.errors.insert(m.errors.end(), text.errors.begin(), text.errors.end());
  PerftestReport server_text = parse_perftest_text(server_result.out);
  m.errors.insert(m.errors.end(), server_text.errors.begin(), server_text.errors.end());
  m.gpu_buffer_confirmed = m.gpu_buffer_confirmed || text.gpu_buffer;

  std::string problem = side_problem(client, "client");
  if (problem.empty()) problem = side_problem(server_result, "server");
  std::optional<double> gbits;
  OwnOutput json_file = read_own_output(cmds.json_file, kPerftestJsonCap);
  if (!json_file.problem.empty()) m.errors.push_back(json_file.problem);
  if (const std::string& json = json_file.content; !json.empty()) {
    try {
      gbits = parse_perftest_json(json, PerftestUnit::Gbits).average_gbits();
    } catch (const std::invalid_argument& e) {
      m.errors.push_back(cmds.json_file + ": " + e.what());
    }
  }
  if (!gbits) gbits = text.average_gbits();
  if (problem.empty() && !gbits) problem = "no bandwidth figure in the output";
  if (!problem.empty()) {
    if (m.could_not_run.empty()) m.could_not_run = problem;
    return;
  }
  m.gbits.push_back(*gbits);
}

RdmaMeasurement measure(const std::string& label, const GpuNicPair& pair, RdmaMemory memory, const RdmaRunOptions& o,
                        int port) {
  RdmaMeasurement m;
  m.label = label;
  m.memory = memory;
  bool loopback = o.launch.launcher == BenchLauncher::Local || o.launch.hosts.empty();
  std::string server_host = loopback ? "localhost" : o.launch.hosts.front();
  if (!o.program_problem.empty()) {
    m.could_not_run = o.program_problem;
    return m;
  }
  for (int round = 1; round <= std::max(1, o.repeat); ++round) {
    auto now = std::chrono::system_clock::now();
    std::string json =
        fresh_raw_output_path(o.output_dir, o.host, now, ::getpid(), label + "-" + std::to_string(round));
    json.replace(json.size() - 4, 4, ".json");
    // The name is ours before perftest opens it (it follows links).
    if (std::string problem = reserve_output_file(json); !problem.empty()) {
      if (m.could_not_run.empty()) m.could_not_run = problem;
      continue;
    }
    PerftestCommands cmds = perftest_commands(pair, memory, o.perftest, port, server_host, json);
    measure_once(m, cmds, o, round);
  }
  m.stats = repeat_stats(m.gbits);
  if (m.stats) m.could_not_run.clear();  // some repeats ran: judge those (the noise shows in the spread)
  return m;
}

}  // namespace

PerftestCommands perftest_commands(const GpuNicPair& pair, RdmaMemory memory, const PerftestOptions& o, int port,
                                   const std::string& server_host, const std::string& json_file) {
  PerftestCommands c;
  c.server = common_args(pair, memory, o, port);
  c.client = common_args(pair, memory, o, port);
  c.client.push_back("--out_json");
  c.client.push_back("--out_json_file=" + json_file);
  c.client.push_back(server_host);
  c.json_file = json_file;
  return c;
}

void judge_rdma_bench(RdmaBenchReport& rep, const BandwidthOverrides& overrides) {
  std::vector<Finding> f;
  for (auto& p : rep.pairs) {
    std::string subject = p.pair.gpu + "-" + p.pair.nic + "@" + p.node;
    std::vector<std::string> ev{"command: " + join(p.gpu.client_argv, " "), "raw output: " + p.gpu.raw_output};
    if (p.host_gbits) ev.push_back("host memory on " + p.pair.nic + ": " + fixed(*p.host_gbits, 1) + " Gb/s");
    for (const auto& e : p.gpu.errors) ev.push_back("perftest: " + e);
    if (!p.gpu.stats) {
      f.push_back(problem("rdma", subject, Status::Unknown, "the test could not run: " + p.gpu.could_not_run, ev,
                          "read the raw output; install perftest with CUDA support (ib_write_bw --use_cuda_bus_id)"));
      continue;
    }
    p.expectation = expect_rdma_pair(p.pair.port_rate_gbps, RdmaDirection::Unidirectional, overrides);
    BandwidthJudgement j = judge_rdma_pair(p.expectation, p.gpu.stats->median);
    p.judgement = j;
    ev.insert(ev.begin(), j.evidence.begin(), j.evidence.end());
    ev.push_back("GPU " + p.pair.gpu + " (" + p.pair.gpu_bus_id + ") to " + p.pair.nic + " port " +
                 std::to_string(p.pair.port) + ", NCCL path " + p.pair.nccl_path +
                 (p.pair.dmabuf_only ? ", DMA-BUF" : ", peer memory"));
    ev.push_back("median of " + std::to_string(p.gpu.stats->count) + " run(s), spread " +
                 fixed(p.gpu.stats->spread * 100, 1) + " %");
    if (!p.gpu.gpu_buffer_confirmed) ev.push_back("perftest did not print a GPU buffer allocation line");
    if (j.status == Status::Ok)
      f.push_back(ok("rdma", subject, j.summary, ev));
    else {
      std::string fix = j.fix;
      if (p.host_gbits && p.expectation.known && *p.host_gbits >= p.expectation.pass_gbits)
        fix =
            "host memory reaches the rate but GPU memory does not: the GPU-NIC path is the problem — run "
            "`gdrcheck node` (PCIe path, ACS, IOMMU, link width)" +
            (fix.empty() ? "" : "; " + fix);
      f.push_back(problem("rdma", subject, j.status, j.summary, ev, fix));
    }
  }
  for (const auto& h : rep.host_runs)
    if (!h.stats)
      f.push_back(problem("rdma", h.label + "@" + rep.node, Status::Unknown,
                          "the host-memory test could not run: " + h.could_not_run,
                          {"command: " + join(h.client_argv, " "), "raw output: " + h.raw_output},
                          "check the NIC with ibv_devinfo and ib_write_bw without GPU options"));
  if (rep.pairs.empty())
    f.push_back(problem("rdma", rep.node, Status::Unknown, "no GPU-NIC pair to test", rep.notes,
                        "run on a node with GPUs and RDMA NICs (`gdrcheck node` shows the pairs)"));
  rep.units =
      "perftest figures and port rates in Gb/s (bits, 1e9); unidirectional ib_write_bw, message size from -s; "
      "pass at the ratio of the port rate shown";
  rep.findings = std::move(f);
  rep.status = worst_status(rep.findings);
}

RdmaBenchReport run_rdma_bench(const NodeNicFacts& facts, const RdmaRunOptions& o) {
  RdmaBenchReport rep;
  rep.node = facts.host;
  rep.launcher = o.launch.launcher;
  rep.hosts = o.launch.hosts;
  rep.notes = facts.notes;
  int port = o.perftest.port;
  // Host memory once per NIC.
  std::vector<std::string> nics_done;
  for (const auto& pair : facts.pairs) {
    if (std::find(nics_done.begin(), nics_done.end(), pair.nic) != nics_done.end()) continue;
    nics_done.push_back(pair.nic);
    rep.host_runs.push_back(measure("host-" + pair.nic, pair, RdmaMemory::Host, o, port++));
  }
  for (const auto& pair : facts.pairs) {
    RdmaPairResult r;
    r.node = facts.host;
    r.pair = pair;
    r.gpu = measure(pair.gpu + "-" + pair.nic, pair, RdmaMemory::Gpu, o, port++);
    for (const auto& h : rep.host_runs)
      if (h.label == "host-" + pair.nic && h.stats) r.host_gbits = h.stats->median;
    rep.pairs.push_back(std::move(r));
  }
  return rep;
}

}  // namespace gdrcheck

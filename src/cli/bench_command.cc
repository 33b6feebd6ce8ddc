// `gdrcheck bench nccl|rdma`: the active test. Drives nccl-tests and perftest
// through mpirun/srun (or locally), keeps their raw output, and judges it
// with the analyzers of `analyze` and the expected-bandwidth model.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "bench/bandwidth_overrides.h"
#include "bench/bench_nics.h"
#include "bench/nccl_bench.h"
#include "bench/nccl_environment.h"
#include "bench/nccl_tests_locator.h"
#include "bench/nccl_verdict.h"
#include "bench/private_output_dir.h"
#include "bench/program_trust.h"
#include "bench/raw_output_file.h"
#include "bench/rdma_bench.h"
#include "checks/node_report.h"
#include "cli/bandwidth_file.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output_format.h"
#include "cluster/hostlist.h"
#include "host/host_state.h"
#include "host/process.h"
#include "host/root.h"
#include "report/bench_json.h"
#include "report/bench_prometheus.h"
#include "report/bench_text.h"
#include "report/json_text.h"
#include "report/output_style.h"
#include "report/styled_text.h"
#include "report/terminal_text.h"
#include "snapshot/snapshot_root.h"
#include "topology/input_error.h"
#include "topology/topology_loader.h"

extern char** environ;

namespace gdrcheck {
namespace {

struct BenchCliOptions {
  // shared
  std::string launcher, hosts, hostfile, output_dir = ".", root, bandwidth_file, node_type, link_layer = "ib";
  std::vector<std::string> launcher_args;
  int nodes = 0, gpus_per_node = 0, repeat = 1, nics = 0;
  double nic_rate = 0, pass_ratio = 0;
  int timeout = 900;
  bool verbose = false;
  OutputCli output;
  // nccl
  std::string test = "all_reduce_perf", nccl_tests_dir;
  std::vector<std::string> test_args;
  bool ab = false;
  // rdma
  std::string perftest = "ib_write_bw";
  int duration = 5, qps = 2;
  unsigned long size = 1 << 20;
};

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::vector<std::string> process_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

struct NodeFactsResult {
  std::optional<NodeNicFacts> facts;
  std::string problem;
};

// `gdrcheck node` on this host (or --root): the NICs and GPU-NIC pairs.
NodeFactsResult node_facts(const std::string& root) {
  NodeFactsResult r;
  try {
    std::string dir = root.empty() ? "/" : root;
    Topology t = load_topology_root(dir);
    HostState h = read_host_state(Root(dir), pci_functions(t), HostReadOptions{});
    NodeReport report = build_node_report(std::move(t), h, NodeOptions{});
    NodeNicFacts f = nic_facts_from_node(report, h);
    if (f.host.empty()) f.host = this_host();
    if (f.gpus == 0) r.problem = "no NVIDIA GPU found by `gdrcheck node` on " + dir;
    r.facts = f;
  } catch (const std::exception& e) {
    r.problem = std::string("`gdrcheck node` could not read this host: ") + e.what();
  }
  return r;
}

BandwidthOverrides overrides(const BenchCliOptions& o) {
  BandwidthOverrides b = load_bandwidth_file(o.bandwidth_file);
  if (o.pass_ratio > 0) {  // 0: not given (the range is checked when parsed)
    b.pass_ratio = o.pass_ratio;
    b.rdma_pass_ratio = o.pass_ratio;
  }
  return b;
}

LaunchPlan launch_plan(const BenchCliOptions& o, int gpus) {
  LaunchPlan p;
  if (!o.launcher.empty()) {
    auto l = bench_launcher_from_name(o.launcher);
    if (!l) throw CLI::ValidationError("--launcher", "must be mpirun, srun or local");
    p.launcher = *l;
  } else if (!o.hosts.empty() || !o.hostfile.empty()) {
    p.launcher = BenchLauncher::Mpirun;
  } else if (std::getenv("SLURM_JOB_ID")) {
    p.launcher = BenchLauncher::Srun;
  }
  if (!o.hosts.empty()) {
    try {
      p.hosts = expand_hostlist(o.hosts);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--hosts", e.what());
    }
  }
  p.hostfile = o.hostfile;
  p.nodes = o.nodes;
  if (p.nodes == 0 && p.hosts.empty() && p.launcher == BenchLauncher::Srun)
    p.nodes = std::atoi(env_or("SLURM_NNODES", "0").c_str());
  if (p.launcher == BenchLauncher::Local) p.nodes = 1;
  p.ranks_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : std::max(1, gpus);
  p.running_as_root = ::geteuid() == 0;
  p.extra_args = o.launcher_args;
  std::string problem = launch_plan_problem(p);
  if (!problem.empty()) throw CLI::ValidationError("--launcher", problem);
  return p;
}

std::vector<NicSpec> nic_specs(const BenchCliOptions& o, const NodeFactsResult& node, std::string& source) {
  if (o.nic_rate > 0) {
    source = "--nic-rate " + std::to_string(static_cast<int>(o.nic_rate)) + " --nics " + std::to_string(o.nics);
    return {nic_from_flags(o.nic_rate, o.nics, o.link_layer)};
  }
  if (node.facts && !node.facts->nics.empty()) {
    source = "`gdrcheck node` on " + (o.root.empty() ? node.facts->host : o.root);
    return node.facts->nics;
  }
  return {};
}

std::vector<std::string> engine_argv(const BenchCliOptions& o, const std::string& binary, const LaunchPlan& plan) {
  std::vector<std::string> a{binary};
  if (!o.test_args.empty()) {
    a.insert(a.end(), o.test_args.begin(), o.test_args.end());
    return a;
  }
  // One process per GPU through a launcher; one process driving every GPU
  // locally.
  int g = plan.launcher == BenchLauncher::Local ? plan.ranks_per_node : 1;
  a.insert(a.end(), {"-b", "8", "-e", "8G", "-f", "2", "-g", std::to_string(g)});
  return a;
}

// The private directory every output of this run goes to, inside
// --output-dir. The directory (and every one above it) must be one no other
// user can rename entries in: otherwise the private directory itself could
// be swapped for a link between its creation and a child's open.
std::string private_output_dir(const BenchCliOptions& o) {
  std::string base = o.output_dir.empty() ? "." : o.output_dir;
  if (std::string problem = directory_trust_problem_at(base, ::getuid()); !problem.empty())
    throw CLI::ValidationError("--output-dir", problem + "; use a directory owned by root or by you (e.g. /var/tmp)");
  std::string stem = raw_output_name("", this_host(), std::chrono::system_clock::now(), ::getpid(), "");
  stem = stem.substr(2, stem.size() - 6);  // without "./" and ".log"
  return make_private_output_dir(base, stem);
}

// perftest from PATH (or the path given), checked like an nccl-tests binary;
// `problem` says why it must not run.
std::string perftest_program(const std::string& name, std::string& problem) {
  std::string found = find_in_path(name);
  if (found.empty()) return name;  // the run says it was not found
  problem = program_trust_problem_at(found, ::geteuid(), ::getuid(),
                                     "chown root / chmod go-w, or pass --perftest PATH with a trusted build");
  return found;
}

NcclRunResult not_run(const std::string& label, bool off, const std::string& why) {
  NcclRunResult r;
  r.label = label;
  r.gdr_off = off;
  r.end = "not started";
  r.could_not_run = why;
  return r;
}

NcclRunResult missing_binary(const std::string& label, bool off, const LocatedBinary& where, const std::string& test) {
  std::string searched;
  for (std::size_t i = 0; i < where.searched.size() && i < 6; ++i) searched += (i ? ", " : "") + where.searched[i];
  if (where.searched.size() > 6) searched += ", ...";
  return not_run(label, off, test + " not found (searched " + searched + ")");
}

struct NcclArmFiles {
  std::string dir;      // private_output_dir()
  std::string refused;  // why the binary found must not run ("" = it may)
};

std::vector<NcclRunResult> nccl_arm(const BenchCliOptions& o, const LaunchPlan& base, const LocatedBinary& binary,
                                    const NcclArmFiles& files, bool off, int nodes, std::vector<std::string>& notes) {
  std::vector<NcclRunResult> runs;
  NcclEnvironmentRequest req{nccl_variables(process_environment()), nodes, off};
  NcclRunEnvironment env = nccl_run_environment(req);
  if (!off) notes = env.notes;
  LaunchPlan plan = base;
  plan.env = env.set;
  for (int i = 1; i <= std::max(1, o.repeat); ++i) {
    std::string label = std::string(off ? "gdr-off-" : "gdr-on-") + std::to_string(i);
    if (binary.path.empty()) {
      runs.push_back(missing_binary(label, off, binary, o.test));
      continue;
    }
    if (!files.refused.empty()) {
      runs.push_back(not_run(label, off, files.refused));
      continue;
    }
    NcclRunSpec spec;
    spec.label = label;
    spec.gdr_off = off;
    spec.command = build_launch(plan, engine_argv(o, binary.path, plan));
    spec.env_unset = env.unset;
    spec.timeout = std::chrono::seconds(o.timeout);
    spec.raw_output =
        fresh_raw_output_path(files.dir, this_host(), std::chrono::system_clock::now(), ::getpid(), label);
    runs.push_back(run_nccl_test(spec));
    std::cerr << "gdrcheck bench: " << safe_line(label) << ": " << safe_line(runs.back().end) << " — "
              << safe_line(runs.back().raw_output) << "\n";
  }
  return runs;
}

// One bench report in the format asked for; the Prometheus file too when
// asked. The time is taken once, when the run ended.
template <typename Report>
void print_bench(const OutputCli& out, const Report& rep,
                 nlohmann::json (*to_json)(const Report&, std::chrono::system_clock::time_point),
                 std::string (*to_prometheus)(const Report&, const PrometheusStamp&),
                 const std::function<std::string()>& to_text) {
  auto now = std::chrono::system_clock::now();
  switch (out.resolved()) {
    case OutputFormat::Json:
      std::cout << json_text(to_json(rep, now)) << "\n";
      break;
    case OutputFormat::Prometheus:
      std::cout << to_prometheus(rep, prometheus_stamp(now));
      break;
    case OutputFormat::Text:
      std::cout << styled_text(to_text(), stdout_output_style(ColorChoice::Never), TextLayout::Prose);
      break;
  }
  write_prometheus_file(out, to_prometheus(rep, prometheus_stamp(now)));
}

// The --root to read: a snapshot tarball is unpacked into `holder` (it
// lives as long as the run needs the files).
std::string bench_root(const BenchCliOptions& o, std::optional<ExtractedRoot>& holder) {
  if (o.root.empty()) return "";
  std::string root = resolve_root_argument(o.root, holder);
  require_recorded_root(root);
  return root;
}

int run_bench_nccl(const BenchCliOptions& o) {
  return run_reporting_errors("bench", [&]() -> int {
    std::optional<ExtractedRoot> unpacked;
    NodeFactsResult node = node_facts(bench_root(o, unpacked));
    NcclBenchReport rep;
    rep.test = o.test;
    LaunchPlan plan = launch_plan(o, node.facts ? node.facts->gpus : 0);
    rep.launcher = plan.launcher;
    rep.hosts = plan.hosts;
    rep.nodes = plan.nodes > 0 ? plan.nodes : static_cast<int>(plan.hosts.size());
    rep.ranks_per_node = plan.ranks_per_node;
    rep.ab = o.ab;
    rep.overrides = overrides(o);
    rep.scenario.nics_per_node = nic_specs(o, node, rep.nic_source);
    if (node.facts) rep.nic_notes = node.facts->notes;
    if (!node.problem.empty()) rep.nic_notes.push_back(node.problem);
    rep.scenario.gpus_per_node = plan.ranks_per_node;
    rep.scenario.nodes = rep.nodes;
    rep.scenario.collective = collective_from_name(o.test);
    rep.scenario.node_type = o.node_type;
    const char* user_algo = std::getenv("NCCL_ALGO");
    rep.scenario.algorithm = user_algo        ? algorithm_from_name(user_algo)
                             : rep.nodes == 2 ? Algorithm::Ring
                                              : Algorithm::Unknown;
    LocatedBinary bin = locate_nccl_test(o.test, o.nccl_tests_dir, env_or("PATH", ""));
    rep.binary = bin.path;
    NcclArmFiles files{private_output_dir(o), ""};
    if (!bin.path.empty())
      files.refused = program_trust_problem_at(bin.path, ::geteuid(), ::getuid(), kNcclTestsTrustFix);
    rep.gdr_on = nccl_arm(o, plan, bin, files, false, rep.nodes, rep.env_notes);
    std::vector<std::string> ignored;
    if (o.ab) rep.gdr_off = nccl_arm(o, plan, bin, files, true, rep.nodes, ignored);
    judge_nccl_bench(rep);
    print_bench(o.output, rep, &nccl_bench_json, &nccl_bench_prometheus,
                [&] { return render_nccl_bench_text(rep, o.verbose); });
    return exit_code(rep.status);
  });
}

int run_bench_rdma(const BenchCliOptions& o) {
  return run_reporting_errors("bench", [&]() -> int {
    std::optional<ExtractedRoot> unpacked;
    NodeFactsResult node = node_facts(bench_root(o, unpacked));
    RdmaRunOptions ro;
    ro.perftest.program = perftest_program(o.perftest, ro.program_problem);
    ro.perftest.seconds = o.duration;
    ro.perftest.size = o.size;
    ro.perftest.qps = o.qps;
    ro.launch = launch_plan(o, 1);
    ro.repeat = o.repeat;
    ro.timeout = std::chrono::seconds(o.timeout);
    ro.output_dir = private_output_dir(o);
    ro.host = this_host();
    NodeNicFacts facts = node.facts ? *node.facts : NodeNicFacts{};
    if (facts.host.empty()) facts.host = ro.host;
    if (!node.problem.empty()) facts.notes.push_back(node.problem);
    if (o.nic_rate > 0)
      for (auto& p : facts.pairs) p.port_rate_gbps = o.nic_rate;
    RdmaBenchReport rep = run_rdma_bench(facts, ro);
    judge_rdma_bench(rep, overrides(o));
    print_bench(o.output, rep, &rdma_bench_json, &rdma_bench_prometheus,
                [&] { return render_rdma_bench_text(rep, o.verbose); });
    return exit_code(rep.status);
  });
}

// (0, 1]: a ratio of 0 would pass any run, above 1 none.
CLI::Validator pass_ratio_range() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !(v > 0 && v <= 1))
          return "value " + text + " not in range (0, 1], e.g. 0.9";
        return "";
      },
      "FLOAT in (0, 1]");
}

void shared_options(CLI::App* cmd, BenchCliOptions& o) {
  cmd->add_option("--launcher", o.launcher, "mpirun, srun or local (default: srun in a Slurm job, mpirun with --hosts)")
      ->check(CLI::IsMember({"mpirun", "srun", "local"}));
  auto* hosts = cmd->add_option("--hosts", o.hosts, "host list, e.g. gpu01,gpu02 or gpu[01-02]");
  auto* hostfile = cmd->add_option("--hostfile", o.hostfile, "Open MPI hostfile");
  hosts->excludes(hostfile);
  cmd->add_option("--nodes", o.nodes, "node count (default: from --hosts or the Slurm allocation)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--launcher-arg", o.launcher_args, "extra launcher argument, verbatim; repeatable");
  cmd->add_option("--repeat", o.repeat, "runs per measurement; the median is judged")->check(CLI::Range(1, 100));
  cmd->add_option("--timeout", o.timeout, "seconds before a run counts as hung (UNKNOWN)")->check(CLI::Range(1, 86400));
  cmd->add_option("--output-dir", o.output_dir,
                  "raw outputs go to a new private directory (mode 0700) created in this one; it must not be "
                  "writable by other users without the sticky bit (default: the current directory)");
  cmd->add_option("--root", o.root, "read NICs and GPU-NIC pairs from this recorded root (default: this machine)");
  auto* rate =
      cmd->add_option("--nic-rate", o.nic_rate, "port rate in Gb/s of the NICs the run uses (hosts without a report)")
          ->check(CLI::Range(1.0, 3200.0));
  cmd->add_option("--link-layer", o.link_layer, "ib or roce, with --nic-rate")
      ->check(CLI::IsMember({"ib", "roce"}))
      ->needs(rate);
  cmd->add_option("--pass-ratio", o.pass_ratio, "pass at this fraction of the expected figure (default 0.9)")
      ->check(pass_ratio_range());
  cmd->add_option("--bandwidth-file", o.bandwidth_file, "site override file (default /etc/gdrcheck/bandwidth.json)");
  add_output_options(cmd, o.output, "gdrcheck.bench/1");
  cmd->add_flag("-v,--verbose", o.verbose, "list OK findings too");
}

// Options that do not go together, refused before anything runs. A
// combination that would be silently ignored is refused too: the run would
// not be the one the user asked for.
void check_combinations(const CLI::App& cmd, const BenchCliOptions& o) {
  bool given_hosts = cmd.count("--hosts") || cmd.count("--hostfile");
  if (o.launcher == "local" && (given_hosts || o.nodes > 1 || !o.launcher_args.empty()))
    throw CLI::ValidationError("--launcher",
                               "local runs on this node only, without a launcher; --hosts, --hostfile, "
                               "--nodes above 1 and --launcher-arg are for mpirun or srun");
  if (o.launcher == "srun" && cmd.count("--hostfile"))
    throw CLI::ValidationError("--hostfile", "is an Open MPI hostfile; srun takes --hosts or the Slurm allocation");
  // --duration belongs to bench rdma only.
  if (cmd.get_option_no_throw("--duration") && cmd.count("--duration") && o.duration >= o.timeout)
    throw CLI::ValidationError("--duration", std::to_string(o.duration) + " s per run cannot end before --timeout " +
                                                 std::to_string(o.timeout) + " s");
  // A directory is checked here; a snapshot tarball when it is unpacked.
  if (!o.root.empty() && !std::filesystem::is_regular_file(o.root)) require_recorded_root(o.root);
}

}  // namespace

CommandRun add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchCliOptions>();
  CLI::App* bench = app.add_subcommand("bench", "active test: nccl-tests and perftest prove GDRDMA and bandwidth");
  bench->require_subcommand(1);
  CLI::App* nccl = bench->add_subcommand("nccl", "nccl-tests with NCCL debug on: GDRDMA proof, busbw vs expected");
  shared_options(nccl, *o);
  nccl->add_option("--test", o->test, "nccl-tests binary name (default all_reduce_perf)");
  nccl->add_option("--nccl-tests", o->nccl_tests_dir,
                   "directory with the nccl-tests binaries (or its build/); default: PATH only. As root, a binary "
                   "others can replace (its file or a directory above it) is refused");
  nccl->add_option("--gpus-per-node", o->gpus_per_node, "ranks per node (default: GPUs `node` finds here)")
      ->check(CLI::Range(1, 128));
  // NICs per node only make an expected busbw with their rate; each is
  // useless alone. bench rdma measures every GPU-NIC pair the node has, so
  // it takes the rate only.
  auto* nics = nccl->add_option("--nics", o->nics, "NICs per node, with --nic-rate")->check(CLI::Range(1, 64));
  nics->needs(nccl->get_option("--nic-rate"));
  nccl->get_option("--nic-rate")->needs(nics);
  nccl->add_option("--test-arg", o->test_args, "replace the test arguments (-b 8 -e 8G -f 2 -g 1); repeatable");
  nccl->add_option("--node-type", o->node_type, "node type for fixed figures in the site file");
  nccl->add_flag("--ab", o->ab, "also run with GDR off (NCCL_NET_GDR_LEVEL=LOC) and report the gain");
  CLI::App* rdma = bench->add_subcommand("rdma", "ib_write_bw per GPU-NIC pair with GPU memory, vs port rate");
  shared_options(rdma, *o);
  rdma->add_option("--perftest", o->perftest,
                   "ib_write_bw program (default: from PATH); as root, refused when others can replace it");
  rdma->add_option("--duration", o->duration, "seconds per ib_write_bw run (-D), below --timeout")
      ->check(CLI::Range(1, 3600));
  rdma->add_option("--size", o->size, "message size in bytes (-s)")->check(CLI::Range(1ul, 1ul << 30));
  rdma->add_option("--qps", o->qps, "queue pairs (-q)")->check(CLI::Range(1, 1024));
  return [o, nccl, rdma] {
    return run_reporting_errors("bench", [&]() -> int {
      check_combinations(nccl->parsed() ? *nccl : *rdma, *o);
      return nccl->parsed() ? run_bench_nccl(*o) : run_bench_rdma(*o);
    });
  };
}

}  // namespace gdrcheck

#include "bench/launcher.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

int node_count(const LaunchPlan& p) {
  if (p.nodes > 0) return p.nodes;
  return static_cast<int>(p.hosts.size());
}

LaunchCommand mpirun_command(const LaunchPlan& p, const std::vector<std::string>& engine) {
  LaunchCommand c;
  c.argv.push_back(p.program.empty() ? "mpirun" : p.program);
  if (p.running_as_root) c.argv.push_back("--allow-run-as-root");
  int nodes = node_count(p);
  c.total_ranks = nodes * p.ranks_per_node;
  c.argv.insert(c.argv.end(), {"-np", std::to_string(c.total_ranks)});
  if (!p.hosts.empty()) {
    std::vector<std::string> slots;
    for (const auto& h : p.hosts) slots.push_back(h + ":" + std::to_string(p.ranks_per_node));
    c.argv.insert(c.argv.end(), {"--host", join(slots, ",")});
  } else if (!p.hostfile.empty()) {
    c.argv.insert(c.argv.end(), {"--hostfile", p.hostfile});
  }
  // ppr keeps ranks_per_node ranks on each node whatever the slot counts
  // say; NCCL pins each rank near its GPU itself, so no MPI binding.
  c.argv.insert(c.argv.end(), {"--map-by", "ppr:" + std::to_string(p.ranks_per_node) + ":node", "--bind-to", "none"});
  for (const auto& kv : p.env) c.argv.insert(c.argv.end(), {"-x", kv.first});
  c.argv.insert(c.argv.end(), p.extra_args.begin(), p.extra_args.end());
  c.argv.insert(c.argv.end(), engine.begin(), engine.end());
  c.env_set = p.env;
  return c;
}

LaunchCommand srun_command(const LaunchPlan& p, const std::vector<std::string>& engine) {
  LaunchCommand c;
  c.argv.push_back(p.program.empty() ? "srun" : p.program);
  int nodes = node_count(p);
  if (nodes > 0) {
    c.argv.push_back("--nodes=" + std::to_string(nodes));
    c.total_ranks = nodes * p.ranks_per_node;
  }
  if (!p.hosts.empty()) c.argv.push_back("--nodelist=" + join(p.hosts, ","));
  c.argv.push_back("--ntasks-per-node=" + std::to_string(p.ranks_per_node));
  std::vector<std::string> names{"ALL"};
  for (const auto& kv : p.env) names.push_back(kv.first);
  c.argv.push_back("--export=" + join(names, ","));
  // One rank failing ends the step instead of leaving the others waiting
  // in NCCL's bootstrap until the timeout.
  c.argv.push_back("--kill-on-bad-exit=1");
  c.argv.insert(c.argv.end(), p.extra_args.begin(), p.extra_args.end());
  c.argv.insert(c.argv.end(), engine.begin(), engine.end());
  c.env_set = p.env;
  return c;
}

LaunchCommand local_command(const LaunchPlan& p, const std::vector<std::string>& engine) {
  LaunchCommand c;
  c.argv = engine;
  c.env_set = p.env;
  c.total_ranks = 1;
  return c;
}

}  // namespace

const char* bench_launcher_name(BenchLauncher l) {
  switch (l) {
    case BenchLauncher::Mpirun:
      return "mpirun";
    case BenchLauncher::Srun:
      return "srun";
    case BenchLauncher::Local:
      return "local";
  }
  return "local";
}

std::optional<BenchLauncher> bench_launcher_from_name(const std::string& name) {
  for (BenchLauncher l : {BenchLauncher::Mpirun, BenchLauncher::Srun, BenchLauncher::Local})
    if (name == bench_launcher_name(l)) return l;
  return std::nullopt;
}

std::string launch_plan_problem(const LaunchPlan& p) {
  if (p.ranks_per_node < 1) return "at least one rank (GPU) per node is needed";
  switch (p.launcher) {
    case BenchLauncher::Mpirun:
      if (p.hosts.empty() && p.hostfile.empty()) return "mpirun needs --hosts or --hostfile";
      if (node_count(p) < 1) return "mpirun with --hostfile needs the node count (--nodes)";
      return "";
    case BenchLauncher::Srun:
    case BenchLauncher::Local:
      return "";
  }
  return "";
}

LaunchCommand build_launch(const LaunchPlan& plan, const std::vector<std::string>& engine) {
  switch (plan.launcher) {
    case BenchLauncher::Mpirun:
      return mpirun_command(plan, engine);
    case BenchLauncher::Srun:
      return srun_command(plan, engine);
    case BenchLauncher::Local:
      return local_command(plan, engine);
  }
  return local_command(plan, engine);
}

}  // namespace gdrcheck

// How `gdrcheck bench` starts the engines on the nodes: the argument vector
// and environment for Open MPI `mpirun`, Slurm `srun`, or a plain local run.
// Pure: nothing is started here (src/host/process.h does that).
//
// NCCL settings must reach every rank, and each launcher carries them its own
// way: Open MPI forwards only the variables named with `-x NAME`; srun
// forwards what `--export` names (ALL plus the names, values taken from
// srun's own environment, so a value holding ',' survives); a local run
// inherits the environment. In every case the values are set on the
// launcher's own environment, never spliced into an argument string.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gdrcheck {

enum class BenchLauncher { Mpirun, Srun, Local };

const char* bench_launcher_name(BenchLauncher l);  // "mpirun", "srun", "local"
std::optional<BenchLauncher> bench_launcher_from_name(const std::string& name);

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct LaunchPlan {
  BenchLauncher launcher = BenchLauncher::Local;
  // mpirun: each host gets `ranks_per_node` slots (--host h1:R,h2:R).
  // srun: the node list (-w h1,h2). Empty: the hostfile (mpirun) or the
  // Slurm allocation (srun) decides.
  std::vector<std::string> hosts;
  std::string hostfile;    // mpirun --hostfile
  int nodes = 0;           // 0 = hosts.size(), or the allocation's (srun)
  int ranks_per_node = 1;  // one rank per GPU
  // Exported to every rank (NCCL_DEBUG=INFO, the user's NCCL_*, ...).
  EnvList env;
  bool running_as_root = false;         // mpirun refuses root without --allow-run-as-root
  std::string program;                  // "mpirun" / "srun"; empty = the launcher's name
  std::vector<std::string> extra_args;  // given verbatim, before the program
};

struct LaunchCommand {
  std::vector<std::string> argv;
  EnvList env_set;      // set on the launcher process
  int total_ranks = 0;  // 0 when the launcher decides (srun without -N)
};

// `engine` is the program and its arguments as one rank runs it. For a local
// run with several GPUs, the caller passes nccl-tests' `-g N` itself (one
// process drives all GPUs); the plan only decides how ranks are spread.
LaunchCommand build_launch(const LaunchPlan& plan, const std::vector<std::string>& engine);

// Problems with a plan before anything runs (no hosts for mpirun, zero
// ranks, ...); empty when it can run.
std::string launch_plan_problem(const LaunchPlan& plan);

}  // namespace gdrcheck

#include "cli/launcher_options.h"

#include <stdexcept>
#include <unordered_set>

#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "host/user_file.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

constexpr const char* kGroup = "Launchers";

// Remembered as a tuning option of LauncherCli.
CLI::Option* tuning(LauncherCli& c, CLI::Option* option) {
  c.tuning.push_back(option);
  return option->group(kGroup);
}

void add_host_options(CLI::App* cmd, LauncherCli& c) {
  cmd->add_option("--ssh", c.ssh, "run on these hosts over ssh (host list: gpu[01-04],login1; repeatable)")
      ->group(kGroup);
  cmd->add_option("--hostfile", c.hostfile, "run over ssh on the hosts of this file (one per line, # comments)")
      ->group(kGroup);
  cmd->add_option("--pdsh", c.pdsh, "run through pdsh -R ssh on this host list (gpu[001-128])")->group(kGroup);
  cmd->add_flag("--slurm", c.slurm, "run through srun, one task per node (the current allocation by default)")
      ->group(kGroup);
  tuning(c, cmd->add_option("-N,--nodes", c.nodes, "--slurm: number of nodes (srun --nodes)"));
  tuning(c, cmd->add_option("-w,--nodelist", c.nodelist, "--slurm: these nodes (srun --nodelist)"));
  tuning(c, cmd->add_option("-p,--partition", c.partition, "--slurm: this partition (srun --partition)"));
  tuning(c,
         cmd->add_option("--srun-arg", c.srun_args, "--slurm: one more srun argument, e.g. --srun-arg=--account=ops"));
  tuning(c, cmd->add_option("--slurm-dir", c.slurm_dir,
                            "--slurm: where the per-node output directory is made; must be shared with the nodes "
                            "(default: the current directory)"));
}

void add_tuning_options(CLI::App* cmd, LauncherCli& c) {
  tuning(c, cmd->add_option("--fanout", c.fanout, "hosts contacted at once over ssh or pdsh (default 32)")
                ->check(CLI::Range(1, 4096)));
  tuning(c, cmd->add_option("--timeout", c.timeout_s,
                            "seconds per host (ssh, pdsh) or for the whole srun step (default 60)")
                ->check(CLI::Range(1, 86400)));
  tuning(c, cmd->add_option("--connect-timeout", c.connect_timeout_s, "seconds for ssh to connect (default 10)")
                ->check(CLI::Range(1, 3600)));
  tuning(c, cmd->add_option("--ssh-option", c.ssh_options,
                            "an ssh -o option KEY=VALUE, e.g. IdentityFile=/root/.ssh/cluster"));
  tuning(c, cmd->add_option("-l,--user", c.user, "log in as this user (ssh -l)"));
  tuning(c, cmd->add_option("--node-env", c.node_env,
                            "NCCL setting NAME=VALUE for the prediction on every node; repeatable"));
  tuning(c, cmd->add_option("--node-nccl-version", c.node_nccl_version, "predict for this NCCL release on every node"));
}

std::vector<std::string> ssh_hosts(const LauncherCli& c) {
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  auto add = [&](std::vector<std::string> more) {
    for (auto& h : more)
      if (seen.insert(h).second) hosts.push_back(std::move(h));
  };
  for (const auto& list : c.ssh) {
    try {
      add(expand_hostlist(list));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--ssh '" + list + "': " + e.what());
    }
  }
  if (!c.hostfile.empty()) add(read_hostfile(c.hostfile));
  return hosts;
}

std::vector<std::string> node_arguments(const LauncherCli& c) {
  std::vector<std::string> args = {"node", "--json"};
  for (const auto& e : c.node_env) {
    args.push_back("--env");
    args.push_back(e);
  }
  if (!c.node_nccl_version.empty()) {
    args.push_back("--nccl-version");
    args.push_back(c.node_nccl_version);
  }
  return args;
}

void check_slurm_only_options(const LauncherCli& c) {
  bool slurm_tuned =
      !c.nodes.empty() || !c.nodelist.empty() || !c.partition.empty() || !c.srun_args.empty() || !c.slurm_dir.empty();
  if (slurm_tuned && !c.slurm) throw std::invalid_argument("-N, -w, -p, --srun-arg and --slurm-dir go with --slurm");
}

}  // namespace

int LauncherCli::launchers() const {
  return (!ssh.empty() || !hostfile.empty() ? 1 : 0) + (!pdsh.empty() ? 1 : 0) + (slurm ? 1 : 0);
}

std::vector<std::string> LauncherCli::tuning_given() const {
  std::vector<std::string> given;
  for (const CLI::Option* o : tuning)
    if (o->count() > 0) given.push_back(o->get_name());
  return given;
}

void add_launcher_options(CLI::App* cmd, LauncherCli& cli) {
  add_host_options(cmd, cli);
  add_tuning_options(cmd, cli);
}

LaunchOptions launch_options(const LauncherCli& c, const std::string& remote_gdrcheck) {
  check_slurm_only_options(c);
  LaunchOptions o;
  if (c.slurm) {
    o.launcher = Launcher::Slurm;
    o.slurm = {c.nodes, c.nodelist, c.partition, c.srun_args};
    o.scratch_dir = c.slurm_dir;
  } else if (!c.pdsh.empty()) {
    o.launcher = Launcher::Pdsh;
    o.hosts = split_hostlist(c.pdsh);
  } else {
    o.launcher = Launcher::Ssh;
    o.hosts = ssh_hosts(c);
  }
  o.remote_gdrcheck = remote_gdrcheck;
  o.remote_args = node_arguments(c);
  o.fanout = c.fanout;
  o.timeout = std::chrono::seconds(c.timeout_s);
  o.connect_timeout = std::chrono::seconds(c.connect_timeout_s);
  o.ssh_options = c.ssh_options;
  o.ssh_user = c.user;
  if (std::string problem = launch_options_error(o); !problem.empty()) throw std::invalid_argument(problem);
  return o;
}

}  // namespace gdrcheck

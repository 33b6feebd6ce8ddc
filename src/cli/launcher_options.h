// The options of `gdrcheck cluster` that choose and tune a launcher
// (--ssh/--hostfile, --pdsh, --slurm) and what each node is asked to run,
// turned into the LaunchOptions of src/cluster/launcher.h.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cluster/launcher.h"

namespace gdrcheck {

struct LauncherCli {
  std::vector<std::string> ssh;  // --ssh, each a host list ("gpu[01-04],login1")
  std::string hostfile;          // --hostfile
  std::string pdsh;              // --pdsh HOSTLIST
  bool slurm = false;            // --slurm
  std::string nodes, nodelist, partition;
  std::vector<std::string> srun_args;
  std::string slurm_dir;
  std::size_t fanout = 32;
  int timeout_s = 60, connect_timeout_s = 10;
  std::vector<std::string> ssh_options;
  std::string user;
  // Passed on to `gdrcheck node` on every host.
  std::vector<std::string> node_env;
  std::string node_nccl_version;

  // The options that tune a launcher or what it runs (not the launchers
  // themselves), to tell which were given on the command line.
  std::vector<const CLI::Option*> tuning;

  // How many of --ssh/--hostfile, --pdsh and --slurm were given (the
  // command needs exactly one source of reports).
  int launchers() const;
  // The tuning options given ("--nodes", "--fanout"), in declaration
  // order: with --from nothing is launched, so each is a usage error.
  std::vector<std::string> tuning_given() const;
};

void add_launcher_options(CLI::App* cmd, LauncherCli& cli);

// Throws InputError for an unreadable or empty --hostfile and
// std::invalid_argument for options that cannot go together (a usage error).
LaunchOptions launch_options(const LauncherCli& cli, const std::string& remote_gdrcheck);

}  // namespace gdrcheck

#include "cluster/launcher.h"

#include <algorithm>
#include <string>
#include <vector>

#include "cluster/hostlist.h"
#include "cluster/pdsh_launch.h"
#include "cluster/remote_end.h"
#include "cluster/srun_launch.h"
#include "host/process.h"

namespace gdrcheck {
namespace {

std::vector<std::string> remote_words(const LaunchOptions& opts) {
  std::vector<std::string> words = {opts.remote_gdrcheck};
  words.insert(words.end(), opts.remote_args.begin(), opts.remote_args.end());
  return words;
}

bool has_blank_or_line_end(const std::string& s) {
  return s.find_first_of(" \t\r\n") != std::string::npos;
}

// --- ssh --------------------------------------------------------------------

std::vector<NodeOutcome> run_ssh(const LaunchOptions& opts) {
  std::vector<ProcessSpec> specs;
  for (const auto& host : opts.hosts) {
    ProcessSpec spec;
    spec.argv = ssh_argv(host, opts);
    spec.timeout = opts.timeout;
    spec.kill_grace = std::chrono::milliseconds(1000);
    spec.output_limit = kNodeReportLimit;
    spec.stop_at_output_limit = true;
    spec.error_limit = kNodeStderrLimit;
    spec.keep_error_tail = true;
    specs.push_back(std::move(spec));
  }
  std::vector<ProcessResult> results = run_processes(specs, std::max<std::size_t>(opts.fanout, 1));
  std::vector<NodeOutcome> outcomes;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (opts.hosts[i].empty()) {
      outcomes.push_back({opts.hosts[i], NodeOutcome::How::Unreachable, "", "empty host name", -1});
      continue;
    }
    outcomes.push_back(
        launch::classify(opts.hosts[i], launch::remote_end_of(std::move(results[i]), "ssh"), opts.timeout));
    results[i] = ProcessResult();  // each host's output is held once
  }
  return outcomes;
}

}  // namespace

std::string remote_shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string remote_command_line(const LaunchOptions& opts) {
  std::string line;
  for (const auto& word : remote_words(opts)) {
    if (!line.empty()) line += ' ';
    line += remote_shell_quote(word);
  }
  return line;
}

std::vector<std::string> ssh_argv(const std::string& host, const LaunchOptions& opts) {
  std::vector<std::string> argv = {opts.ssh_program,
                                   "-T",
                                   "-a",
                                   "-x",
                                   "-o",
                                   "BatchMode=yes",
                                   "-o",
                                   "ConnectTimeout=" + std::to_string(opts.connect_timeout.count())};
  for (const auto& option : opts.ssh_options) {
    argv.push_back("-o");
    argv.push_back(option);
  }
  if (!opts.ssh_user.empty()) {
    argv.push_back("-l");
    argv.push_back(opts.ssh_user);
  }
  argv.push_back("--");
  argv.push_back(host);
  // ssh sends one string that the remote shell parses: quote each word.
  argv.push_back(remote_command_line(opts));
  return argv;
}

std::vector<std::string> pdsh_argv(const std::string& hostlist, const LaunchOptions& opts) {
  std::vector<std::string> argv = {opts.pdsh_program,
                                   "-R",
                                   "ssh",
                                   "-w",
                                   hostlist,
                                   "-f",
                                   std::to_string(std::max<std::size_t>(opts.fanout, 1)),
                                   "-t",
                                   std::to_string(opts.connect_timeout.count()),
                                   "-u",
                                   std::to_string(opts.timeout.count())};
  if (!opts.ssh_user.empty()) {
    argv.push_back("-l");
    argv.push_back(opts.ssh_user);
  }
  argv.push_back("--");
  // pdsh hands these to ssh, which joins them for the remote shell.
  for (const auto& word : remote_words(opts)) argv.push_back(remote_shell_quote(word));
  return argv;
}

std::vector<std::pair<std::string, std::string>> pdsh_env(const LaunchOptions& opts) {
  // PDSH_SSH_ARGS replaces pdsh's default ssh arguments so that "--" comes
  // before the host; pdsh splits it at white space (see
  // launch_options_error).
  std::string args = "-T -a -x -oBatchMode=yes";
  for (const auto& option : opts.ssh_options) args += " -o" + option;
  if (!opts.ssh_user.empty()) args += " -l%u";
  args += " -- %h";
  return {{"PDSH_SSH_ARGS", args}};
}

std::vector<std::string> srun_argv(const LaunchOptions& opts, const std::string& output_dir) {
  std::vector<std::string> argv = {opts.srun_program, "--job-name=gdrcheck", "--ntasks-per-node=1"};
  if (!opts.slurm.nodes.empty()) argv.push_back("--nodes=" + opts.slurm.nodes);
  if (!opts.slurm.nodelist.empty()) argv.push_back("--nodelist=" + opts.slurm.nodelist);
  if (!opts.slurm.partition.empty()) argv.push_back("--partition=" + opts.slurm.partition);
  argv.push_back("--kill-on-bad-exit=0");
  argv.push_back("--input=none");
  // One file per task (= per node). Not --label: srun cuts lines longer
  // than 1 KiB into labelled pieces, which cannot be told from real line
  // breaks. Not %N: that is the node's host name, not its Slurm name.
  argv.push_back("--output=" + output_dir + "/%t.out");
  argv.push_back("--error=" + output_dir + "/%t.err");
  // -v makes srun say on which node it launched each task and how each
  // task ended, success included.
  argv.push_back("--verbose");
  argv.insert(argv.end(), opts.slurm.extra_args.begin(), opts.slurm.extra_args.end());
  argv.push_back("--");
  for (const auto& word : remote_words(opts)) argv.push_back(word);
  return argv;
}

std::string launch_options_error(const LaunchOptions& opts) {
  if (opts.remote_gdrcheck.empty()) return "the remote gdrcheck path is empty";
  if (opts.launcher != Launcher::Slurm && opts.hosts.empty()) return "no hosts given";
  for (const auto& option : opts.ssh_options) {
    if (option.empty() || option.find('=') == std::string::npos) return "ssh option '" + option + "' is not Key=Value";
    if (opts.launcher == Launcher::Pdsh && has_blank_or_line_end(option))
      return "ssh option '" + option + "' holds white space, which pdsh cannot pass to ssh";
  }
  if (opts.timeout.count() <= 0) return "the timeout must be at least 1 s";
  if (opts.connect_timeout.count() <= 0) return "the connect timeout must be at least 1 s";
  if (!opts.slurm.nodelist.empty()) {
    try {
      expand_hostlist(opts.slurm.nodelist);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  }
  return "";
}

std::vector<NodeOutcome> run_on_hosts(const LaunchOptions& opts) {
  std::string problem = launch_options_error(opts);
  if (!problem.empty()) throw std::invalid_argument(problem);
  switch (opts.launcher) {
    case Launcher::Ssh:
      return run_ssh(opts);
    case Launcher::Pdsh:
      return launch::run_pdsh(opts);
    case Launcher::Slurm:
      return launch::run_slurm(opts);
  }
  return {};
}

}  // namespace gdrcheck

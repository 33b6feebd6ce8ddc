// Runs `gdrcheck node --json` on many hosts through what clusters already
// run — Slurm (`srun`), pdsh or OpenSSH — and returns one NodeOutcome per
// host. Every launcher gets an argument vector (src/host/process.h): host
// names and options are never interpolated into a local shell string, so a
// host named "a;rm -rf /" is only an unknown host.
//
// The one unavoidable shell is on the remote side: ssh (and pdsh over ssh)
// joins the remote command into one string that the remote user's shell
// parses. Each remote argument is therefore single-quoted
// (remote_shell_quote) before it is handed to ssh/pdsh.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cluster/node_result.h"

namespace gdrcheck {

enum class Launcher { Ssh, Pdsh, Slurm };

// What is kept of each node's answer. A node report is a few KiB to a few
// hundred KiB; 8 MiB leaves room for the largest while bounding a cluster
// run to about fanout x 8 MiB however much a broken or hostile host prints.
// A node whose stdout is larger is NotAReport (UNKNOWN) with "report larger
// than 8 MiB", and what was kept of it is never parsed.
inline constexpr std::size_t kNodeReportLimit = 8u << 20;
// stderr only explains a failure, and ssh, pdsh and the remote shell say
// what went wrong last: the last 64 KiB of each node's stderr are kept.
inline constexpr std::size_t kNodeStderrLimit = 64u << 10;

struct SlurmOptions {
  // Empty = the current allocation (SLURM_JOB_ID / SLURM_NNODES) decides.
  std::string nodes;      // -N / --nodes, e.g. "4"
  std::string nodelist;   // -w / --nodelist, e.g. "gpu[01-04]"
  std::string partition;  // -p / --partition
  // Passed to srun verbatim, each one argument (e.g. "--account=ops").
  std::vector<std::string> extra_args;
};

struct LaunchOptions {
  Launcher launcher = Launcher::Ssh;
  // ssh: one entry per host. pdsh: the entries are joined with ',' into one
  // pdsh host list (so "gpu[01-16]" is expanded by pdsh itself, and by
  // expand_hostlist for the per-host outcomes). Slurm: ignored (use slurm).
  std::vector<std::string> hosts;
  SlurmOptions slurm;

  // The program run on each host and its arguments after it. The report is
  // its stdout.
  std::string remote_gdrcheck = "gdrcheck";
  std::vector<std::string> remote_args = {"node", "--json"};

  std::size_t fanout = 32;                   // hosts contacted at once (ssh, pdsh)
  std::chrono::seconds timeout{60};          // per host (ssh, pdsh); whole step (Slurm)
  std::chrono::seconds connect_timeout{10};  // ssh ConnectTimeout

  // Executables; a name without '/' is looked up in PATH.
  std::string ssh_program = "ssh";
  std::string pdsh_program = "pdsh";
  std::string srun_program = "srun";
  // Asked, before srun, which nodes of a -w list Slurm will schedule
  // (cluster/slurm_schedulable.h).
  std::string scontrol_program = "scontrol";

  // Extra `-o` options for ssh (and pdsh's ssh), each "Key=Value", e.g.
  // "StrictHostKeyChecking=accept-new", "IdentityFile=/path/key",
  // "UserKnownHostsFile=/etc/ssh/cluster_known_hosts". BatchMode=yes and
  // ConnectTimeout are always set: no password or passphrase prompt ever.
  std::vector<std::string> ssh_options;
  std::string ssh_user;  // "" = ssh's default (ssh -l USER)

  // Slurm: per-node output files go to a fresh private directory (mkdtemp,
  // mode 0700: no other user can create or replace a file in it) made here
  // and removed afterwards. It must be shared with the nodes ("" = the
  // current directory, as for sbatch's output files). The files are read
  // without following links, only when regular, up to the limits above.
  std::string scratch_dir;
};

// Runs the remote command on every host and classifies each result:
//   Report       exit status 0..3 (gdrcheck's verdicts) with output; the raw
//                stdout is handed over unvalidated (JSON checks are the
//                caller's, which turns a bad one into NotAReport)
//   NotAReport   exit status 0..3 but no output at all, or more stdout than
//                kNodeReportLimit (whatever the exit status; the host is
//                then stopped rather than waited for)
//   Unreachable  ssh/pdsh could not connect or log in (status 255 with
//                ssh's message), a host name pdsh cannot take, or a Slurm
//                node that produced nothing
//   TimedOut     no complete answer within `timeout`
//   Crashed      killed by a signal (128+N from a shell, ssh's bare 255,
//                or srun's "Segmentation fault" line)
//   Failed       any other exit status, or the launcher could not start
// Outcomes come back in host order (pdsh: host-list order; Slurm: the node
// list, then any other node srun launched on); nothing that came back
// is dropped: `raw` always holds the host's stdout (its first
// kNodeReportLimit bytes). Throws
// std::invalid_argument with launch_options_error's text for bad options,
// std::runtime_error when the Slurm output directory cannot be created.
std::vector<NodeOutcome> run_on_hosts(const LaunchOptions& opts);

// "" when `opts` can be run, else what is wrong with them (a usage error).
std::string launch_options_error(const LaunchOptions& opts);

// The pure parts, unit-tested.

// 'it'"'"'s' quoting for a POSIX shell: the result is one word whatever the
// input holds.
std::string remote_shell_quote(const std::string& word);
// The remote command as ssh/pdsh send it: each word quoted, joined by ' '.
std::string remote_command_line(const LaunchOptions& opts);

// ssh [-o ...] [-l user] -- HOST 'gdrcheck' 'node' '--json'
std::vector<std::string> ssh_argv(const std::string& host, const LaunchOptions& opts);
// pdsh -R ssh -w HOSTLIST -f FANOUT -t CONNECT -u TIMEOUT -- 'gdrcheck' ...;
// per-host status is read from pdsh's "HOST: ssh exited with exit code N"
// lines (see launcher.cc).
std::vector<std::string> pdsh_argv(const std::string& hostlist, const LaunchOptions& opts);
// The environment pdsh's ssh module needs (PDSH_SSH_ARGS_APPEND).
std::vector<std::pair<std::string, std::string>> pdsh_env(const LaunchOptions& opts);
// srun --job-name=gdrcheck --ntasks-per-node=1 [--nodes=N] [--nodelist=L]
//      [--partition=P] --kill-on-bad-exit=0 --input=none
//      --output=DIR/%t.out --error=DIR/%t.err --verbose [extra] --
//      gdrcheck node --json
// slurmd writes each task's files on its node, so DIR must be on a file
// system the nodes share (run_on_hosts makes it under `scratch_dir`);
// srun's --verbose lines say which node ran which task and how it ended.
std::vector<std::string> srun_argv(const LaunchOptions& opts, const std::string& output_dir);

}  // namespace gdrcheck

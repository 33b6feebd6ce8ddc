// Draining failed nodes in Slurm, and resuming them once they pass: one
// `scontrol update NodeName=HOST State=DRAIN Reason="gdrcheck: acs CRITICAL"`
// per CRITICAL node, as an argument vector. `gdrcheck cluster` prints them
// (shell-quoted for copy-paste) and runs them only with `--drain`, through
// the process runner: the host name and reason are arguments, never parsed
// by a shell. Nodes that could not be checked (UNKNOWN) are not drained:
// an ssh hiccup must not take a healthy node out of service; they are
// listed for a person to look at. Only one plain Slurm node name, the one
// the node was addressed by, is ever drained (cluster/node_name.h), each
// name at most once, and only on a fresh report (cluster/report_age.h).
// How many may be drained at once is cluster/drain_limit.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "cluster/report_age.h"
#include "cluster/slurm_node_state.h"
#include "host/process.h"

namespace gdrcheck {

using Argv = std::vector<std::string>;

inline constexpr std::size_t kMaxDrainReasonBytes = 160;

// "gdrcheck: acs,iommu CRITICAL": the CRITICAL checks, sorted, so a re-run
// sets the same reason and `sinfo -R` groups nodes by cause; at most 160
// bytes, cut between check ids ("gdrcheck: a,b,+3 CRITICAL"). A node
// CRITICAL without a CRITICAL finding is "gdrcheck: node CRITICAL".
std::string drain_reason(const ClusterNode& node);

// When and how drain and resume commands are made.
struct DrainPolicy {
  std::string scontrol = "scontrol";
  UnixSeconds now = 0;                       // read once by the command
  std::int64_t max_age_s = kDefaultMaxAgeS;  // --max-age
  std::string max_age_text = "1h";           // as given, for messages
};

// A CRITICAL node that is not drained, and why ("report is 8 d old
// (max-age 1h)", "a host list, not one node name", ...).
struct NotDrained {
  std::string host;
  std::optional<UnixSeconds> generated_at;
  std::string why;
};

struct DrainPlan {
  std::vector<Argv> commands;           // one per distinct drainable CRITICAL node
  std::vector<std::string> hosts;       // the node of each command
  std::vector<NotDrained> not_drained;  // CRITICAL nodes left alone
  std::vector<std::string> refused;     // "gpu[0-9]: CRITICAL, not drained: a host list, not one node name"
};

DrainPlan drain_plan(const ClusterModel& model, const DrainPolicy& policy);
// drain_plan(...).commands
std::vector<Argv> drain_commands(const ClusterModel& model, const DrainPolicy& policy);

// Nodes that pass (status OK) and that only a plain, confirmed name
// addresses: the ones `--resume` asks Slurm about, in model order, once.
std::vector<std::string> resume_candidates(const ClusterModel& model);

struct ResumePlan {
  std::vector<Argv> commands;           // `scontrol update NodeName=X State=RESUME`
  std::vector<std::string> hosts;       // the node of each command
  std::vector<NotDrained> not_resumed;  // drained by gdrcheck, OK, but the report is not fresh
  std::vector<std::string> others;      // "gpu03: drained for 'disk' (not by gdrcheck); not resumed"
};

// Resumes an OK node with a fresh report only when Slurm shows it drained
// with a reason gdrcheck set; a node drained for anything else stays.
ResumePlan resume_plan(const ClusterModel& model, const std::map<std::string, SlurmNodeState>& slurm,
                       const DrainPolicy& policy);

// What a run did, or would do, in Slurm besides the drain commands
// themselves: for the text and JSON renderers.
struct SlurmActions {
  UnixSeconds now = 0;  // the run's time, against which reports are aged
  std::string max_age = "1h";
  std::int64_t max_age_s = kDefaultMaxAgeS;
  std::vector<NotDrained> not_drained;    // CRITICAL nodes left alone, each with why
  std::string max_drain = "5%";           // --max-drain as given
  std::size_t max_drain_nodes = 1;        // the nodes it allows in this run
  std::string limit_refusal;              // past --max-drain: why nothing is drained
  bool drain_requested = false;           // --drain
  bool dry_run = false;                   // --dry-run: nothing is run
  bool resume_requested = false;          // --resume
  std::vector<Argv> resume;               // RESUME commands
  bool resumed = false;                   // --resume ran them all successfully
  std::vector<NotDrained> not_resumed;    // drained by gdrcheck, OK, report not fresh
  std::vector<std::string> resume_notes;  // drained by someone else; Slurm could not be asked
};

// One word for a POSIX shell, quoted only when it needs to be.
std::string shell_word(const std::string& word);
// The argument vector as one copy-pasteable line.
std::string shell_line(const Argv& argv);

// Runs each command (argv only) and returns the results in order.
std::vector<ProcessResult> run_drain(const std::vector<Argv>& commands);

}  // namespace gdrcheck

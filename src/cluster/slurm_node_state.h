// What Slurm says of a node, from `scontrol -o show node NAMES` (one line
// per node):
//   NodeName=gpu06 Arch=x86_64 ... State=IDLE+DRAIN ThreadsPerCore=2 ...
//   Reason=gdrcheck: peermem CRITICAL [root@2026-12-03T17:00:00]
// `gdrcheck cluster --resume` resumes only nodes that Slurm shows drained
// with a reason gdrcheck wrote: a node an administrator drained for a
// failing disk must never come back because its GPUs look fine. Pure:
// the command runs scontrol, this reads its output.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// Every drain reason gdrcheck sets starts with this (cluster/drain.h).
inline constexpr std::string_view kDrainReasonPrefix = "gdrcheck:";

struct SlurmNodeState {
  std::string name;    // NodeName
  std::string state;   // "IDLE+DRAIN", "DOWN+DRAIN+NOT_RESPONDING", ...
  std::string reason;  // without Slurm's " [user@time]" suffix; "" when none
  bool drain = false;  // the DRAIN flag is set (draining or drained)

  // Drained, and by gdrcheck (reason starts with "gdrcheck:").
  bool drained_by_gdrcheck() const;
};

// `scontrol -o show node a,b,c`: the command whose output is read here.
// Each entry is a node name or a Slurm host list ("gpu[01-08]"); joined
// with ',' they are one node list for scontrol.
std::vector<std::string> slurm_show_command(const std::vector<std::string>& nodes, const std::string& scontrol);

// One record per line that starts with "NodeName="; other lines (blank,
// errors such as "Node gpu99 not found") are skipped. By node name; a name
// given twice keeps its first line.
std::map<std::string, SlurmNodeState> parse_slurm_nodes(std::string_view scontrol_output);

// One line; nullopt-like empty name when it is not a node record.
SlurmNodeState parse_slurm_node_line(std::string_view line);

}  // namespace gdrcheck

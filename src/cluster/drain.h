// Draining failed nodes in Slurm: one `scontrol update NodeName=HOST
// State=DRAIN Reason="gdrcheck: ..."` per CRITICAL node, as an argument
// vector. `gdrcheck cluster` prints them (shell-quoted for copy-paste) and
// runs them only with `--drain`, through the process runner: the host name
// and reason are arguments, never parsed by a shell. Nodes that could not
// be checked (UNKNOWN) are not drained: an ssh hiccup must not take a
// healthy node out of service; they are listed for a person to look at.
// Only one plain Slurm node name, the one the node was addressed by, is
// ever drained (cluster/node_name.h), and each name at most once.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "host/process.h"

namespace gdrcheck {

using Argv = std::vector<std::string>;

// "gdrcheck: peermem: neither a peer-memory module nor ... (+2 more)",
// at most 160 bytes, one line, no control bytes, never a cut UTF-8
// character.
std::string drain_reason(const ClusterNode& node);

struct DrainPlan {
  std::vector<Argv> commands;        // one per distinct drainable CRITICAL node
  std::vector<std::string> refused;  // "gpu[0-9]: CRITICAL, not drained: a host list, not one node name"
};

DrainPlan drain_plan(const ClusterModel& model, const std::string& scontrol = "scontrol");
// drain_plan(...).commands
std::vector<Argv> drain_commands(const ClusterModel& model, const std::string& scontrol = "scontrol");

// One word for a POSIX shell, quoted only when it needs to be.
std::string shell_word(const std::string& word);
// The argument vector as one copy-pasteable line.
std::string shell_line(const Argv& argv);

// Runs each command (argv only) and returns the results in order.
std::vector<ProcessResult> run_drain(const std::vector<Argv>& commands);

}  // namespace gdrcheck

// Which of the nodes an operator named for `cluster --slurm -w LIST` can
// take a job now. srun asks for all of them at once, and Slurm starts no
// job on a drained, down or powered-down node: one such node in the list
// leaves the whole step pending until the timeout, and every node of the
// cluster comes back UNKNOWN. So the nodes Slurm will not schedule are
// left out of the srun and reported as not checked, with how to reach them
// (over ssh or pdsh, or the health check, which slurmd runs whatever the
// node's state). Pure: the launcher runs scontrol, this reads its answer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/node_result.h"
#include "cluster/slurm_node_state.h"

namespace gdrcheck {

// False when the node's State has a base state or flag under which Slurm
// starts no new job: DOWN, DRAIN (drained or draining), FAIL, FUTURE,
// NOT_RESPONDING, POWERED_DOWN and powering down, INVAL, UNKNOWN.
// RESERVED and MAINT are kept: the operator may be running inside the
// reservation (--srun-arg=--reservation=...).
bool takes_new_jobs(const SlurmNodeState& node);

struct SchedulableSplit {
  std::vector<std::string> runnable;  // in the order given
  std::vector<NodeOutcome> skipped;   // How::NotSchedulable, with the reason
};

// `nodes` split by what scontrol said of them (`slurm`, by NodeName). A
// node scontrol did not list stays runnable: srun reports it then.
SchedulableSplit split_schedulable(const std::vector<std::string>& nodes,
                                   const std::map<std::string, SlurmNodeState>& slurm);

}  // namespace gdrcheck

// `gdrcheck cluster --slurm`: one srun step with a task per node, each
// node's report in a file of a private directory, srun's -v log telling
// how each task ended; nodes Slurm will not schedule are left out first
// (slurm_schedulable.h).
#pragma once

#include <vector>

#include "cluster/launcher.h"
#include "cluster/node_result.h"

namespace gdrcheck::launch {

std::vector<NodeOutcome> run_slurm(const LaunchOptions& opts);

}  // namespace gdrcheck::launch

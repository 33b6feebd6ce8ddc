// How many CPUs this process may run on: its affinity mask (taskset,
// cpusets, a Slurm step's binding), not the CPUs the machine has. A
// second thread on a process bound to one CPU only takes turns with the
// first.
#pragma once

#include <cstddef>

namespace gdrcheck {

// At least 1; the online CPU count when the mask cannot be read.
std::size_t usable_cpus();

}  // namespace gdrcheck

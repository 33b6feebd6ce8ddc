// The process groups of the programs gdrcheck is running right now (ssh,
// pdsh, srun, mpirun, perftest). Each child runs in its own group, so a
// terminal's Ctrl-C or timeout(1)'s SIGTERM never reaches it: when
// gdrcheck is told to stop, this table is how it finds and ends them.
//
// A fixed table of atomics: the functions marked async-signal-safe are
// called from a signal handler, which may interrupt any thread at any
// point (even one in the middle of adding or removing a group), so they
// may not allocate or take a lock.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace gdrcheck {

// More than the largest --fanout (4096) plus the few programs a bench run
// starts beside it.
constexpr std::size_t kMaxChildGroups = 8192;

// Records a group that has just been started. False when the table is
// full or `pgid` could not be a child's group (<= 1: kill(-1) would reach
// every process of the user); the caller must then not run the child.
bool register_child_group(pid_t pgid);

// Forgets a group once its leader has been reaped. After
// freeze_child_groups() it does nothing: a stopping gdrcheck ends every
// group it knew, even one whose leader already exited but whose other
// members may not have.
void unregister_child_group(pid_t pgid);

// Async-signal-safe.
void freeze_child_groups();

// Sends `sig` to every recorded group. Async-signal-safe.
void signal_child_groups(int sig);

// True while some recorded group still has a process (a zombie counts
// until someone reaps it). Reaps the members of those groups that are
// this process's own children, since the thread that would otherwise
// reap them may be the one this runs on. Async-signal-safe.
bool child_groups_alive();

// How many groups are recorded (for tests and messages).
std::size_t child_group_count();

}  // namespace gdrcheck

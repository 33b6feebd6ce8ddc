// What gdrcheck does when it is told to stop (Ctrl-C, timeout(1), kill,
// a closed terminal): the programs it started run in their own process
// groups (host/process.h), so those signals never reach them, and without
// this they would outlive gdrcheck — an ssh per host, an mpirun and its
// remote daemons.
//
// On the first SIGINT, SIGTERM or SIGHUP every recorded child group
// (host/child_groups.h) gets SIGTERM, has up to kTerminationGrace to end
// (ssh closes its connections, mpirun tears down its daemons), and what is
// left gets SIGKILL; then gdrcheck exits with 128 + the signal number
// (130, 143, 129), as a shell reports a program the signal ended. A second
// signal during the grace kills the groups at once and exits with 128 +
// that signal.
//
// All of it runs in the signal handler, on whichever thread the signal
// landed: kill, waitpid, clock_gettime, nanosleep, write and _exit are all
// async-signal-safe, so no watcher thread or self-pipe is needed, and a
// single-threaded gdrcheck whose only thread was interrupted still reaps
// and ends its children.
#pragma once

#include <chrono>

namespace gdrcheck {

constexpr std::chrono::milliseconds kTerminationGrace{2000};

// Installs the handlers; call once, early in main, before any child is
// started. A signal that is ignored when this runs stays ignored (nohup,
// a background job of a non-interactive shell): the operator chose that.
void install_termination_handlers();

// True once one of the signals arrived; from then on no new child starts.
// Async-signal-safe.
bool termination_requested();

// Never returns: the handler, running on another thread, is ending the
// children and will end the process. A thread that would otherwise act on
// what the killed children left (report them as failed hosts, exit with
// its own status) waits here instead. Bounded: should the handler not
// finish in time, this ends the groups and the process itself.
[[noreturn]] void await_termination();

}  // namespace gdrcheck

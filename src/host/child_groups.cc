#include "host/child_groups.h"

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>

namespace gdrcheck {
namespace {

static_assert(std::atomic<pid_t>::is_always_lock_free, "the table is read from a signal handler");
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

// 0 marks a free slot.
std::atomic<pid_t> slots[kMaxChildGroups];
std::atomic<bool> frozen{false};

bool group_has_process(pid_t pgid) {
  // EPERM: a member changed its user (a setuid helper) but is still there.
  return ::kill(-pgid, 0) == 0 || errno == EPERM;
}

void reap_own_members(pid_t pgid) {
  int status = 0;
  while (::waitpid(-pgid, &status, WNOHANG) > 0) {
  }
}

}  // namespace

bool register_child_group(pid_t pgid) {
  if (pgid <= 1) return false;
  for (auto& slot : slots) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) return true;
  }
  return false;
}

void unregister_child_group(pid_t pgid) {
  if (frozen.load()) return;
  for (auto& slot : slots) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void freeze_child_groups() {
  frozen.store(true);
}

void signal_child_groups(int sig) {
  int saved = errno;
  for (auto& slot : slots) {
    pid_t pgid = slot.load();
    if (pgid > 1) ::kill(-pgid, sig);
  }
  errno = saved;
}

bool child_groups_alive() {
  int saved = errno;
  bool alive = false;
  for (auto& slot : slots) {
    pid_t pgid = slot.load();
    if (pgid <= 1) continue;
    reap_own_members(pgid);
    if (group_has_process(pgid)) alive = true;
  }
  errno = saved;
  return alive;
}

std::size_t child_group_count() {
  std::size_t n = 0;
  for (auto& slot : slots) {
    if (slot.load() > 1) ++n;
  }
  return n;
}

}  // namespace gdrcheck

#include "host/child_groups.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace gdrcheck {
namespace {

// Above any pid_max (2^22): never a real group, so signalling it is harmless.
constexpr pid_t kFakeGroup = 1 << 30;

// A child of this test in its own group, with a grandchild in the same
// group; returns the group (the child's pid) and the grandchild's pid.
std::pair<pid_t, pid_t> start_group() {
  int fds[2];
  if (::pipe(fds) != 0) return {-1, -1};
  pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    pid_t grandchild = ::fork();
    if (grandchild == 0) {
      for (;;) ::pause();
    }
    ssize_t ignored = ::write(fds[1], &grandchild, sizeof grandchild);
    (void)ignored;
    for (;;) ::pause();
  }
  ::setpgid(child, child);  // also here: the child may not have run yet
  ::close(fds[1]);
  pid_t grandchild = -1;
  if (::read(fds[0], &grandchild, sizeof grandchild) != sizeof grandchild) grandchild = -1;
  ::close(fds[0]);
  return {child, grandchild};
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

TEST(ChildGroupsTest, RecordsAndForgetsAGroup) {
  std::size_t before = child_group_count();
  ASSERT_TRUE(register_child_group(kFakeGroup));
  EXPECT_EQ(child_group_count(), before + 1);
  unregister_child_group(kFakeGroup);
  EXPECT_EQ(child_group_count(), before);
}

TEST(ChildGroupsTest, RefusesGroupsWhoseSignalWouldReachOtherProcesses) {
  std::size_t before = child_group_count();
  EXPECT_FALSE(register_child_group(0));   // kill(0): our own group
  EXPECT_FALSE(register_child_group(1));   // kill(-1): every process we may signal
  EXPECT_FALSE(register_child_group(-7));  // kill(7): one process, not a group
  EXPECT_EQ(child_group_count(), before);
}

TEST(ChildGroupsTest, RefusesAGroupWhenTheTableIsFull) {
  std::vector<pid_t> added;
  for (pid_t g = kFakeGroup; register_child_group(g); ++g) added.push_back(g);
  EXPECT_EQ(child_group_count(), kMaxChildGroups);
  EXPECT_FALSE(register_child_group(kFakeGroup - 1));
  for (pid_t g : added) unregister_child_group(g);
  EXPECT_TRUE(register_child_group(kFakeGroup - 1));
  unregister_child_group(kFakeGroup - 1);
}

TEST(ChildGroupsTest, ASignalReachesEveryMemberOfARecordedGroup) {
  auto [group, grandchild] = start_group();
  ASSERT_GT(group, 1);
  ASSERT_GT(grandchild, 1);
  ASSERT_TRUE(register_child_group(group));
  EXPECT_TRUE(child_groups_alive());

  signal_child_groups(SIGTERM);
  // child_groups_alive reaps the child itself; the orphaned grandchild is
  // reaped by whoever adopts it.
  EXPECT_TRUE(eventually([] { return !child_groups_alive(); }, std::chrono::seconds(5)));
  EXPECT_EQ(::kill(grandchild, 0), -1);
  EXPECT_EQ(::waitpid(group, nullptr, WNOHANG), -1);  // already reaped
  unregister_child_group(group);
  ::kill(-group, SIGKILL);  // should the test have failed
}

TEST(ChildGroupsTest, AnEndedGroupIsNotAlive) {
  std::size_t before = child_group_count();
  ASSERT_EQ(before, 0u) << "another test left a group behind";
  EXPECT_FALSE(child_groups_alive());
  ASSERT_TRUE(register_child_group(kFakeGroup));
  EXPECT_FALSE(child_groups_alive());
  unregister_child_group(kFakeGroup);
}

TEST(ChildGroupsTest, AFrozenTableForgetsNothing) {
  // Freezing cannot be undone: it is done in a forked copy.
  pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = register_child_group(kFakeGroup);
    std::size_t with = child_group_count();
    freeze_child_groups();
    unregister_child_group(kFakeGroup);
    ::_exit(ok && child_group_count() == with ? 0 : 1);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace gdrcheck

// Which programs `bench` may run as root and which directories may hold its
// outputs: the rules on stat facts (every case, no users needed), then on
// real files made untrustworthy with chown/chmod (the tests run as root).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/program_trust.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

constexpr uid_t kRoot = 0, kAlice = 1000, kNobody = 65534;

PathFacts file(mode_t perm, uid_t owner = kRoot) {
  return {"/opt/nccl-tests/build/all_reduce_perf", owner, static_cast<mode_t>(S_IFREG | perm)};
}

PathFacts dir(const std::string& path, mode_t perm, uid_t owner = kRoot) {
  return {path, owner, static_cast<mode_t>(S_IFDIR | perm)};
}

std::vector<PathFacts> good_dirs() {
  return {dir("/", 0755), dir("/opt", 0755), dir("/opt/nccl-tests", 0755), dir("/opt/nccl-tests/build", 0755)};
}

TEST(ProgramTrust, RootOwnedProgramInRootOwnedDirsRuns) {
  EXPECT_EQ(program_trust_problem(file(0755), good_dirs(), kRoot, kRoot), "");
}

TEST(ProgramTrust, TheInvokingUsersOwnBuildRuns) {
  auto dirs = good_dirs();
  dirs.push_back(dir("/home/alice", 0755, kAlice));
  EXPECT_EQ(program_trust_problem(file(0755, kAlice), dirs, kRoot, kAlice), "");
}

TEST(ProgramTrust, WritableByOthersIsRefused) {
  std::string world = program_trust_problem(file(0757), good_dirs(), kRoot, kRoot);
  EXPECT_NE(world.find("world-writable"), std::string::npos) << world;
  EXPECT_NE(world.find("/opt/nccl-tests/build/all_reduce_perf"), std::string::npos);
  std::string group = program_trust_problem(file(0775), good_dirs(), kRoot, kRoot);
  EXPECT_NE(group.find("group-writable"), std::string::npos) << group;
}

TEST(ProgramTrust, OwnedByAnotherUserIsRefused) {
  std::string p = program_trust_problem(file(0755, kNobody), good_dirs(), kRoot, kRoot);
  EXPECT_NE(p.find("uid 65534"), std::string::npos) << p;
}

TEST(ProgramTrust, NotARegularFileIsRefused) {
  PathFacts f = file(0755);
  f.mode = S_IFIFO | 0755;
  EXPECT_NE(program_trust_problem(f, good_dirs(), kRoot, kRoot).find("not a regular file"), std::string::npos);
}

TEST(ProgramTrust, AnyDirectoryOnThePathCounts) {
  auto world = good_dirs();
  world[1] = dir("/opt", 0777);
  std::string p = program_trust_problem(file(0755), world, kRoot, kRoot);
  EXPECT_NE(p.find("/opt: directory is world-writable without the sticky bit"), std::string::npos) << p;
  auto sticky = good_dirs();
  sticky[1] = dir("/opt", 01777);  // like /tmp: others cannot rename what is not theirs
  EXPECT_EQ(program_trust_problem(file(0755), sticky, kRoot, kRoot), "");
  auto other = good_dirs();
  other[2] = dir("/opt/nccl-tests", 0755, kNobody);
  p = program_trust_problem(file(0755), other, kRoot, kRoot);
  EXPECT_NE(p.find("/opt/nccl-tests: directory owned by uid 65534"), std::string::npos) << p;
}

TEST(ProgramTrust, NotRootIsNotChecked) {
  EXPECT_EQ(program_trust_problem(file(0777, kNobody), {dir("/", 0777, kNobody)}, kAlice, kAlice), "");
}

TEST(DirectoryTrust, Rules) {
  EXPECT_EQ(directory_trust_problem(dir("/var/tmp", 01777), kRoot), "");
  EXPECT_EQ(directory_trust_problem(dir("/home/alice", 0700, kAlice), kAlice), "");
  EXPECT_NE(directory_trust_problem(dir("/home/alice", 0700, kAlice), kRoot), "");
  EXPECT_NE(directory_trust_problem(dir("/shared", 0777), kRoot), "");
  EXPECT_NE(directory_trust_problem({"/x", 0, S_IFREG | 0600}, kRoot).find("not a directory"), std::string::npos);
}

// Real files: a trusted tree, then each way to spoil it.
class ProgramTrustOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown files to another user";
    base = testing::scratch_dir();
    ::chmod(base.c_str(), 0755);
    std::filesystem::create_directories(base + "/nccl-tests/build");
    program = base + "/nccl-tests/build/all_reduce_perf";
    std::ofstream(program) << "#!/bin/sh\n";
    ::chmod(program.c_str(), 0755);
  }
  std::string check(const std::string& path) { return program_trust_problem_at(path, 0, 0, "the fix"); }
  std::string base, program;
};

TEST_F(ProgramTrustOnDisk, TrustedTreeRuns) {
  EXPECT_EQ(check(program), "");
}

TEST_F(ProgramTrustOnDisk, ProgramOwnedByNobodyIsRefusedWithTheFix) {
  ASSERT_EQ(::chown(program.c_str(), kNobody, kNobody), 0);
  std::string p = check(program);
  EXPECT_NE(p.find(program + ": owned by uid 65534"), std::string::npos) << p;
  EXPECT_NE(p.find("refusing to run"), std::string::npos) << p;
  EXPECT_NE(p.find("the fix"), std::string::npos) << p;
}

TEST_F(ProgramTrustOnDisk, WorldWritableProgramIsRefused) {
  ::chmod(program.c_str(), 0757);
  EXPECT_NE(check(program).find("world-writable"), std::string::npos);
}

TEST_F(ProgramTrustOnDisk, WorldWritableDirectoryIsRefused) {
  ::chmod((base + "/nccl-tests").c_str(), 0777);
  EXPECT_NE(check(program).find(base + "/nccl-tests: directory is world-writable"), std::string::npos);
}

TEST_F(ProgramTrustOnDisk, LinkIntoAnotherUsersTreeIsRefused) {
  // A trusted-looking link whose target another user can change.
  std::filesystem::create_directories(base + "/bob/build");
  std::string target = base + "/bob/build/all_reduce_perf";
  std::ofstream(target) << "#!/bin/sh\n";
  ::chmod(target.c_str(), 0755);
  ASSERT_EQ(::chown((base + "/bob").c_str(), kNobody, kNobody), 0);
  std::string link = base + "/nccl-tests/all_reduce_perf";
  std::filesystem::create_symlink(target, link);
  std::string p = check(link);
  EXPECT_NE(p.find(base + "/bob: directory owned by uid 65534"), std::string::npos) << p;
}

TEST_F(ProgramTrustOnDisk, MissingProgramNamesIt) {
  EXPECT_NE(check(base + "/nope").find(base + "/nope"), std::string::npos);
}

TEST_F(ProgramTrustOnDisk, OutputDirectoryRules) {
  EXPECT_EQ(directory_trust_problem_at(base, 0), "");
  std::string shared = base + "/shared";
  std::filesystem::create_directories(shared);
  ::chmod(shared.c_str(), 0777);
  EXPECT_NE(directory_trust_problem_at(shared, 0).find(shared + ": directory is world-writable"), std::string::npos);
  ::chmod(shared.c_str(), 01777);
  EXPECT_EQ(directory_trust_problem_at(shared, 0), "");
  ASSERT_EQ(::chown(shared.c_str(), kNobody, kNobody), 0);
  EXPECT_NE(directory_trust_problem_at(shared, 0).find("uid 65534"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

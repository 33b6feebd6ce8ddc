// The private output directory of `bench`: created fresh with mode 0700,
// names reserved without following links, outputs read back only as
// regular files of this user, within a size cap.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/private_output_dir.h"
#include "recorded_fixtures.h"
#include "test_files.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using testing::slurp;

TEST(PrivateOutputDir, FreshAndOnlyForThisUser) {
  std::string base = testing::scratch_dir();
  std::string a = make_private_output_dir(base, "gdrcheck-bench-h");
  std::string b = make_private_output_dir(base + "/", "gdrcheck-bench-h");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind(base + "/gdrcheck-bench-h-", 0), 0u) << a;
  struct stat st {};
  ASSERT_EQ(::lstat(a.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST(PrivateOutputDir, MissingBaseIsAnErrorNamingIt) {
  try {
    make_private_output_dir("/nonexistent/out", "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/out");
    EXPECT_NE(e.problem().find("cannot create"), std::string::npos);
  }
}

TEST(PrivateOutputDir, ReserveCreatesAnEmptyPrivateFile) {
  std::string f = testing::scratch_dir() + "/run.json";
  EXPECT_EQ(reserve_output_file(f), "");
  struct stat st {};
  ASSERT_EQ(::lstat(f.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_size, 0);
  // Never twice: a name is reserved once.
  EXPECT_NE(reserve_output_file(f).find("File exists"), std::string::npos);
}

TEST(PrivateOutputDir, ReserveNeverWritesThroughAPlantedLink) {
  std::string dir = testing::scratch_dir();
  std::string victim = dir + "/victim";
  std::ofstream(victim) << "keep me";
  ::chmod(victim.c_str(), 0600);
  std::filesystem::create_symlink(victim, dir + "/run.json");
  std::string p = reserve_output_file(dir + "/run.json");
  EXPECT_NE(p.find(dir + "/run.json: cannot be created"), std::string::npos) << p;
  EXPECT_EQ(slurp(victim), "keep me");
  // A dangling link is not followed to create its target either.
  std::filesystem::create_symlink(dir + "/created-by-link", dir + "/dangling.json");
  EXPECT_NE(reserve_output_file(dir + "/dangling.json"), "");
  EXPECT_FALSE(std::filesystem::exists(dir + "/created-by-link"));
}

TEST(PrivateOutputDir, ReadsBackARegularFile) {
  std::string f = testing::scratch_dir() + "/out.json";
  std::ofstream(f) << "{\"results\": {}}";
  OwnOutput r = read_own_output(f, 1024);
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.content, "{\"results\": {}}");
}

TEST(PrivateOutputDir, RefusesALinkAFifoADirectoryAndAHugeFile) {
  std::string dir = testing::scratch_dir();
  std::ofstream(dir + "/secret") << "secret";
  std::filesystem::create_symlink(dir + "/secret", dir + "/link.json");
  OwnOutput link = read_own_output(dir + "/link.json", 1024);
  EXPECT_NE(link.problem.find("symbolic link"), std::string::npos) << link.problem;
  EXPECT_EQ(link.content, "");

  ASSERT_EQ(::mkfifo((dir + "/fifo.json").c_str(), 0600), 0);
  OwnOutput fifo = read_own_output(dir + "/fifo.json", 1024);  // must not block
  EXPECT_NE(fifo.problem.find("not a regular file"), std::string::npos) << fifo.problem;

  EXPECT_NE(read_own_output(dir, 1024).problem.find("not a regular file"), std::string::npos);

  std::ofstream(dir + "/big.json") << std::string(5000, 'x');
  OwnOutput big = read_own_output(dir + "/big.json", 4096);
  EXPECT_NE(big.problem.find("too large"), std::string::npos) << big.problem;
  EXPECT_EQ(big.content, "");

  EXPECT_NE(read_own_output(dir + "/missing.json", 10).problem.find(dir + "/missing.json"), std::string::npos);
}

TEST(PrivateOutputDir, RefusesAFileOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  std::string f = testing::scratch_dir() + "/planted.json";
  std::ofstream(f) << "{}";
  ASSERT_EQ(::chown(f.c_str(), 65534, 65534), 0);
  std::string problem;
  EXPECT_EQ(open_own_output(f, problem), -1);
  EXPECT_NE(problem.find("owned by uid 65534"), std::string::npos) << problem;
}

}  // namespace
}  // namespace gdrcheck

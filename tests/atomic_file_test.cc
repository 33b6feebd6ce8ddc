#include "report/atomic_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gdrcheck {
namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/atomic_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/gdrcheck.prom";
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }

  // The error write_file_atomically throws, "" when it does not.
  static std::string error_of(const std::function<void()>& write) {
    try {
      write();
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  std::string dir_, path_;
};

TEST_F(AtomicFileTest, ReplacesTheFileWithMode0644WhateverTheUmask) {
  put(path_, "old\n");
  mode_t old_mask = umask(077);
  write_file_atomically(path_, "new\n");
  umask(old_mask);
  EXPECT_EQ(slurp(path_), "new\n");
  struct stat st {};
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(entries(), std::vector<std::string>{"gdrcheck.prom"});  // no temporary left
}

TEST_F(AtomicFileTest, CreatesAMissingFileInAnExistingDirectory) {
  write_file_atomically(path_, "first\n");
  EXPECT_EQ(slurp(path_), "first\n");
}

TEST_F(AtomicFileTest, AFailedWriteKeepsTheOldFileAndNamesThePath) {
  put(path_, "old\n");
  // The kernel refuses writes past RLIMIT_FSIZE (EFBIG once SIGXFSZ is ignored).
  struct rlimit saved {};
  getrlimit(RLIMIT_FSIZE, &saved);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string err = error_of([&] { write_file_atomically(path_, std::string(4096, 'x')); });
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, old_handler);
  EXPECT_NE(err.find("cannot write " + path_), std::string::npos) << err;
  EXPECT_EQ(slurp(path_), "old\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"gdrcheck.prom"});
}

TEST_F(AtomicFileTest, ALinkPlantedAtTheTemporaryNameIsNotFollowed) {
  std::string victim = dir_ + "/victim";
  put(victim, "precious\n");
  ASSERT_EQ(symlink(victim.c_str(), (path_ + ".tmp.AAAAAA").c_str()), 0);
  ASSERT_EQ(symlink("/nonexistent/dangling", (path_ + ".tmp.BBBBBB").c_str()), 0);
  std::vector<std::string> names = {"AAAAAA", "BBBBBB", "CCCCCC"};
  std::size_t next = 0;
  write_file_atomically(path_, "new\n", [&] { return names.at(next++); });
  EXPECT_EQ(next, 3u);
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(slurp(path_), "new\n");
  struct stat st {};
  ASSERT_EQ(lstat((path_ + ".tmp.AAAAAA").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));  // someone else's: left alone
}

TEST_F(AtomicFileTest, EveryTemporaryNameTakenIsAnError) {
  ASSERT_EQ(symlink("/etc/passwd", (path_ + ".tmp.AAAAAA").c_str()), 0);
  std::string err = error_of([&] { write_file_atomically(path_, "x", [] { return std::string("AAAAAA"); }); });
  EXPECT_NE(err.find(path_), std::string::npos) << err;
  EXPECT_NE(err.find("no free temporary name"), std::string::npos) << err;
}

TEST_F(AtomicFileTest, ALinkAtThePathIsReplacedNotFollowed) {
  std::string victim = dir_ + "/victim";
  put(victim, "precious\n");
  ASSERT_EQ(symlink(victim.c_str(), path_.c_str()), 0);
  write_file_atomically(path_, "new\n");
  EXPECT_EQ(slurp(victim), "precious\n");
  struct stat st {};
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(slurp(path_), "new\n");
}

TEST_F(AtomicFileTest, AMissingDirectoryIsAnErrorNamingThePath) {
  std::string path = dir_ + "/missing/gdrcheck.prom";
  std::string err = error_of([&] { write_file_atomically(path, "x"); });
  EXPECT_NE(err.find("cannot write " + path), std::string::npos) << err;
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
}

TEST_F(AtomicFileTest, ADirectoryOrNoFileNameIsAnError) {
  ASSERT_EQ(mkdir(path_.c_str(), 0755), 0);
  EXPECT_NE(error_of([&] { write_file_atomically(path_, "x"); }).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { write_file_atomically(dir_ + "/", "x"); }).find("not a file name"), std::string::npos);
  EXPECT_NE(error_of([&] { write_file_atomically("", "x"); }).find("not a file name"), std::string::npos);
  EXPECT_EQ(entries(), std::vector<std::string>{"gdrcheck.prom"});
}

TEST_F(AtomicFileTest, ControlBytesInThePathAreNotPrinted) {
  std::string path = dir_ + "/missing\x1b[2J/x.prom";
  std::string err = error_of([&] { write_file_atomically(path, "x"); });
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  EXPECT_NE(err.find("\\x1b[2J"), std::string::npos) << err;
}

}  // namespace
}  // namespace gdrcheck

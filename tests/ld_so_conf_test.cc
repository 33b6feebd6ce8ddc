// The loader's folders from ld.so.conf files, as Debian, RHEL and the EFA
// installer write them, and from hostile ones.
#include "host/ld_so_conf.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

using Folders = std::vector<std::string>;

TEST(ParseLdSoConf, DebianFiles) {
  EXPECT_EQ(parse_ld_so_conf("# libc default configuration\n/usr/local/lib\n"), Folders{"/usr/local/lib"});
  EXPECT_EQ(parse_ld_so_conf("# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
                             "/usr/lib/x86_64-linux-gnu\n"),
            (Folders{"/usr/local/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"}));
}

TEST(ParseLdSoConf, KeywordsCommentsAndOddSpacing) {
  EXPECT_TRUE(parse_ld_so_conf("include /etc/ld.so.conf.d/*.conf\n").empty());
  EXPECT_TRUE(parse_ld_so_conf("hwcap 0 nosegneg\n").empty());
  EXPECT_EQ(parse_ld_so_conf("  /opt/amazon/efa/lib64/   # EFA\r\n\t/usr/local/cuda/lib64\r\n"),
            (Folders{"/opt/amazon/efa/lib64", "/usr/local/cuda/lib64"}));
  EXPECT_EQ(parse_ld_so_conf("/includes/lib\n"), Folders{"/includes/lib"});  // a folder, not the keyword
  EXPECT_EQ(parse_ld_so_conf("/\n"), Folders{"/"});
}

TEST(ParseLdSoConf, RejectsWhatIsNotAnAbsoluteFolder) {
  EXPECT_TRUE(parse_ld_so_conf("lib\n./lib\n\n#/commented\n").empty());
  EXPECT_TRUE(parse_ld_so_conf("/opt/*/lib\n").empty());
  EXPECT_TRUE(parse_ld_so_conf(std::string("/opt/a\0b/lib\n", 13)).empty());
  EXPECT_TRUE(parse_ld_so_conf(std::string(100000, '\n')).empty());
  EXPECT_TRUE(parse_ld_so_conf("\xff\xfe garbage \x01\x02").empty());
}

TEST(ParseLdSoConf, ManyLinesAreBounded) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "/opt/lib" + std::to_string(i) + "\n";
  auto folders = parse_ld_so_conf(text);
  EXPECT_EQ(folders.size(), 128u);
  EXPECT_EQ(folders.front(), "/opt/lib0");
}

class LoaderFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-ldconf-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    fs::create_directories(dir_ + "/etc/ld.so.conf.d");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void file(const std::string& inside, const std::string& text) { std::ofstream(dir_ + inside) << text; }

  std::string dir_;
};

TEST_F(LoaderFoldersTest, ConfFilesInNameOrderThenLdSoConfThenDefaults) {
  file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/site/lib\n");
  file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "/usr/local/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n");
  file("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n");
  file("/etc/ld.so.conf.d/efa.conf", "/opt/amazon/efa/lib64\n");
  file("/etc/ld.so.conf.d/.hidden.conf", "/opt/hidden/lib\n");  // ldconfig's glob skips it
  file("/etc/ld.so.conf.d/notes.txt", "/opt/notes/lib\n");      // not *.conf
  auto folders = loader_folders(Root(dir_));
  ASSERT_GE(folders.size(), 5u);
  EXPECT_EQ(folders[0], "/usr/local/cuda/targets/x86_64-linux/lib");
  EXPECT_EQ(folders[1], "/opt/amazon/efa/lib64");
  EXPECT_EQ(folders[2], "/usr/local/lib/x86_64-linux-gnu");
  EXPECT_EQ(folders[3], "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(folders[4], "/opt/site/lib");
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/usr/lib/x86_64-linux-gnu"), 1);  // default not repeated
  EXPECT_EQ(folders.back(), "/usr/lib");
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/opt/hidden/lib"), 0);
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/opt/notes/lib"), 0);
}

TEST_F(LoaderFoldersTest, NoConfigurationGivesTheDefaults) {
  EXPECT_EQ(loader_folders(Root(dir_)), default_loader_folders());
  EXPECT_EQ(loader_folders(Root(dir_ + "/no-such-root")), default_loader_folders());
}

TEST_F(LoaderFoldersTest, FifoAndFolderNamedConfAreSkippedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ + "/etc/ld.so.conf.d/aaa.conf").c_str(), 0600), 0);
  fs::create_directories(dir_ + "/etc/ld.so.conf.d/bbb.conf");
  file("/etc/ld.so.conf.d/ccc.conf", "/opt/ok/lib\n");
  auto folders = loader_folders(Root(dir_));
  EXPECT_EQ(folders.front(), "/opt/ok/lib");
}

TEST_F(LoaderFoldersTest, ManyConfFilesAreBounded) {
  for (int i = 0; i < 100; ++i)
    file("/etc/ld.so.conf.d/" + std::to_string(100 + i) + ".conf", "/opt/lib" + std::to_string(100 + i) + "\n");
  auto folders = loader_folders(Root(dir_));
  EXPECT_EQ(folders.size(), 64u + default_loader_folders().size());
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/opt/lib163"), 1);
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/opt/lib164"), 0);
}

}  // namespace
}  // namespace gdrcheck

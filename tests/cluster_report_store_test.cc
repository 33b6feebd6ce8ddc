// --save: raw outputs kept per host, never overwritten, host names that
// cannot leave the directory; --from: reading such a directory back.
#include "cluster/report_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cluster/report_dir.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "test_files.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using testing::slurp;

NodeOutcome outcome(const std::string& host, const std::string& raw, NodeOutcome::How how = NodeOutcome::How::Report) {
  NodeOutcome o;
  o.host = host;
  o.how = how;
  o.raw = raw;
  return o;
}

TEST(ReportStore, HostNamesStayInsideTheDirectory) {
  EXPECT_EQ(host_file_stem("gpu01.cluster"), "gpu01.cluster");
  EXPECT_EQ(host_file_stem("a;rm -rf /"), "a_rm_-rf__");
  EXPECT_EQ(host_file_stem("../etc/passwd"), "_.._etc_passwd");
  EXPECT_EQ(host_file_stem(""), "_");
}

TEST(ReportStore, KeepsEveryOutputThatCameBack) {
  std::string dir = testing::scratch_dir() + "/saved/deeper";
  SaveResult r = save_raw_outputs(
      dir, {outcome("gpu01", "{\"report\": 1}"), outcome("gpu02", ""),
            outcome("gpu03", "garbage", NodeOutcome::How::NotAReport), outcome("a/b", "x"), outcome("a_b", "y")});
  EXPECT_TRUE(r.problems.empty());
  ASSERT_EQ(r.written.size(), 4u);
  EXPECT_EQ(slurp(dir + "/gpu01.json"), "{\"report\": 1}");
  EXPECT_EQ(slurp(dir + "/gpu03.json"), "garbage");
  EXPECT_FALSE(std::filesystem::exists(dir + "/gpu02.json"));
  EXPECT_EQ(slurp(dir + "/a_b.json"), "x");
  EXPECT_EQ(slurp(dir + "/a_b-2.json"), "y");
}

TEST(ReportStore, NeverOverwrites) {
  std::string dir = testing::scratch_dir();
  testing::write_file(dir, "gpu01.json", "mine");
  SaveResult r = save_raw_outputs(dir, {outcome("gpu01", "theirs")});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], dir + "/gpu01.json: already exists; not overwritten");
  EXPECT_EQ(slurp(dir + "/gpu01.json"), "mine");
}

TEST(ReportStore, UnwritableDirectoryIsAProblem) {
  std::string dir = testing::scratch_dir();
  testing::write_file(dir, "file", "");
  SaveResult r = save_raw_outputs(dir + "/file/sub", {outcome("gpu01", "x")});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind(dir + "/file/sub: ", 0), 0u) << r.problems[0];
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

TEST(ReportStore, ModesAreSetWhateverTheUmask) {
  std::string base = testing::scratch_dir(), dir = base + "/new/reports";
  mode_t old = ::umask(0);
  SaveResult r = save_raw_outputs(dir, {outcome("gpu01", "{}")});
  ::umask(old);
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  EXPECT_EQ(mode_of(base + "/new"), 0750u);
  EXPECT_EQ(mode_of(dir), 0750u);
  EXPECT_EQ(mode_of(dir + "/gpu01.json"), 0640u);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"gpu01.json"});  // no temporary file left
}

TEST(ReportStore, TheDirectoryItselfIsNeverALink) {
  std::string base = testing::scratch_dir();
  std::filesystem::create_directory(base + "/elsewhere");
  std::filesystem::create_directory_symlink(base + "/elsewhere", base + "/link");
  SaveResult r = save_raw_outputs(base + "/link", {outcome("gpu01", "x")});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], base +
                               "/link: is a symbolic link; --save does not follow links (give the directory it "
                               "points to)");
  EXPECT_TRUE(r.written.empty());
  EXPECT_TRUE(names_in(base + "/elsewhere").empty());
  // A link of our own on the way to it is how systems are laid out.
  r = save_raw_outputs(base + "/link/sub", {outcome("gpu01", "x")});
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(slurp(base + "/elsewhere/sub/gpu01.json"), "x");
}

TEST(ReportStore, APlantedLinkAtAReportNameIsNeitherFollowedNorReplaced) {
  std::string dir = testing::scratch_dir();
  testing::write_file(dir, "victim", "precious");
  std::filesystem::create_symlink(dir + "/victim", dir + "/gpu01.json");
  std::filesystem::create_symlink(dir + "/nowhere", dir + "/gpu02.json");  // dangling
  SaveResult r = save_raw_outputs(dir, {outcome("gpu01", "x"), outcome("gpu02", "y")});
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0], dir + "/gpu01.json: already exists; not overwritten");
  EXPECT_EQ(r.problems[1], dir + "/gpu02.json: already exists; not overwritten");
  EXPECT_EQ(slurp(dir + "/victim"), "precious");
  EXPECT_FALSE(std::filesystem::exists(dir + "/nowhere"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/gpu01.json"));
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"gpu01.json", "gpu02.json", "victim"}));
}

TEST(ReportStore, ADirectoryOthersOwnAndMayWriteIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  std::string base = testing::scratch_dir();
  std::filesystem::create_directory(base + "/shared");
  ASSERT_EQ(::chown((base + "/shared").c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod((base + "/shared").c_str(), 0777), 0);
  SaveResult r = save_raw_outputs(base + "/shared", {outcome("gpu01", "x")});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("owned by uid 65534 and writable by others"), std::string::npos) << r.problems[0];
  EXPECT_TRUE(names_in(base + "/shared").empty());
  // Its own directory is fine even when others may write to it.
  ASSERT_EQ(::chown((base + "/shared").c_str(), 0, 0), 0);
  EXPECT_TRUE(save_raw_outputs(base + "/shared", {outcome("gpu01", "x")}).problems.empty());
  // A link on the way that another user planted is not followed.
  std::filesystem::create_directory(base + "/target");
  std::filesystem::create_directory_symlink(base + "/target", base + "/planted");
  ASSERT_EQ(::lchown((base + "/planted").c_str(), 65534, 65534), 0);
  r = save_raw_outputs(base + "/planted/sub", {outcome("gpu01", "x")});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("symbolic link owned by uid 65534; not followed"), std::string::npos) << r.problems[0];
  EXPECT_TRUE(names_in(base + "/target").empty());
}

TEST(ReportDir, ReadsJsonFilesInNameOrder) {
  std::string dir = testing::scratch_dir();
  testing::write_file(dir, "b.json", "{}");
  testing::write_file(dir, "a.json", "");
  testing::write_file(dir, "notes.txt", "ignored");
  std::filesystem::create_directory(dir + "/c.json");
  ReportDir r = read_report_dir(dir);
  ASSERT_EQ(r.outcomes.size(), 3u);
  EXPECT_EQ(r.outcomes[0].host, "a");
  EXPECT_EQ(r.outcomes[0].how, NodeOutcome::How::Report);
  EXPECT_EQ(r.outcomes[1].host, "b");
  EXPECT_EQ(r.outcomes[1].raw, "{}");
  EXPECT_EQ(r.outcomes[2].how, NodeOutcome::How::NotAReport);
  EXPECT_NE(r.outcomes[2].reason.find("c.json: "), std::string::npos) << r.outcomes[2].reason;
  EXPECT_EQ(r.files[1], dir + "/b.json");
}

TEST(ReportDir, UnreadableFileIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  std::string dir = testing::scratch_dir();
  testing::write_file(dir, "x.json", "{}");
  ::chmod((dir + "/x.json").c_str(), 0);
  ReportDir r = read_report_dir(dir);
  EXPECT_EQ(r.outcomes[0].how, NodeOutcome::How::NotAReport);
}

TEST(ReportDir, NotADirectoryIsAnInputError) {
  std::string dir = testing::scratch_dir();
  EXPECT_THROW(read_report_dir(dir + "/missing"), InputError);
  testing::write_file(dir, "f", "");
  EXPECT_THROW(read_report_dir(dir + "/f"), InputError);
}

}  // namespace
}  // namespace gdrcheck

// `--from DIR` on a directory others can write to: links are never
// followed, FIFOs never block, names that are not one node are listed and
// not read, and every file becomes a node or a reason.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "cluster/report_dir.h"
#include "cluster_hostile_reports.h"
#include "cluster_reports.h"
#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

const NodeOutcome& outcome_of(const ReportDir& r, const std::string& host) {
  for (const auto& o : r.outcomes)
    if (o.host == host) return o;
  throw std::runtime_error("no outcome " + host);
}

TEST(ReportDirSafety, ALinkIsNotFollowed) {
  std::string dir = testing::scratch_dir();
  std::string secret = testing::scratch_dir() + "/secret";
  std::ofstream(secret) << "root:$6$secret";
  fs::create_symlink(secret, dir + "/gpu01.json");
  fs::create_symlink(dir + "/missing", dir + "/gpu02.json");
  testing::write_file(dir, "gpu03.json", testing::minimal_report("gpu03", "OK"));
  ReportDir r = read_report_dir(dir);
  ASSERT_EQ(r.outcomes.size(), 3u);
  EXPECT_EQ(outcome_of(r, "gpu01").how, NodeOutcome::How::NotAReport);
  EXPECT_EQ(outcome_of(r, "gpu01").reason, dir + "/gpu01.json: a link; not followed");
  EXPECT_TRUE(outcome_of(r, "gpu01").raw.empty());
  EXPECT_EQ(outcome_of(r, "gpu02").reason, dir + "/gpu02.json: a link; not followed");
  EXPECT_EQ(outcome_of(r, "gpu03").how, NodeOutcome::How::Report);
}

TEST(ReportDirSafety, AFifoDoesNotBlock) {
  std::string dir = testing::scratch_dir();
  ASSERT_EQ(::mkfifo((dir + "/gpu01.json").c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return read_report_dir(dir); });
  if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int fd = ::open((dir + "/gpu01.json").c_str(), O_WRONLY | O_NONBLOCK);
    ADD_FAILURE() << "a FIFO blocked --from";
    if (fd >= 0) ::close(fd);
  }
  ReportDir r = read.get();
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes[0].reason, dir + "/gpu01.json: not a regular file; not read");
}

// The file name names the node that would be drained.
TEST(ReportDirSafety, NamesThatAreNotOneNodeAreListedNotRead) {
  std::string dir = testing::scratch_dir();
  for (std::string name : {"gpu[00-99],login[1-2]", "ALL", "-x", "a b", "a=b", "gpu\x1b[2J", ""})
    testing::write_file(dir, name + ".json", testing::minimal_report(name, "CRITICAL"));
  ReportDir r = read_report_dir(dir);
  ASSERT_EQ(r.outcomes.size(), 7u);
  for (const auto& o : r.outcomes) {
    EXPECT_EQ(o.how, NodeOutcome::How::NotAReport) << o.host;
    EXPECT_TRUE(o.raw.empty()) << o.host;
    EXPECT_NE(o.reason.find("; not read"), std::string::npos) << o.reason;
    EXPECT_EQ(o.reason.find('\x1b'), std::string::npos) << o.reason;
  }
  EXPECT_EQ(outcome_of(r, "ALL").reason, dir + "/ALL.json: node name 'ALL': a Slurm keyword, not a node; not read");
}

TEST(ReportDirSafety, TooLargeAReportIsRefused) {
  std::string dir = testing::scratch_dir();
  {
    std::ofstream big(dir + "/gpu01.json");
    big.seekp(kMaxReportBytes);
    big << "x";
  }
  ReportDir r = read_report_dir(dir);
  EXPECT_EQ(r.outcomes[0].reason, dir + "/gpu01.json: larger than 64 MiB, not a node report");
  EXPECT_TRUE(r.outcomes[0].raw.empty());
}

TEST(ReportDirSafety, NotADirectoryOrALinkedDirectoryEntry) {
  std::string dir = testing::scratch_dir();
  EXPECT_THROW(read_report_dir(dir + "/missing"), InputError);
  testing::write_file(dir, "f", "");
  try {
    read_report_dir(dir + "/f");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "not a directory");
  }
  fs::create_directory(dir + "/sub.json");
  ReportDir r = read_report_dir(dir);
  EXPECT_EQ(r.outcomes[0].reason, dir + "/sub.json: a directory, not a report");
}

}  // namespace
}  // namespace gdrcheck

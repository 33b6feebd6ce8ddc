// Tests for splitting one physical log line into NCCL records.
#include "evidence/nccl_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

std::vector<NcclRecord> records_of(std::string_view line) {
  std::vector<NcclRecord> out;
  NcclRecordScanner s(line);
  for (NcclRecord r; s.next(r);) out.push_back(r);
  return out;
}

TEST(NcclRecord, OneInfoRecordWithHostAndPid) {
  auto r = records_of("node1:1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].level, NcclLevel::Info);
  EXPECT_EQ(r[0].host, "node1");
  EXPECT_EQ(r[0].pid, "1234");
  EXPECT_EQ(r[0].msg, "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA");
}

TEST(NcclRecord, LauncherPrefixIsIgnored) {
  auto r = records_of("[1,0]<stdout>:node2:99:100 [3] NCCL INFO Using network IB");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].host, "node2");
  EXPECT_EQ(r[0].msg, "Using network IB");
}

TEST(NcclRecord, GluedWritersGiveTwoRecords) {
  // The first writer's message ends where the second writer's prefix begins.
  auto r = records_of("a:1:2 [0] NCCL INFO first text b:3:4 [1] NCCL WARN second");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].host, "a");
  EXPECT_EQ(r[0].msg, "first text");
  EXPECT_EQ(r[1].level, NcclLevel::Warn);
  EXPECT_EQ(r[1].host, "b");
  EXPECT_EQ(r[1].msg, "second");
  // Without a space the text runs into the host name: the reader resolves
  // such glued names later (nccl_log.cc), the scanner reports them as printed.
  auto glued = records_of("a:1:2 [0] NCCL INFO first textb:3:4 [1] NCCL INFO second");
  ASSERT_EQ(glued.size(), 2u);
  EXPECT_EQ(glued[0].msg, "first");
  EXPECT_EQ(glued[1].host, "textb");
}

TEST(NcclRecord, WarnSkipsFileLineAndFunction) {
  auto r = records_of("gpu7:55:66 [2] transport/net_ib.cc:123 NCCL WARN NET/IB : Got completion with error 4");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].level, NcclLevel::Warn);
  EXPECT_EQ(r[0].host, "gpu7");
  EXPECT_EQ(r[0].msg, "NET/IB : Got completion with error 4");
}

TEST(NcclRecord, MaskedHostIsEmpty) {
  auto r = records_of("XXXXX:1:2 [0] NCCL INFO hello");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].host, "");
  EXPECT_EQ(r[0].pid, "1");
}

TEST(NcclRecord, NoMarkerNoRecord) {
  EXPECT_TRUE(records_of("NCCL version 2.18.5+cuda12.0").empty());
  EXPECT_TRUE(records_of("xNCCL INFO glued into a word").empty());
  EXPECT_TRUE(records_of("NCCL INFOS is not a level").empty());
  EXPECT_TRUE(records_of("").empty());
}

TEST(NcclRecord, DeviceTokenMakesItARealRecordShape) {
  EXPECT_TRUE(has_nccl_record_with_device("h:1:2 [0] NCCL INFO x"));
  EXPECT_TRUE(has_nccl_record_with_device("h:1:2 [0] misc/file.cc:12 NCCL WARN x"));
  EXPECT_FALSE(has_nccl_record_with_device("NCCL INFO x"));
  EXPECT_FALSE(has_nccl_record_with_device("text NCCL INFO x"));
}

// The first-record cache must change nothing: every line of the real logs,
// in order, then with neighbours glued and cut, scans to the same records
// with the cache as without it.
std::string describe(const std::vector<NcclRecord>& rs) {
  std::ostringstream out;
  for (const auto& r : rs) out << static_cast<int>(r.level) << '|' << r.host << '|' << r.pid << '|' << r.msg << '\n';
  return out.str();
}

TEST(NcclRecord, FirstRecordCacheChangesNothingOnRealLogs) {
  std::vector<std::string> lines;
  for (const auto& entry : std::filesystem::directory_iterator(testing::test_data("nccl-logs"))) {
    std::istringstream in(testing::read_test_data("nccl-logs/" + entry.path().filename().string()));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_GT(lines.size(), 500u);
  std::size_t n = lines.size();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    lines.push_back(lines[i] + lines[i + 1]);                        // glued
    lines.push_back(lines[i].substr(0, lines[i].size() / 2));        // cut
    lines.push_back(lines[i].substr(0, lines[i].find("INFO") + 4));  // ends at the level word
    lines.push_back(lines[i].substr(0, lines[i].find("INFO") + 4) + "X" + lines[i + 1]);
  }
  NcclRecordScanner::FirstRecordCache cache;
  std::size_t records = 0;
  for (const auto& line : lines) {
    std::vector<NcclRecord> cached;
    NcclRecordScanner s(line, &cache);
    for (NcclRecord r; s.next(r);) cached.push_back(r);
    records += cached.size();
    ASSERT_EQ(describe(cached), describe(records_of(line))) << line;
  }
  EXPECT_GT(records, n);
}

}  // namespace
}  // namespace gdrcheck

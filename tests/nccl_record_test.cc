// Tests for splitting one physical log line into NCCL records.
#include "evidence/nccl_record.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace gdrcheck

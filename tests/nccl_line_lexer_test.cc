// Tests for the job-independent first step of reading an NCCL log line:
// the memo's ids and where the first record is.
#include "evidence/nccl_line_lexer.h"

#include <gtest/gtest.h>

#include <string>

namespace gdrcheck {
namespace {

using Kind = NcclLexedLine::Kind;

const std::string kSend = "node1:11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA";

TEST(NcclLineLexer, FindsTheFirstRecord) {
  NcclLineLexer lexer;
  std::string line = "[1,0]<stdout>:" + kSend + "\r\r";
  auto l = lexer.lex(line);
  EXPECT_EQ(l.kind, Kind::Records);
  EXPECT_EQ(l.line, "[1,0]<stdout>:" + kSend);  // trailing CRs dropped
  EXPECT_EQ(l.first.host, "node1");
  EXPECT_EQ(l.first.pid, "11");
  EXPECT_EQ(l.first.level, NcclLevel::Info);
  EXPECT_EQ(l.first.msg, "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA");
  EXPECT_FALSE(l.more_records);
  EXPECT_TRUE(l.plain);
}

TEST(NcclLineLexer, LinesWithoutRecordsAreBare) {
  NcclLineLexer lexer;
  EXPECT_EQ(lexer.lex("NCCL version 2.21.5+cuda12.4").kind, Kind::Bare);
  EXPECT_EQ(lexer.lex("").kind, Kind::Bare);
  EXPECT_EQ(lexer.lex("#  Rank  0 Group  0 Pid 1 on node01 device  0").kind, Kind::Bare);
}

// A connection line gets an id the second time it is offered, and is a
// repeat of that id from the third time on.
TEST(NcclLineLexer, RepeatedConnectionLinesGetAnId) {
  NcclLineLexer lexer;
  EXPECT_EQ(lexer.lex(kSend).memo_id, NcclLexedLine::kNoId);
  auto second = lexer.lex(kSend);
  EXPECT_EQ(second.kind, Kind::Records);
  EXPECT_EQ(second.memo_id, 0u);
  auto third = lexer.lex(kSend);
  EXPECT_EQ(third.kind, Kind::Repeat);
  EXPECT_EQ(third.memo_id, 0u);
  EXPECT_EQ(third.line, kSend);
  // Another line gets the next id.
  std::string recv = "node1:11:12 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/0/GDRDMA";
  lexer.lex(recv);
  EXPECT_EQ(lexer.lex(recv).memo_id, 1u);
  EXPECT_EQ(lexer.lex(recv).kind, Kind::Repeat);
}

// What a repeat could not replay is never remembered: other records, rare
// tokens (RCCL, nranks), WARN lines, lines of two records.
TEST(NcclLineLexer, OnlyPlainSingleConnectionRecordsAreRemembered) {
  const std::string lines[] = {
      "node1:11:12 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0",
      "node1:11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0",  // 'o', 'k'
      "node1:11:12 [0] NCCL WARN Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0",
      "RCCL: Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0",
      kSend + kSend,
  };
  for (const auto& line : lines) {
    NcclLineLexer lexer;
    for (int i = 0; i < 4; ++i) {
      auto l = lexer.lex(line);
      EXPECT_NE(l.kind, Kind::Repeat) << line;
      EXPECT_EQ(l.memo_id, NcclLexedLine::kNoId) << line;
    }
  }
  NcclLineLexer lexer;
  auto glued = lexer.lex(kSend + kSend);
  EXPECT_TRUE(glued.more_records);
  EXPECT_FALSE(lexer.lex(lines[0]).plain);
  EXPECT_FALSE(lexer.lex(lines[1]).plain);
}

TEST(NcclLineLexer, WithoutTheMemoEveryLineIsScanned) {
  NcclLineLexer lexer(false);
  for (int i = 0; i < 5; ++i) {
    auto l = lexer.lex(kSend);
    EXPECT_EQ(l.kind, Kind::Records);
    EXPECT_EQ(l.memo_id, NcclLexedLine::kNoId);
  }
}

TEST(NcclLineLexer, RareTokens) {
  EXPECT_TRUE(may_hold_rare_nccl_tokens("RCCL version 2.18.3"));
  EXPECT_TRUE(may_hold_rare_nccl_tokens("comm 0x1 nranks 8"));
  EXPECT_TRUE(may_hold_rare_nccl_tokens("RCCL: ignored"));
  EXPECT_FALSE(may_hold_rare_nccl_tokens("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"));
}

}  // namespace
}  // namespace gdrcheck

// Tests for connection lines read ahead of their turn (on the lexing thread
// or a few lines early on the parser's).
#include "evidence/nccl_connection_reading.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "evidence/nccl_line_lexer.h"

namespace gdrcheck {
namespace {

NcclRecord record(std::string_view msg, std::string_view host = "node1", std::string_view pid = "4242") {
  NcclRecord r;
  r.host = host;
  r.pid = pid;
  r.msg = msg;
  return r;
}

TEST(NcclConnectionReading, ReadsANetLineAndHashesItsKeyAsTheIndexDoes) {
  NcclConnectionKeyHasher hasher;
  NcclConnectionIndex index;
  NcclConnectionReading out;
  std::string_view msg = "Channel 03/1 : 0[0] -> 8[0] [send] via NET/IB/2(9)/GDRDMA";
  ASSERT_TRUE(read_connection_ahead(record(msg), out, hasher));
  EXPECT_EQ(out.msg, msg);
  ASSERT_TRUE(out.complete);
  EXPECT_TRUE(out.line.net && out.line.gdr);
  EXPECT_EQ(out.line.channel, 3);
  EXPECT_EQ(out.line.proxy_rank, 9);
  NcclConnectionKey key = nccl_connection_key(out.line, "node1", "4242");
  EXPECT_EQ(key.proxy_rank, 9);
  EXPECT_EQ(key.side, 0);
  EXPECT_EQ(out.key_hash, index.hash_of(key));
  // Another process printing the same line is another connection.
  NcclConnectionReading other;
  ASSERT_TRUE(read_connection_ahead(record(msg, "node1", "4243"), other, hasher));
  EXPECT_NE(other.key_hash, out.key_hash);
}

TEST(NcclConnectionReading, IntraNodeAndCutLinesAreReadButNotHashed) {
  NcclConnectionKeyHasher hasher;
  NcclConnectionReading p2p;
  ASSERT_TRUE(read_connection_ahead(record("Channel 01 : 0[7000] -> 1[a000] via P2P/IPC/read"), p2p, hasher));
  EXPECT_TRUE(p2p.complete);
  EXPECT_FALSE(p2p.line.net);
  EXPECT_EQ(p2p.key_hash, 0u);
  NcclConnectionReading cut;
  ASSERT_TRUE(read_connection_ahead(record("Channel 11/0 : 0[0] ->"), cut, hasher));
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.msg, "Channel 11/0 : 0[0] ->");
}

TEST(NcclConnectionReading, OtherMessagesAreLeftAlone) {
  NcclConnectionKeyHasher hasher;
  NcclConnectionReading out;
  out.msg = "untouched";
  EXPECT_FALSE(read_connection_ahead(record("NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>"), out, hasher));
  EXPECT_FALSE(read_connection_ahead(record(""), out, hasher));
  EXPECT_EQ(out.msg, "untouched");
}

// The lexer reads ahead exactly the lines of one connection record, and
// its index points at the reading of that line.
TEST(NcclConnectionReading, LexerReadsAheadOnlyConnectionRecords) {
  std::vector<std::string_view> lines = {
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA",
      "h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
      "plain text, no record",
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0h:1:1 [0] NCCL INFO Channel 01/0 : x",
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
  };
  NcclLineLexer lexer(false);
  std::vector<NcclLexedLine> out;
  std::vector<NcclConnectionReading> connections;
  lexer.lex_all(lines, out, connections);
  ASSERT_EQ(out.size(), lines.size());
  ASSERT_EQ(connections.size(), 2u);
  EXPECT_EQ(out[0].connection, 0u);
  EXPECT_EQ(out[1].connection, NcclLexedLine::kNoId);
  EXPECT_EQ(out[2].connection, NcclLexedLine::kNoId);
  EXPECT_TRUE(out[3].more_records);  // two writers glued: read record by record later
  EXPECT_EQ(out[3].connection, NcclLexedLine::kNoId);
  EXPECT_EQ(out[4].connection, 1u);
  EXPECT_TRUE(connections[0].line.gdr);
  EXPECT_EQ(connections[0].msg.data(), out[0].first.msg.data());
  EXPECT_FALSE(connections[1].line.net);
  // Without the list, nothing is read ahead.
  std::vector<NcclLexedLine> plain;
  lexer.lex_all(lines, plain);
  for (const auto& l : plain) EXPECT_EQ(l.connection, NcclLexedLine::kNoId);
}

}  // namespace
}  // namespace gdrcheck

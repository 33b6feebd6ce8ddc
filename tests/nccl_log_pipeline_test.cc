// The two-thread reading of NCCL logs must read exactly what one thread
// reads: every real log, and glued, cut, shuffled and repeated variants of
// them, give the same report (as `analyze --json --detail` prints it) read
// line by line without the memo, line by line with it, and through the
// pipeline with the smallest and the default batches.
#include "analyze/nccl_log_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyze/artifact.h"
#include "evidence/nccl_log.h"
#include "recorded_fixtures.h"
#include "report/analyze_json.h"

namespace gdrcheck {
namespace {

using testing::scratch_file;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Every real log, then variants: lines shuffled, neighbours glued, lines
// cut at a random place, each log three times over (the memo's repeats).
std::string corpus() {
  std::vector<std::string> logs;
  for (const char* dir : {"nccl-logs", "pastes/nccl-log"})
    for (const auto& e : std::filesystem::directory_iterator(testing::test_data(dir)))
      if (e.is_regular_file() && e.path().extension() != ".md")
        logs.push_back(testing::read_test_data(std::string(dir) + "/" + e.path().filename().string()));
  std::sort(logs.begin(), logs.end());
  std::mt19937 rng(7);
  std::string out;
  for (const auto& log : logs) {
    for (int i = 0; i < 3; ++i) out += log + "\n";
    auto lines = split_lines(log);
    std::shuffle(lines.begin(), lines.end(), rng);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string line = lines[i];
      if (rng() % 5 == 0 && i + 1 < lines.size()) line += lines[++i];         // glued
      if (rng() % 7 == 0 && !line.empty()) line.resize(rng() % line.size());  // cut
      out += line + (rng() % 11 == 0 ? "\r\n" : "\n");
    }
  }
  return out;
}

std::string report_of(const NcclLogReport& r) {
  Artifact a;
  a.file = "log";
  a.kind = ArtifactKind::NcclLog;
  a.nccl_log = r;
  return analyze_json({a}, true, std::chrono::system_clock::time_point{}).dump(1);
}

std::string without_memo(const std::string& text) {
  NcclLogParser parser;
  NcclLineLexer lexer(false);
  for (const auto& line : split_lines(text)) parser.feed(lexer.lex(line));
  return report_of(parser.finish());
}

// Lines fed one at a time, or batches fed whole (connection lines read a
// few lines ahead) as analyze does.
enum class Feed { Lines, Batches };

std::string through_pipeline(const std::string& path, NcclPipelineOptions options, Feed feed = Feed::Lines) {
  LineSource src(path);
  EXPECT_TRUE(src.ok());
  NcclLogParser parser;
  if (feed == Feed::Lines)
    for_each_lexed_nccl_line(
        src, [&](const NcclLexedLine& line) { parser.feed(line); }, options);
  else
    for_each_lexed_nccl_batch(
        src, [&](const NcclLexedBatch& batch) { parser.feed(batch); }, options);
  return report_of(parser.finish());
}

TEST(NcclLogPipeline, ReadsWhatOneThreadReads) {
  std::string text = corpus();
  ASSERT_GT(text.size(), 4u * kMaxLine);  // many batches
  std::string path = scratch_file("corpus.log", text);
  std::string expected = without_memo(text);
  EXPECT_NE(expected.find("\"connections\""), std::string::npos);
  EXPECT_EQ(report_of(parse_nccl_log(text)), expected);
  EXPECT_EQ(through_pipeline(path, {}), expected);
  EXPECT_EQ(through_pipeline(path, {kMaxLine, 2}), expected);
  EXPECT_EQ(through_pipeline(path, {kMaxLine, 2, false}), expected);  // one thread
  EXPECT_EQ(through_pipeline(path, {}, Feed::Batches), expected);
  EXPECT_EQ(through_pipeline(path, {kMaxLine, 2}, Feed::Batches), expected);
  // Connection lines read by the lexing thread, by the parser, or by
  // either as the queue says; on one thread too.
  // With the line memo or without, on either thread count.
  for (auto who : {ConnectionsReadAhead::Always, ConnectionsReadAhead::Never, ConnectionsReadAhead::WhenCallerBehind})
    for (auto memo : {LineMemoUse::Always, LineMemoUse::Never, LineMemoUse::WhenOneThread})
      for (bool two_threads : {true, false})
        EXPECT_EQ(through_pipeline(path, {kMaxLine, 2, two_threads, who, memo}, Feed::Batches), expected);
}

// A long run of repeats and of distinct connections past the cap: the
// memo's ids and the dropped count agree with reading every line.
TEST(NcclLogPipeline, RepeatsAndDroppedConnections) {
  std::string text;
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < kNcclMaxConnections + 100; ++i)
      text += "h:1:1 [0] NCCL INFO Channel 00/0 : " + std::to_string(i) + "[0] -> 1[0] [send] via NET/IB/0" +
              (i % 3 ? "/GDRDMA" : "") + "\nh:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
  std::string path = scratch_file("repeats.log", text);
  std::string expected = without_memo(text);
  EXPECT_EQ(through_pipeline(path, {}), expected);
  EXPECT_EQ(through_pipeline(path, {kMaxLine, 3}), expected);
  EXPECT_EQ(through_pipeline(path, {kMaxLine, 3}, Feed::Batches), expected);
  for (bool two_threads : {true, false})
    EXPECT_EQ(through_pipeline(path, {kMaxLine, 3, two_threads, ConnectionsReadAhead::Always, LineMemoUse::Always},
                               Feed::Batches),
              expected);
}

// Connection lines with a rare token's letters ("Socket" holds 'o' and
// 'k') are remembered by the lexer, but their repeats are read again.
TEST(NcclLogPipeline, RepeatedSocketLinesAreReadAgain) {
  std::string block =
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n";
  std::string text;
  for (int i = 0; i < 5; ++i) text += block;
  std::string path = scratch_file("socket.log", text);
  std::string expected = without_memo(text);
  EXPECT_EQ(report_of(parse_nccl_log(text)), expected);
  EXPECT_EQ(through_pipeline(path, {}), expected);
  EXPECT_EQ(through_pipeline(path, {}, Feed::Batches), expected);
  EXPECT_EQ(
      through_pipeline(path, {kMaxLine, 2, true, ConnectionsReadAhead::Always, LineMemoUse::Always}, Feed::Batches),
      expected);
  auto r = parse_nccl_log(text);
  EXPECT_EQ(r.records, 15u);
  EXPECT_EQ(r.net_connections, 2u);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_EQ(r.net_transport, "Socket");
}

TEST(NcclLogPipeline, EmptyAndOverlongLines) {
  std::string path = scratch_file("empty.log", "");
  LineSource empty(path);
  std::size_t n = 0;
  for_each_lexed_nccl_line(empty, [&](const NcclLexedLine&) { ++n; });
  EXPECT_EQ(n, 0u);

  std::string text = "a\n" + std::string(3 * kMaxLine, 'x') + "\nb";
  LineSource src(scratch_file("long.log", text));
  std::vector<std::size_t> sizes;
  for_each_lexed_nccl_line(src, [&](const NcclLexedLine& l) { sizes.push_back(l.line.size()); }, {kMaxLine, 2});
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, kMaxLine, 1}));
}

// The caller's exception stops the reading thread and reaches the caller;
// nothing hangs.
TEST(NcclLogPipeline, CallerExceptionStopsTheReader) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "line " + std::to_string(i) + "\n";
  LineSource src(scratch_file("many.log", text));
  std::size_t n = 0;
  EXPECT_THROW(for_each_lexed_nccl_line(src,
                                        [&](const NcclLexedLine&) {
                                          if (++n == 1000) throw std::runtime_error("stop");
                                        },
                                        {kMaxLine, 2}),
               std::runtime_error);
  EXPECT_EQ(n, 1000u);
}

}  // namespace
}  // namespace gdrcheck

// libFuzzer entry point for the NCCL / RCCL debug-log reader. Any input
// must end in a report whose counts agree with each other; a crash, an
// exception or a sanitizer report is a bug. The three ways `analyze`
// and the tests read a log — line by line without the repeated-line memo,
// line by line with it, and lexed in batches fed whole (connection lines
// read ahead, by the lexer or the parser) — must give the same report.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "evidence/nccl_line_lexer.h"
#include "evidence/nccl_log.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

gdrcheck::NcclLogReport without_memo(const std::vector<std::string_view>& lines) {
  gdrcheck::NcclLogParser parser;
  gdrcheck::NcclLineLexer lexer(false);
  for (auto line : lines) parser.feed(lexer.lex(line));
  return parser.finish();
}

// Batches of a few lines, so that reading ahead crosses their ends; every
// other batch has its connection lines read by the lexer (as the pipeline
// does when the parser is behind).
gdrcheck::NcclLogReport in_batches(const std::vector<std::string_view>& lines) {
  gdrcheck::NcclLogParser parser;
  gdrcheck::NcclLineLexer lexer;
  std::vector<gdrcheck::NcclLexedLine> batch;
  std::vector<gdrcheck::NcclConnectionReading> connections;
  for (std::size_t at = 0; at < lines.size(); at += 7) {
    batch.clear();
    connections.clear();
    std::size_t n = std::min<std::size_t>(7, lines.size() - at);
    std::span<const std::string_view> some(lines.data() + at, n);
    if (at % 14 == 0)
      lexer.lex_all(some, batch, connections);
    else
      lexer.lex_all(some, batch);
    parser.feed(gdrcheck::NcclLexedBatch{batch, connections});
  }
  return parser.finish();
}

void check_same(const gdrcheck::NcclLogReport& a, const gdrcheck::NcclLogReport& b) {
  check(a.lines == b.lines && a.records == b.records && a.cut_lines == b.cut_lines);
  check(a.net_connections == b.net_connections && a.gdr_connections == b.gdr_connections);
  check(a.intra_node_lines == b.intra_node_lines && a.connections_dropped == b.connections_dropped);
  check(a.ranks == b.ranks && a.hosts == b.hosts && a.versions == b.versions && a.rccl == b.rccl);
  check(a.verdict == b.verdict && a.verdict_why == b.verdict_why && a.net_transport == b.net_transport);
  check(a.connections.size() == b.connections.size());
  for (std::size_t i = 0; i < a.connections.size(); ++i) {
    const auto &x = a.connections[i], &y = b.connections[i];
    check(x.channel == y.channel && x.conn_index == y.conn_index && x.from_rank == y.from_rank &&
          x.to_rank == y.to_rank && x.side == y.side && x.net == y.net && x.dev == y.dev &&
          x.proxy_rank == y.proxy_rank && x.gdr == y.gdr && x.host == y.host && x.line == y.line);
  }
  check(a.reasons.size() == b.reasons.size());
  for (std::size_t i = 0; i < a.reasons.size(); ++i)
    check(a.reasons[i].code == b.reasons[i].code && a.reasons[i].count == b.reasons[i].count &&
          a.reasons[i].lines == b.reasons[i].lines);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gdrcheck;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)looks_like_nccl_log(text);
  NcclLogReport r = parse_nccl_log(text);
  check(r.net_connections == r.connections.size());
  check(r.gdr_connections <= r.net_connections);
  check(r.connections.size() <= kNcclMaxConnections);
  if (r.net_connections > 0) {
    GdrVerdict want = r.gdr_connections == r.net_connections ? GdrVerdict::Yes
                      : r.gdr_connections == 0               ? GdrVerdict::No
                                                             : GdrVerdict::Partial;
    check(r.verdict == want);
  }
  for (const auto& c : r.connections) check(c.line >= 1 && c.line <= r.lines);
  for (const auto& reason : r.reasons) {
    check(!reason.lines.empty() && reason.lines.size() <= kNcclEvidenceLines);
    check(reason.lines.size() <= reason.count);
    for (std::size_t line : reason.lines) check(line >= 1 && line <= r.lines);
  }
  auto lines = lines_of(text);
  check_same(r, without_memo(lines));
  check_same(r, in_batches(lines));
  // Fed again with a version to assume, the same text must parse too.
  (void)parse_nccl_log(text, NcclVersion{2, 12, 12});
  return 0;
}

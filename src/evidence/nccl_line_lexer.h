// The first, job-independent step of reading an NCCL log line: whether the
// exact line was seen before (RepeatedLineMemo, when the lexer keeps one),
// where its first record is (NcclRecordScanner), and on request what its
// connection line states (NcclConnectionReading). Nothing here depends on
// what earlier lines meant, only on their text, so `gdrcheck analyze` runs
// it on its own thread ahead of the reader (NcclLogParser::feed), which
// keeps what the job did. (The memo pays on one thread only: see
// LineMemoUse in analyze/nccl_log_pipeline.h.)
//
// The memo's ids name lines whose whole effect may be a count when they
// come again: one INFO connection record with none of the rare tokens. The
// reader decides, the first time it reads such a line, whether a repeat
// may be counted without reading it (NcclLogParser keeps that by id).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "evidence/nccl_connection_reading.h"
#include "evidence/nccl_record.h"
#include "evidence/repeated_line_memo.h"

namespace gdrcheck {

struct NcclLexedLine {
  static constexpr std::uint32_t kNoId = 0xffffffffu;
  enum class Kind : std::uint8_t {
    Bare,     // no record: a version line, a quoted message, other text
    Records,  // `first` is its first record
    Repeat,   // the exact text of the line remembered as `memo_id`
  };
  std::string_view line;  // without the trailing '\r's
  Kind kind = Kind::Bare;
  bool more_records = false;  // Records: another record follows `first` (two writers glued)
  // Records: `first.msg` holds none of 'o', 'b', 'k' ("RCCL version",
  // "librccl", "nranks") and is not an "RCCL:" mark: the rare tokens'
  // searches are ruled out.
  bool plain = false;
  // Repeat: the line's id. Records: the id it is remembered as from now
  // on (kNoId: not remembered).
  std::uint32_t memo_id = kNoId;
  // Records, when lex_all read the connection line ahead: its index in
  // the batch's connections (else kNoId).
  std::uint32_t connection = kNoId;
  NcclRecord first;

  // The only kind of line a connection line can be read from: one record,
  // nothing glued after it.
  bool is_one_record() const { return kind == Kind::Records && !more_records; }
};

// A batch of lexed lines and the connection lines read ahead among them.
struct NcclLexedBatch {
  std::span<const NcclLexedLine> lines;
  std::span<const NcclConnectionReading> connections;
};

// Whether `msg` may hold "RCCL version", "librccl", "nranks"/"nRanks" or
// starts with "RCCL:" (see NcclLexedLine::plain).
bool may_hold_rare_nccl_tokens(std::string_view msg);

class NcclLineLexer {
 public:
  // Without the memo every line is scanned (tests compare both ways).
  explicit NcclLineLexer(bool memo = true) : use_memo_(memo) {}

  // `line` must stay valid as long as the result is used.
  NcclLexedLine lex(std::string_view line) { return lex(line, std::nullopt); }
  // Lexes `lines` in order onto `out`. Knowing the lines to come, it hashes
  // a few lines ahead while the memo looks lines up by hash (a log without
  // repeats), so the memo's tables are fetched before they are read.
  void lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out);
  // The same, and every line of one connection record is also read ahead
  // onto `connections` (work the reader would otherwise do itself: the
  // pipeline asks for it when the reader is the slower of the two).
  void lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out,
               std::vector<NcclConnectionReading>& connections);

  // Drops the memo (a cache only) to free its memory.
  void forget() { memo_ = RepeatedLineMemo(); }

 private:
  NcclLexedLine lex(std::string_view line, std::optional<std::uint64_t> hash);
  void lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out,
               std::vector<NcclConnectionReading>* connections);

  RepeatedLineMemo memo_;
  NcclRecordScanner::FirstRecordCache first_record_;
  NcclConnectionKeyHasher key_hash_;
  std::uint32_t next_id_ = 0;
  bool use_memo_ = true;
};

}  // namespace gdrcheck

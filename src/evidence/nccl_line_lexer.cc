#include "evidence/nccl_line_lexer.h"

#include <array>

#include "evidence/log_scan.h"
#include "evidence/nccl_channel_line.h"

namespace gdrcheck {

// Connection lines, most of a log, hold none of these letters, so one pass
// rules the three searches out.
bool may_hold_rare_nccl_tokens(std::string_view msg) {
  return msg.starts_with("RCCL:") || scan::contains_any_of(msg, 'o', 'b', 'k');
}

namespace {

std::string_view without_crs(std::string_view line) {
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

NcclLexedLine& repeat(NcclLexedLine& out, std::uint32_t id) {
  out.kind = NcclLexedLine::Kind::Repeat;
  out.memo_id = id;
  out.more_records = out.plain = false;
  out.first = {};
  return out;
}

}  // namespace

NcclLexedLine NcclLineLexer::lex(std::string_view line, std::optional<std::uint64_t> hash) {
  NcclLexedLine out;
  line = without_crs(line);
  out.line = line;
  if (auto id = use_memo_ ? memo_.predict(line) : std::nullopt) return repeat(out, *id);
  NcclRecordScanner scanner(line, &first_record_);
  bool may_repeat = false;
  if (scanner.next(out.first)) {
    out.kind = NcclLexedLine::Kind::Records;
    NcclRecord second;
    out.more_records = scanner.next(second);
    out.plain = !may_hold_rare_nccl_tokens(out.first.msg);
    // Only a line of one plain INFO connection record can be a count when
    // it comes again (NcclLogParser decides when it reads it).
    may_repeat =
        !out.more_records && out.plain && out.first.level == NcclLevel::Info && starts_like_channel_line(out.first.msg);
  }
  if (!use_memo_) return out;
  if (!may_repeat) {
    // Never in the memo: no hash lookup for it.
    memo_.pass();
    return out;
  }
  if (auto id = memo_.look_up(line, hash)) return repeat(out, *id);
  if (memo_.remember(line, next_id_)) out.memo_id = next_id_++;
  return out;
}

void NcclLineLexer::lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out) {
  lex_all(lines, out, nullptr);
}

void NcclLineLexer::lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out,
                            std::vector<NcclConnectionReading>& connections) {
  lex_all(lines, out, &connections);
}

void NcclLineLexer::lex_all(std::span<const std::string_view> lines, std::vector<NcclLexedLine>& out,
                            std::vector<NcclConnectionReading>* connections) {
  // Far enough ahead for a fetch from memory to finish (a line takes some
  // tens of nanoseconds here); a power of two for the ring of hashes.
  constexpr std::size_t kAhead = 8;
  std::array<std::optional<std::uint64_t>, 2 * kAhead> ahead{};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t j = i + kAhead;
    if (use_memo_ && j < lines.size() && memo_.looks_up_by_hash(kAhead))
      ahead[j % ahead.size()] = memo_.prefetch(without_crs(lines[j]));
    auto& hash = ahead[i % ahead.size()];
    NcclLexedLine& lexed = out.emplace_back(lex(lines[i], hash));
    hash.reset();
    if (connections && lexed.is_one_record() && starts_like_channel_line(lexed.first.msg)) {
      lexed.connection = static_cast<std::uint32_t>(connections->size());
      read_connection_ahead(lexed.first, connections->emplace_back(), key_hash_);
    }
  }
}

}  // namespace gdrcheck

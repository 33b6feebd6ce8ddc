#include "evidence/nccl_record.h"

#include <cstring>
#include <optional>

#include "evidence/log_scan.h"
#include "evidence/nccl_log_messages.h"

namespace gdrcheck {
namespace {

using scan::all_digits;
using scan::is_alnum;
using scan::is_space;

// The whitespace-free token that ends at or before `end`, not reaching
// before `lo`.
struct Token {
  std::size_t start = 0;
  std::string_view text;
};

Token previous_token(std::string_view s, std::size_t end, std::size_t lo = 0) {
  while (end > lo && is_space(s[end - 1])) --end;
  std::size_t start = end;
  while (start > lo && !is_space(s[start - 1])) --start;
  return {start, s.substr(start, end - start)};
}

bool is_dev_token(std::string_view t) {
  return t.size() >= 3 && t.size() <= 8 && t.front() == '[' && t.back() == ']' && all_digits(t.substr(1, t.size() - 2));
}

// "host:pid:tid" as the token that ends before `end` (not reaching before
// `lo`), with anything glued before the host ("[1,0]<stdout>:", "->", a
// backquote): read backwards, tid digits, ':', pid digits, ':', then the
// host's characters. `start` is where the host begins.
struct HostToken {
  std::string_view host, pid;
  std::size_t start = 0;
};

std::optional<HostToken> host_token_before(std::string_view s, std::size_t end, std::size_t lo) {
  while (end > lo && is_space(s[end - 1])) --end;
  auto digits_back = [&](std::size_t at) {
    while (at > lo && scan::is_digit(s[at - 1])) --at;
    return at;
  };
  std::size_t tid = digits_back(end);
  if (tid == end || tid == lo || s[tid - 1] != ':') return std::nullopt;
  std::size_t c2 = tid - 1;
  std::size_t pid = digits_back(c2);
  if (pid == c2 || pid == lo || s[pid - 1] != ':') return std::nullopt;
  std::size_t c1 = pid - 1;
  std::size_t h = c1;
  while (h > lo && is_host_char(s[h - 1])) --h;
  return HostToken{s.substr(h, c1 - h), s.substr(pid, c2 - pid), h};
}

// "INFO" / "WARN" / "TRACE" standing as a word at the start of `rest`.
bool level_word(std::string_view rest, std::size_t* len, NcclLevel* level) {
  static constexpr struct {
    std::string_view word;
    NcclLevel level;
  } kKinds[] = {{"INFO", NcclLevel::Info}, {"WARN", NcclLevel::Warn}, {"TRACE", NcclLevel::Trace}};
  for (const auto& k : kKinds) {
    if (!rest.starts_with(k.word)) continue;
    if (rest.size() != k.word.size() && !is_space(rest[k.word.size()])) continue;
    *len = k.word.size();
    *level = k.level;
    return true;
  }
  return false;
}

}  // namespace

NcclRecordScanner::NcclRecordScanner(std::string_view line, FirstRecordCache* cache) : line_(line) {
  if (cache && first_from_cache(*cache)) return;
  marker_ = find_marker(0);
  if (marker_.found) prefix_ = prefix_before(marker_, 0);
  if (cache) keep_first(*cache);
}

bool NcclRecordScanner::first_from_cache(const FirstRecordCache& c) {
  const std::string& b = c.bytes;
  if (b.empty() || line_.size() < b.size() || std::memcmp(line_.data(), b.data(), b.size()) != 0) return false;
  marker_ = c.marker;
  prefix_.start = c.start;
  prefix_.host = line_.substr(c.host_at, c.host_len);
  prefix_.pid = line_.substr(c.pid_at, c.pid_len);
  return true;
}

// The bytes kept reach one past the level word: whether "INFO" stands as
// a word depends on that byte. A line that ends at the word is not kept.
void NcclRecordScanner::keep_first(FirstRecordCache& c) const {
  std::size_t end = marker_.pos + marker_.len + 1;
  if (!marker_.found || end > line_.size() || end > 256) {
    c.bytes.clear();
    return;
  }
  c.bytes.assign(line_.data(), end);
  c.marker = marker_;
  c.start = prefix_.start;
  c.host_at = prefix_.host.empty() ? 0 : static_cast<std::size_t>(prefix_.host.data() - line_.data());
  c.host_len = prefix_.host.size();
  c.pid_at = prefix_.pid.empty() ? 0 : static_cast<std::size_t>(prefix_.pid.data() - line_.data());
  c.pid_len = prefix_.pid.size();
}

// Every "NCCL " not inside a word and followed by a level word. memchr
// jumps between the 'N's, so a line costs little more than its length.
NcclRecordScanner::Marker NcclRecordScanner::find_marker(std::size_t from) const {
  Marker m;
  for (auto p = scan::find(line_, "NCCL ", from); p != std::string_view::npos; p = scan::find(line_, "NCCL ", p + 1)) {
    if (p > 0 && is_alnum(line_[p - 1])) continue;
    std::size_t len = 0;
    if (!level_word(line_.substr(p + 5), &len, &m.level)) continue;
    m.pos = p;
    m.len = 5 + len;
    m.found = true;
    return m;
  }
  return m;
}

// Walks back from a marker over "[dev]" (WARN/TRACE lines put "file:line
// (func)" between) and "host:pid:tid", never past `lo` (the end of the
// previous marker). Without them the record starts at the marker.
NcclRecordScanner::Prefix NcclRecordScanner::prefix_before(const Marker& m, std::size_t lo) const {
  Prefix p{m.pos, {}, {}};
  int skippable = m.level == NcclLevel::Info ? 0 : 3;
  std::size_t end = m.pos;
  for (int i = 0; i <= skippable; ++i) {
    Token dev = previous_token(line_, end, lo);
    if (dev.text.empty()) return p;
    if (!is_dev_token(dev.text)) {
      end = dev.start;
      continue;
    }
    p.start = dev.start;
    if (auto h = host_token_before(line_, dev.start, lo)) {
      p.start = h->start;
      p.host = is_masked_host(h->host) ? std::string_view() : h->host;
      p.pid = h->pid;
    }
    return p;
  }
  return p;
}

bool NcclRecordScanner::next(NcclRecord& out) {
  if (!marker_.found) return false;
  std::size_t from = marker_.pos + marker_.len;
  Marker following = find_marker(marker_.pos + 1);
  Prefix following_prefix;
  std::size_t to = line_.size();
  if (following.found) {
    following_prefix = prefix_before(following, from);
    to = following_prefix.start;
  }
  out.level = marker_.level;
  out.host = prefix_.host;
  out.pid = prefix_.pid;
  out.msg = scan::trim(line_.substr(from, to - from));
  marker_ = following;
  prefix_ = following_prefix;
  return true;
}

bool has_nccl_record_with_device(std::string_view line) {
  for (auto p = scan::find(line, "NCCL "); p != std::string_view::npos; p = scan::find(line, "NCCL ", p + 1)) {
    if (p > 0 && is_alnum(line[p - 1])) continue;
    std::size_t len = 0;
    NcclLevel level = NcclLevel::Info;
    if (!level_word(line.substr(p + 5), &len, &level)) continue;
    std::size_t end = p;
    for (int i = 0; i < 4; ++i) {
      Token t = previous_token(line, end);
      if (t.text.empty()) break;
      if (is_dev_token(t.text)) return true;
      if (level == NcclLevel::Info) break;
      end = t.start;
    }
  }
  return false;
}

}  // namespace gdrcheck

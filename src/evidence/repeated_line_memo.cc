#include "evidence/repeated_line_memo.h"

#include <algorithm>
#include <cstring>

namespace gdrcheck {
namespace {

constexpr std::uint64_t kTagMask = 0xffffffff00000000ull;

constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ull;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * kMul;
  return h ^ (h >> 29);
}

std::uint64_t word_at(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A multiply-xorshift step per 8 bytes in four independent lanes (one
// chain of dependent multiplies cost ~100 cycles on a 160-byte line), the
// lanes folded, and the splitmix64 finaliser.
std::uint64_t hash_line(std::string_view s) {
  const char* p = s.data();
  std::size_t n = s.size(), i = 0;
  std::uint64_t a = n * kMul, b = a ^ 0x6a09e667f3bcc909ull, c = a ^ 0xbb67ae8584caa73bull,
                d = a ^ 0x3c6ef372fe94f82bull;
  for (; i + 32 <= n; i += 32) {
    a = mix(a, word_at(p + i));
    b = mix(b, word_at(p + i + 8));
    c = mix(c, word_at(p + i + 16));
    d = mix(d, word_at(p + i + 24));
  }
  for (; i + 8 <= n; i += 8) a = mix(a, word_at(p + i));
  if (i < n) {
    std::uint64_t v = 0;
    std::memcpy(&v, p + i, n - i);
    b = mix(b, v);
  }
  std::uint64_t h = mix(mix(mix(a, b), c), d);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

bool RepeatedLineMemo::same(const Entry& e, std::string_view line) const {
  return e.length == line.size() && std::memcmp(text_.data() + e.text, line.data(), line.size()) == 0;
}

std::uint32_t RepeatedLineMemo::lookup(std::string_view line, std::uint64_t hash) const {
  if (slots_.empty()) return kNone;
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint64_t slot = slots_[i];
    if (slot == 0) return kNone;
    if ((slot & kTagMask) != (hash & kTagMask)) continue;
    auto index = static_cast<std::uint32_t>(slot) - 1;
    if (entries_[index].hash == hash && same(entries_[index], line)) return index;
  }
}

void RepeatedLineMemo::follow(std::uint32_t index) {
  if (last_ != kNone) entries_[last_].next = index;
  last_ = index;
}

void RepeatedLineMemo::count_window(bool hit) {
  window_hits_ += hit;
  if (++window_finds_ < kWindow) return;
  if (window_hits_ * 20 < window_finds_ && seen_wraps_ > 0) {
    // Each pause that ends in nothing found doubles the next (up to 16x):
    // a log that never repeats pays for looking less and less often.
    resume_at_ = finds_ + (kBypass << std::min<std::uint64_t>(fruitless_pauses_, 4));
    ++fruitless_pauses_;
    forget_seen();  // what is offered after the pause starts afresh
    seen_wraps_ = 0;
  } else if (window_hits_ * 20 >= window_finds_) {
    fruitless_pauses_ = 0;
  }
  window_finds_ = window_hits_ = 0;
}

void RepeatedLineMemo::forget_seen() {
  std::fill(seen_.begin(), seen_.end(), 0);
  seen_count_ = 0;
}

// Open addressing over 32-bit tags of the hash (its upper half, never 0),
// placed by the tag itself so the table can grow without the hashes: exact
// but for two lines sharing a tag (one in 2^32), which only keeps a line
// one sighting early. Half the memory of whole hashes.
namespace {

std::size_t home_of(std::uint32_t tag, std::size_t mask) {
  return (tag >> 1) & mask;
}

}  // namespace

bool RepeatedLineMemo::seen_before(std::uint64_t hash) {
  if (seen_.empty()) seen_.assign(1024, 0);
  auto tag = static_cast<std::uint32_t>(hash >> 32) | 1u;
  std::size_t mask = seen_.size() - 1;
  for (std::size_t i = home_of(tag, mask);; i = (i + 1) & mask) {
    if (seen_[i] == tag) return true;
    if (seen_[i] != 0) continue;
    if (seen_count_ >= kMaxSeenOnce) {  // full of lines that did not come back: start again
      forget_seen();
      ++seen_wraps_;
      i = home_of(tag, mask);
    }
    seen_[i] = tag;
    if (++seen_count_ * 2 > seen_.size()) grow_seen();  // keep it at most half full
    return false;
  }
}

void RepeatedLineMemo::grow_seen() {
  std::vector<std::uint32_t> old(seen_.size() * 2, 0);
  old.swap(seen_);
  std::size_t mask = seen_.size() - 1;
  for (std::uint32_t tag : old)
    if (tag) {
      std::size_t j = home_of(tag, mask);
      while (seen_[j] != 0) j = (j + 1) & mask;
      seen_[j] = tag;
    }
}

std::uint64_t RepeatedLineMemo::line_hash(std::string_view line) {
  return hash_line(line);
}

std::uint64_t RepeatedLineMemo::prefetch(std::string_view line) const {
  std::uint64_t hash = hash_line(line);
  if (!seen_.empty())
    __builtin_prefetch(&seen_[home_of(static_cast<std::uint32_t>(hash >> 32) | 1u, seen_.size() - 1)]);
  if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  return hash;
}

std::optional<std::uint32_t> RepeatedLineMemo::predicted(std::string_view line) {
  if (last_ != kNone) {
    std::uint32_t predicted = entries_[last_].next;
    if (predicted != kNone && same(entries_[predicted], line)) {
      last_ = predicted;
      count_window(true);
      return entries_[predicted].value;
    }
  }
  before_miss_ = last_;
  last_ = kNone;
  return std::nullopt;
}

std::optional<std::uint32_t> RepeatedLineMemo::look_up(std::string_view line, std::optional<std::uint64_t> hash) {
  if (finds_ < resume_at_) return std::nullopt;
  missed_hash_ = hash ? *hash : hash_line(line);
  // remember() will look this tag up after the line is parsed: start the
  // fetch now, so the (likely) cache miss overlaps the parse.
  if (!hash && !seen_.empty())
    __builtin_prefetch(&seen_[home_of(static_cast<std::uint32_t>(missed_hash_ >> 32) | 1u, seen_.size() - 1)], 1);
  std::uint32_t index = entries_.empty() ? kNone : lookup(line, missed_hash_);
  count_window(index != kNone);
  if (index == kNone) return std::nullopt;
  last_ = before_miss_;
  before_miss_ = kNone;
  follow(index);
  return entries_[index].value;
}

bool RepeatedLineMemo::remember(std::string_view line, std::uint32_t value) {
  if (finds_ < resume_at_) return false;
  std::uint64_t hash = missed_hash_;
  if (!seen_before(hash)) return false;  // the first time: only its hash
  if (entries_.size() >= kMaxLines || text_.size() + line.size() > kMaxBytes) return false;
  if ((entries_.size() + 1) * 2 > slots_.size()) grow();
  reserve_for(line.size());
  Entry e;
  e.hash = hash;
  e.text = static_cast<std::uint32_t>(text_.size());
  e.length = static_cast<std::uint32_t>(line.size());
  e.value = value;
  text_.append(line);
  entries_.push_back(e);
  auto index = static_cast<std::uint32_t>(entries_.size() - 1);
  place(index);
  last_ = before_miss_;
  before_miss_ = kNone;
  follow(index);
  return true;
}

// Growing by doubling would copy the text and hold the old and the new
// block together (1.5x the bound at the peak). So the memo reserves in two
// steps: a little first (a short log never needs more, and a sanitizer
// build pays for every reserved byte), then the whole bound at once while
// what it copies is still small. Untouched reserved pages cost no memory.
void RepeatedLineMemo::reserve_for(std::size_t bytes) {
  constexpr std::size_t kFirstBytes = 1u << 20, kFirstLines = 1u << 13;
  if (text_.capacity() < kFirstBytes) text_.reserve(kFirstBytes);
  if (text_.size() + bytes > text_.capacity()) text_.reserve(kMaxBytes);
  if (entries_.capacity() < kFirstLines) entries_.reserve(kFirstLines);
  if (entries_.size() == entries_.capacity()) entries_.reserve(kMaxLines);
}

void RepeatedLineMemo::place(std::uint32_t index) {
  std::size_t mask = slots_.size() - 1;
  std::uint64_t hash = entries_[index].hash;
  std::size_t i = hash & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = (hash & kTagMask) | (index + 1);
}

// Keeps the table at most half full, so probes stay short.
void RepeatedLineMemo::grow() {
  slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  for (std::uint32_t k = 0; k < entries_.size(); ++k) place(k);
}

}  // namespace gdrcheck

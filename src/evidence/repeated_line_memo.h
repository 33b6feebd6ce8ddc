// Remembers lines whose whole effect on a reader is known and repeatable,
// so a line seen before is not parsed again.
//
// Large NCCL logs repeat themselves: every communicator a job creates
// prints the same connection lines, in the same order, again. The memo
// keeps each remembered line (exact text) with a value its user chose (the
// log reader: an id under which it keeps what the line did), and
// for each line the one that followed it last time: the next line is
// compared with that prediction first, so a repeated block costs one
// memcmp per line; otherwise a hash lookup. Memory is bounded (kMaxLines,
// kMaxBytes): once full, new lines are simply not remembered.
//
// Other logs never repeat a line (new pids and threads in every
// communicator): there the memo would only cost time and memory. So a
// line's text is kept only the second time it is offered (the first time
// only a 32-bit tag of its hash; kMaxSeenOnce of them, forgotten all at
// once when full),
// and when the hashes have filled up and fewer than 1 in 20 of a window's
// lines were found, the memo stands aside for kBypass lines before it
// looks again (twice as long after each pause that found nothing, up to
// 16 times).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

class RepeatedLineMemo {
 public:
  static constexpr std::size_t kMaxLines = 1u << 18;
  static constexpr std::size_t kMaxBytes = 24u << 20;
  static constexpr std::size_t kMaxSeenOnce = 1u << 19;  // 2 MiB of tags (4 MiB of table)
  static constexpr std::uint64_t kWindow = 1u << 16;
  static constexpr std::uint64_t kBypass = 1u << 22;
  static_assert(kMaxBytes <= 0xffffffffu, "text offsets are 32-bit");

  // The value remembered for exactly this line, if any: predict(), then
  // look_up(). Also notes the line as the predecessor of the next one.
  std::optional<std::uint32_t> find(std::string_view line) {
    if (auto value = predict(line)) return value;
    return look_up(line);
  }
  // The cheap first step: whether the line is the one that followed the
  // previous line last time (one memcmp). Inline, as the check while the
  // memo stands aside is all most lines of a log without repeats cost
  // here. When it says no, the caller either looks the line up by hash
  // (look_up) or, for a line of a kind it never remembers, calls pass().
  std::optional<std::uint32_t> predict(std::string_view line) {
    if (++finds_ < resume_at_) {  // standing aside: nothing to find, nothing to chain
      last_ = before_miss_ = kNone;
      return std::nullopt;
    }
    return predicted(line);
  }
  // The second step, after predict() said no. `hash`, when given, is
  // line_hash(line), computed ahead (see prefetch).
  std::optional<std::uint32_t> look_up(std::string_view line, std::optional<std::uint64_t> hash = std::nullopt);
  // After predict() said no, instead of look_up(): the line is of a kind
  // never offered to remember(). It costs no hash lookup, and the next line
  // is predicted from the one before it, so a repeated block of remembered
  // lines with such lines between is still followed by prediction.
  void pass() { last_ = before_miss_; }

  // Whether a line `ahead` lines from now will be looked up by its hash
  // (no chain of predictions runs, the memo is not standing aside): then a
  // caller that knows the lines to come can hash one early and prefetch.
  bool looks_up_by_hash(std::uint64_t ahead) const { return last_ == kNone && finds_ + ahead + 1 >= resume_at_; }
  // Starts fetching what find() and remember() will read for a line of
  // this hash; returns the hash.
  std::uint64_t prefetch(std::string_view line) const;
  static std::uint64_t line_hash(std::string_view line);
  // Remembers `value` for the line just passed to find() (or look_up()),
  // which did not know it — from the second time it is offered on, and while there is
  // room; returns whether it did. Lines not remembered break the chain of
  // predictions.
  bool remember(std::string_view line, std::uint32_t value);

  std::size_t size() const { return entries_.size(); }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t text = 0;  // offset in text_ (kMaxBytes fits)
    std::uint32_t length = 0;
    std::uint32_t next = kNone;  // the entry that followed this line last time
    std::uint32_t value = 0;
  };
  std::optional<std::uint32_t> predicted(std::string_view line);
  bool same(const Entry& e, std::string_view line) const;
  std::uint32_t lookup(std::string_view line, std::uint64_t hash) const;
  void reserve_for(std::size_t bytes);
  void place(std::uint32_t index);
  void grow();
  void follow(std::uint32_t index);
  // Adds the hash to the lines seen once; true when it was there already.
  bool seen_before(std::uint64_t hash);
  void grow_seen();
  void count_window(bool hit);
  void forget_seen();

  std::vector<Entry> entries_;
  std::string text_;
  std::vector<std::uint64_t> slots_;   // hash tag << 32 | (index + 1); 0 = empty
  std::uint32_t last_ = kNone;         // the entry of the previous line, if it was one
  std::uint32_t before_miss_ = kNone;  // last_ when find() missed
  std::uint64_t missed_hash_ = 0;      // hash of the line find() missed
  std::vector<std::uint32_t> seen_;    // tags of lines offered once, by hash (0 = empty slot)
  std::size_t seen_count_ = 0;
  std::size_t seen_wraps_ = 0;               // times the hashes filled up since the memo last stood aside
  std::uint64_t finds_ = 0, resume_at_ = 0;  // find() calls; no memo work before resume_at_
  std::uint64_t window_finds_ = 0, window_hits_ = 0;
  std::uint64_t fruitless_pauses_ = 0;  // pauses in a row after which nothing repeated
};

}  // namespace gdrcheck

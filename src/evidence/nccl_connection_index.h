// The set of distinct network connections seen in an NCCL log, keyed by
// what identifies a connection line: channel, connection index, ranks,
// side, net name, device, proxy rank, and the host and pid that printed it.
//
// A large job's log repeats each connection many times (every communicator
// prints its channels), so a lookup must cost one hash of the views in the
// line and, mostly, one probe of a flat table: no std::string is built
// unless the key is new.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

struct NcclConnectionKey {
  int channel = 0, conn_index = 0, from_rank = 0, to_rank = 0, side = 0, dev = 0, proxy_rank = -1;
  std::string_view net, host, pid;
};

// The hash a connection key is filed under: a function of the key alone,
// so a line's key can be hashed on another thread ahead of its lookup
// (NcclConnectionReading). Each hasher keeps the last key's texts' part
// (see text_hash); one hasher per thread.
class NcclConnectionKeyHasher {
 public:
  std::uint64_t operator()(const NcclConnectionKey& key) const;

 private:
  std::uint64_t text_hash(const NcclConnectionKey& key) const;
  // The hash of the last key's texts, with copies of them.
  struct TextHashCache {
    bool valid = false;
    std::string net, host, pid;
    std::uint64_t hash = 0;
  };
  mutable TextHashCache text_cache_;
};

class NcclConnectionIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  static constexpr std::size_t kMaxKeys = (1u << 20) - 2;  // more are not stored

  // The value stored with an equal key, or npos.
  std::size_t find(const NcclConnectionKey& key) const { return find(key, hash_of(key)); }
  // The same, in two steps: hash_of() then prefetch() lets the caller do
  // other work while the key's slot (a cache miss in a large table) is
  // fetched, and find() with that hash.
  std::uint64_t hash_of(const NcclConnectionKey& key) const { return hasher_(key); }
  void prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }
  std::size_t find(const NcclConnectionKey& key, std::uint64_t hash) const;
  // Stores `value` for a key that find() did not know.
  void insert(const NcclConnectionKey& key, std::size_t value);
  std::size_t size() const { return keys_.size(); }

 private:
  struct Stored {
    std::uint64_t hash = 0;
    int ints[7] = {};
    std::size_t text = 0;  // offset of net, host, pid in text_
    std::size_t net_len = 0, host_len = 0, pid_len = 0;
    std::size_t value = 0;
  };
  bool equal(const Stored& s, std::uint64_t hash, const NcclConnectionKey& key) const;
  void grow();

  std::vector<Stored> keys_;
  std::string text_;  // the key strings, back to back
  // Upper 12 bits: the key's hash (so most probes never touch keys_);
  // lower 20 bits: 1 + index into keys_. 0 = empty. Four bytes a slot keep
  // the table of a capped log (65,536 keys, 512 KiB) in the core's own
  // cache: a log past the cap probes it for every connection line.
  std::vector<std::uint32_t> slots_;
  NcclConnectionKeyHasher hasher_;
};

}  // namespace gdrcheck

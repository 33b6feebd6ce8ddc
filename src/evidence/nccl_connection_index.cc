#include "evidence/nccl_connection_index.h"

#include <cstring>

#include "evidence/log_scan.h"

namespace gdrcheck {
namespace {

// One multiply-xorshift step per 8 bytes, and the splitmix64 finaliser
// once at the end (NcclConnectionKeyHasher): cheap per key, and every input bit reaches
// every output bit.
std::uint64_t step(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

std::uint64_t finish(std::uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

std::uint64_t step_text(std::uint64_t h, std::string_view s) {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t v;
    std::memcpy(&v, s.data() + i, 8);
    h = step(h, v);
  }
  std::uint64_t v = 0;
  if (i < s.size()) std::memcpy(&v, s.data() + i, s.size() - i);
  // The length ends each text, so "ab" + "c" differs from "a" + "bc".
  return step(step(h, v), s.size());
}

}  // namespace

// The texts come first, so their part of the hash can be kept: a log prints
// a process's connection lines one after another, with the same net, host
// and pid.
std::uint64_t NcclConnectionKeyHasher::text_hash(const NcclConnectionKey& k) const {
  TextHashCache& c = text_cache_;
  if (c.valid && scan::same_text(k.net, c.net) && scan::same_text(k.host, c.host) && scan::same_text(k.pid, c.pid))
    return c.hash;
  c.net.assign(k.net);
  c.host.assign(k.host);
  c.pid.assign(k.pid);
  c.hash = step_text(step_text(step_text(0, k.net), k.host), k.pid);
  c.valid = true;
  return c.hash;
}

std::uint64_t NcclConnectionKeyHasher::operator()(const NcclConnectionKey& k) const {
  auto pair = [](int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  };
  std::uint64_t h = step(text_hash(k), pair(k.channel, k.conn_index));
  h = step(h, pair(k.from_rank, k.to_rank));
  h = step(h, pair(k.side, k.dev));
  return finish(step(h, static_cast<std::uint32_t>(k.proxy_rank)));
}

bool NcclConnectionIndex::equal(const Stored& s, std::uint64_t hash, const NcclConnectionKey& k) const {
  if (s.hash != hash) return false;
  const int ints[7] = {k.channel, k.conn_index, k.from_rank, k.to_rank, k.side, k.dev, k.proxy_rank};
  if (std::memcmp(s.ints, ints, sizeof ints) != 0) return false;
  std::string_view text(text_.data() + s.text, s.net_len + s.host_len + s.pid_len);
  return text.substr(0, s.net_len) == k.net && text.substr(s.net_len, s.host_len) == k.host &&
         text.substr(s.net_len + s.host_len) == k.pid;
}

namespace {

constexpr unsigned kIndexBits = 20;
constexpr std::uint32_t kIndexMask = (1u << kIndexBits) - 1;

std::uint32_t tag_of(std::uint64_t hash) {
  return static_cast<std::uint32_t>(hash >> (64 - (32 - kIndexBits))) << kIndexBits;
}

std::uint32_t slot_of(std::uint64_t hash, std::size_t index) {
  return tag_of(hash) | static_cast<std::uint32_t>(index + 1);
}

}  // namespace

std::size_t NcclConnectionIndex::find(const NcclConnectionKey& key, std::uint64_t hash) const {
  if (slots_.empty()) return npos;
  std::size_t mask = slots_.size() - 1;
  std::uint32_t tag = tag_of(hash);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint32_t slot = slots_[i];
    if (slot == 0) return npos;
    if ((slot & ~kIndexMask) != tag) continue;
    const Stored& s = keys_[(slot & kIndexMask) - 1];
    if (equal(s, hash, key)) return s.value;
  }
}

void NcclConnectionIndex::insert(const NcclConnectionKey& key, std::size_t value) {
  if (keys_.size() >= kMaxKeys) return;  // the reader keeps far fewer
  if ((keys_.size() + 1) * 2 > slots_.size()) grow();
  Stored s;
  s.hash = hash_of(key);
  const int ints[7] = {key.channel, key.conn_index, key.from_rank, key.to_rank, key.side, key.dev, key.proxy_rank};
  std::memcpy(s.ints, ints, sizeof ints);
  s.text = text_.size();
  s.net_len = key.net.size();
  s.host_len = key.host.size();
  s.pid_len = key.pid.size();
  s.value = value;
  text_.append(key.net).append(key.host).append(key.pid);
  keys_.push_back(s);
  std::size_t mask = slots_.size() - 1;
  std::size_t i = s.hash & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = slot_of(s.hash, keys_.size() - 1);
}

// Keeps the table at most half full, so probes stay short.
void NcclConnectionIndex::grow() {
  std::vector<std::uint32_t> slots(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  std::size_t mask = slots.size() - 1;
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    std::size_t i = keys_[k].hash & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = slot_of(keys_[k].hash, k);
  }
  slots_.swap(slots);
}

}  // namespace gdrcheck

// Streaming NCCL / RCCL debug-log reader. Lines are split into records by
// NcclRecordScanner (nccl_record.h); connection lines are read by
// parse_nccl_channel_line (nccl_channel_line.h) and deduplicated in an
// NcclConnectionIndex. The common records (connection lines) take a path
// that allocates nothing; the rare ones may.
//
// The verdict rests on connection lines only (nccl-spec §4.1): per-pair
// "GPU Direct RDMA Enabled/Disabled" lines are decision inputs, and the
// "use ring PXN x GDR y" summary is 1 on single-node communicators too.
#include "evidence/nccl_log.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <unordered_set>

#include "evidence/log_scan.h"
#include "evidence/nccl_channel_line.h"
#include "evidence/nccl_completion.h"
#include "evidence/nccl_connection_index.h"
#include "evidence/nccl_line_lexer.h"
#include "evidence/nccl_log_messages.h"
#include "evidence/nccl_net_speed.h"
#include "evidence/nccl_record.h"
#include "evidence/nccl_stripped_line.h"
#include "evidence/nccl_warning.h"
#include "topology/path_class.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kEvidenceLines = kNcclEvidenceLines;
constexpr std::size_t kMaxConnections = kNcclMaxConnections;
constexpr std::size_t kMaxNames = 1024;  // hosts, devices, interfaces, versions
constexpr std::size_t kMaxRanks = 65536;
constexpr std::size_t kMaxReasons = 256;
constexpr std::size_t kMaxEnv = 256;
constexpr std::size_t kMaxSummaries = 16;

using scan::all_digits;
using scan::consume;
using scan::contains;
using scan::contains_word;
using scan::icontains;
using scan::is_alnum;
using scan::is_digit;
using scan::is_space;
using scan::skip_spaces;
using scan::take_int;
using scan::trim;

// NCCL cuts the host name at the first '.' and turns other specials into '-'.

std::vector<std::size_t> merge_lines(std::vector<std::size_t> a, const std::vector<std::size_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  if (a.size() > kEvidenceLines) a.resize(kEvidenceLines);
  return a;
}

NcclConnection connection_of(const NcclChannelLine& p, std::string_view host, std::size_t line) {
  NcclConnection c;
  c.channel = p.channel;
  c.conn_index = p.conn_index;
  c.from_rank = p.from_rank;
  c.to_rank = p.to_rank;
  c.from_device = std::string(p.from_device);
  c.to_device = std::string(p.to_device);
  c.side = p.receive ? NetSide::Receive : NetSide::Send;
  c.net = std::string(p.net_name);
  c.dev = p.dev;
  c.proxy_rank = p.proxy_rank;
  c.gdr = p.gdr;
  c.pci = p.pci;
  c.shared = p.shared;
  c.host = std::string(host);
  c.line = line;
  return c;
}

void add_name(std::vector<std::string>& names, std::string_view name) {
  if (name.empty() || names.size() >= kMaxNames) return;
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

}  // namespace

// ---------------------------------------------------------------- public

std::string nccl_distance_name(const NcclVersion& v, int value) {
  using P = NcclPath;
  // nccl-spec §1.1: each row is the enum of a version range, from value 0.
  static const std::vector<P> k26 = {P::LOC, P::NVL, P::PIX, P::PXB, P::PHB, P::SYS, P::NET};
  static const std::vector<P> k28 = {P::LOC, P::NVL, P::NVB, P::PIX, P::PXB, P::PHB, P::SYS};
  static const std::vector<P> k212 = {P::LOC, P::NVL, P::NVB, P::PIX, P::PXB, P::PXN, P::PHB, P::SYS};
  static const std::vector<P> k218 = {P::LOC, P::NVL, P::NVB, P::PIX, P::PXB, P::PXN, P::PHB, P::SYS, P::NET, P::DIS};
  static const std::vector<P> k226 = {P::LOC, P::NVL, P::NVB, P::C2C, P::PIX, P::PXB,
                                      P::PXN, P::PHB, P::SYS, P::NET, P::DIS};
  static const std::vector<P> k2273 = {P::LOC, P::NVL, P::NVB, P::C2C, P::PIX, P::PXB,
                                       P::PXN, P::P2C, P::PHB, P::SYS, P::NET, P::DIS};
  static const std::vector<P> k2275 = {P::LOC, P::NVL, P::NVB, P::C2C, P::PIX, P::PXB,
                                       P::P2C, P::PXN, P::PHB, P::SYS, P::NET, P::DIS};
  if (value < 0) return "?";
  if (v < NcclVersion{2, 6, 0}) {
    // The old netDistance scale, which has NODE and no NcclPath for it.
    static const std::array<const char*, 5> kOld = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    return value < static_cast<int>(kOld.size()) ? kOld[value] : "?";
  }
  const std::vector<P>& table = v < NcclVersion{2, 8, 0}    ? k26
                                : v < NcclVersion{2, 12, 0} ? k28
                                : v < NcclVersion{2, 18, 0} ? k212
                                : v < NcclVersion{2, 26, 0} ? k218
                                : v < NcclVersion{2, 27, 0} ? k226
                                : v < NcclVersion{2, 27, 5} ? k2273
                                                            : k2275;
  return value < static_cast<int>(table.size()) ? nccl_path_name(table[value]) : "?";
}

const char* gdr_verdict_name(GdrVerdict v) {
  switch (v) {
    case GdrVerdict::Yes:
      return "yes";
    case GdrVerdict::No:
      return "no";
    case GdrVerdict::Partial:
      return "partial";
    case GdrVerdict::Unknown:
      return "unknown";
  }
  return "unknown";
}

const char* net_side_name(NetSide s) {
  return s == NetSide::Send ? "send" : "receive";
}

const NcclReason* NcclLogReport::reason(std::string_view code) const {
  for (const auto& r : reasons)
    if (r.code == code) return &r;
  return nullptr;
}

const NcclEnvEcho* NcclLogReport::env_value(std::string_view name) const {
  for (const auto& e : env)
    if (e.name == name) return &e;
  return nullptr;
}

bool looks_like_nccl_log(std::string_view head) {
  head = head.substr(0, std::min<std::size_t>(head.size(), 256 * 1024));
  while (!head.empty()) {
    auto nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (has_nccl_record_with_device(line) || looks_like_stripped_nccl_line(line)) return true;
    for (std::string_view tag : {"NCCL version ", "RCCL version"})
      if (auto p = line.find(tag); p != std::string_view::npos && version_token(line.substr(p + tag.size())))
        return true;
  }
  return false;
}

// ------------------------------------------------------------------ state

struct NcclLogParser::State {
  // Evidence and RankSet are State's own types, not the anonymous
  // namespace's: a member of a class with linkage must not have a type
  // without it (GCC's -Wsubobject-linkage once the file is in a unity build).

  // One line number per occurrence: the first few kept, all counted.
  struct Evidence {
    std::vector<std::size_t> lines;
    std::size_t count = 0;
    void add(std::size_t line) {
      ++count;
      if (lines.size() < kEvidenceLines) lines.push_back(line);
    }
  };

  // Distinct ranks, counted up to kMaxRanks: a bitmap for the rank numbers
  // jobs have, a hash set for the odd huge one.
  class RankSet {
   public:
    void add(int rank) {
      if (count_ >= kMaxRanks) return;
      if (rank >= 0 && rank < kBitmapRanks) {
        auto r = static_cast<std::size_t>(rank);
        if (r >= bits_.size()) bits_.resize(std::max(r + 1, bits_.size() * 2), false);
        if (bits_[r]) return;
        bits_[r] = true;
        ++count_;
      } else if (others_.insert(rank).second) {
        ++count_;
      }
    }
    std::size_t size() const { return count_; }

   private:
    static constexpr int kBitmapRanks = 1 << 22;
    std::vector<bool> bits_;
    std::unordered_set<int> others_;
    std::size_t count_ = 0;
  };

  std::optional<NcclVersion> assumed, current;
  std::size_t line_no = 0, records = 0, cut_lines = 0, intra = 0;
  std::vector<std::string> versions, hosts, devices, interfaces, net_modules;
  std::set<std::string> glued_hosts;  // "-1node7": a host with another writer's text in front
  // Every record names its host: a hash set keeps that lookup O(1) on
  // logs of hundreds of hosts (the vector keeps first-seen order), and the
  // last host seen (consecutive records mostly share it) skips even that.
  std::unordered_set<std::string> host_set;
  std::string last_host;
  bool rccl = false;

  NcclConnectionIndex conn_index;
  NcclChannelLine channel_line;  // reused: a fresh one per line cost a block fill
  NcclRankMapCollector places;   // which GPU each rank used, each process's NET list
  std::vector<NcclConnection> conns;
  std::size_t conns_dropped = 0;

  int max_nranks = 0;
  RankSet ranks_seen;

  // Which network was used, and the fallback evidence.
  std::string using_network, internal_network;
  bool ib_using = false, using_socket = false, using_other = false;
  Evidence using_socket_lines, ib_unavailable;
  std::map<std::string, std::pair<std::string, std::size_t>> socket_causes;  // key → (text, line)

  // Explicit statements, for logs without connection lines.
  std::size_t explicit_disabled = 0, distance_enabled = 0, hca_enabled = 0, hca_disabled = 0;
  Evidence hca_enabled_lines;  // "GPU Direct RDMA [(DMABUF)] Enabled for HCA n 'name'"
  bool hca_dmabuf = false;

  std::vector<NcclReason> reasons;
  std::map<std::string, std::size_t> reason_index;
  std::vector<NcclEnvEcho> env;
  std::set<std::pair<std::string, std::string>> env_seen;
  std::vector<NcclRingSummary> summaries;
  std::vector<NcclNetDeviceSpeed> speeds;
  std::set<std::pair<std::string, std::string>> speed_seen;  // (host, name)

  void feed(const NcclLexedLine& lexed);
  void feed_batch(const NcclLexedBatch& batch);
  void feed_records(std::string_view line);
  // Connection lines read ahead of their turn (feed_batch), by the lexer or
  // here: hashing a key early lets the index slot (a cache miss in a large
  // table) arrive before it is probed.
  NcclConnectionKeyHasher key_hash;
  std::array<NcclConnectionReading, 8> read_here;
  std::array<const NcclConnectionReading*, 8> ahead{};
  const NcclConnectionReading* prepared = nullptr;  // for the line being fed, when read ahead
  const NcclConnectionReading* prepare(const NcclLexedLine& lexed, const NcclLexedBatch& batch, std::size_t slot);
  void on_bare_line(std::string_view line);
  // What a line did, when doing it again would only count it again: a
  // repeat of the line (the lexer's memo id) is counted without reading.
  // NotRepeatable: a repeat must be read again.
  enum class Repeatable : std::uint8_t { KnownConnection, DroppedConnection, IntraNode, NotRepeatable };
  NcclLineLexer lexer;                        // for feed(std::string_view)
  std::vector<Repeatable> repeat_by_memo_id;  // what each remembered line did
  void replay(Repeatable what);
  void note_repeatable(std::uint32_t memo_id, std::optional<Repeatable> what);

  std::optional<Repeatable> on_record(const NcclRecord& r, bool plain);
  void on_rare_tokens(std::string_view msg);
  bool on_connection(const NcclRecord& r, std::optional<Repeatable>* repeatable);
  void on_version(std::string_view printed);
  void on_env(NcclEnvEcho e);
  void on_gdr_statement(std::string_view msg);
  void on_warning(std::string_view msg);
  void on_network_info(std::string_view msg);
  bool on_network_choice(std::string_view msg);
  void on_device_list(std::string_view msg);
  void on_ib_failure(std::string_view msg);
  void on_ring_summary(std::string_view msg);
  void on_net_speed(std::string_view msg, std::string_view host);
  void add_reason(const std::string& code, const std::string& key, const std::string& message);
  void add_cause(const std::string& key, std::string text);
  void ib_failed(const std::string& key, std::string text);
  void add_host(std::string_view host);
  void add_rank(int rank);
  std::string resolve_host(const std::string& host) const;

  NcclLogReport report() const;
  void finish_socket(NcclLogReport& r) const;
  void finish_verdict(NcclLogReport& r) const;
  void finish_send_side(NcclLogReport& r) const;
  void finish_partial(NcclLogReport& r) const;
  void finish_unused_gdr(NcclLogReport& r) const;
  std::string transport() const;
  bool socket_used() const;
};

void NcclLogParser::State::add_reason(const std::string& code, const std::string& key, const std::string& message) {
  std::string id = code + "\n" + key;
  auto it = reason_index.find(id);
  if (it == reason_index.end()) {
    if (reasons.size() >= kMaxReasons) return;
    it = reason_index.emplace(id, reasons.size()).first;
    reasons.push_back({code, message, {}, 0});
  }
  NcclReason& r = reasons[it->second];
  ++r.count;
  if (r.lines.size() < kEvidenceLines) r.lines.push_back(line_no);
}

void NcclLogParser::State::add_cause(const std::string& key, std::string text) {
  if (!socket_causes.count(key)) socket_causes[key] = {std::move(text), line_no};
}

// The IB transport could not start: without another network NCCL falls
// back to sockets.
void NcclLogParser::State::ib_failed(const std::string& key, std::string text) {
  ib_unavailable.add(line_no);
  add_cause(key, std::move(text));
}

void NcclLogParser::State::add_host(std::string_view host) {
  // Adding a host is idempotent, so repeating the last one changes nothing.
  if (scan::same_text(host, last_host)) return;
  last_host.assign(host);
  if (host.starts_with("-") || host.starts_with("_")) {
    if (glued_hosts.size() < kMaxNames) glued_hosts.emplace(host);
  } else if (hosts.size() < kMaxNames && !host.empty() && !host_set.count(std::string(host))) {
    host_set.emplace(host);
    hosts.emplace_back(host);
  }
}

// Host names cannot start with '-': such a name has the tail of another
// writer's text glued in front ("-1" + "node7"). It is the known host it
// ends with, else the name without the leading junk.
std::string NcclLogParser::State::resolve_host(const std::string& host) const {
  if (!glued_hosts.count(host)) return host;
  for (const auto& h : hosts)
    if (host.ends_with(h)) return h;
  auto start = host.find_first_not_of("-_");
  return start == std::string::npos ? std::string() : host.substr(start);
}

void NcclLogParser::State::add_rank(int rank) {
  ranks_seen.add(rank);
}

void NcclLogParser::State::feed(const NcclLexedLine& lexed) {
  ++line_no;
  switch (lexed.kind) {
    case NcclLexedLine::Kind::Repeat: {
      Repeatable what =
          lexed.memo_id < repeat_by_memo_id.size() ? repeat_by_memo_id[lexed.memo_id] : Repeatable::NotRepeatable;
      if (what != Repeatable::NotRepeatable) return replay(what);
      return feed_records(lexed.line);
    }
    case NcclLexedLine::Kind::Bare:
      return on_bare_line(lexed.line);
    case NcclLexedLine::Kind::Records:
      break;
  }
  if (lexed.more_records) return feed_records(lexed.line);
  ++records;
  add_host(lexed.first.host);
  // A line of one record whose effect is idempotent apart from counting
  // (its host, ranks and connection are already recorded).
  auto repeatable = on_record(lexed.first, lexed.plain);
  if (lexed.memo_id != NcclLexedLine::kNoId) note_repeatable(lexed.memo_id, repeatable);
}

void NcclLogParser::State::feed_batch(const NcclLexedBatch& batch) {
  constexpr std::size_t kAhead = 4;  // < ahead.size()
  std::span<const NcclLexedLine> lines = batch.lines;
  for (std::size_t j = 0; j < std::min(kAhead, lines.size()); ++j)
    ahead[j % ahead.size()] = prepare(lines[j], batch, j % ahead.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t j = i + kAhead;
    if (j < lines.size()) ahead[j % ahead.size()] = prepare(lines[j], batch, j % ahead.size());
    prepared = ahead[i % ahead.size()];
    feed(lines[i]);
    prepared = nullptr;
  }
}

// The connection line `lexed` states, read by the lexer or now (into
// read_here[slot]), its index slot on its way; nullptr when it is none.
const NcclConnectionReading* NcclLogParser::State::prepare(const NcclLexedLine& lexed, const NcclLexedBatch& batch,
                                                           std::size_t slot) {
  if (!lexed.is_one_record()) return nullptr;
  const NcclConnectionReading* reading = nullptr;
  if (lexed.connection < batch.connections.size())
    reading = &batch.connections[lexed.connection];
  else if (read_connection_ahead(lexed.first, read_here[slot], key_hash))
    reading = &read_here[slot];
  if (reading && reading->complete && reading->line.net) conn_index.prefetch(reading->key_hash);
  return reading;
}

void NcclLogParser::State::note_repeatable(std::uint32_t memo_id, std::optional<Repeatable> what) {
  // Ids are handed out in order, so the vector grows by one at a time
  // (bounded by RepeatedLineMemo::kMaxLines).
  if (memo_id >= repeat_by_memo_id.size()) repeat_by_memo_id.resize(memo_id + 1, Repeatable::NotRepeatable);
  repeat_by_memo_id[memo_id] = what.value_or(Repeatable::NotRepeatable);
}

// Every record of a line, found again: lines with several records (two
// writers glued), and repeats of a line whose effect was more than a count.
void NcclLogParser::State::feed_records(std::string_view line) {
  NcclRecordScanner scanner(line);
  NcclRecord r;
  if (!scanner.next(r)) return on_bare_line(line);
  do {
    ++records;
    add_host(r.host);
    on_record(r, !may_hold_rare_nccl_tokens(r.msg));
  } while (scanner.next(r));
}

void NcclLogParser::State::replay(Repeatable what) {
  ++records;
  if (what == Repeatable::DroppedConnection) ++conns_dropped;
  if (what == Repeatable::IntraNode) ++intra;
}

// Lines without a marker: the bare "NCCL version" line (NCCL_DEBUG=VERSION
// or rank 0 of old releases), RCCL's version block, nccl-tests' rank list,
// and messages quoted without their prefix (nccl_stripped_line.h).
void NcclLogParser::State::on_bare_line(std::string_view line) {
  if (auto p = scan::find(line, "NCCL version "); p != std::string_view::npos)
    if (auto v = version_token(line.substr(p + 13))) on_version(*v);
  if (auto p = scan::find(line, "RCCL version"); p != std::string_view::npos) {
    rccl = true;
    if (auto v = version_token(line.substr(p + 12))) on_version(*v);
  }
  if (contains(line, "Librccl path")) rccl = true;
  places.on_bare_line(line, line_no);
  // A message quoted without its "host:pid:tid [dev] NCCL INFO" prefix
  // still says what the job did; its host is unknown. A completion error
  // is a WARN ("NET/IB : Got completion from peer ...").
  auto msg = stripped_nccl_message(line);
  if (msg) {
    ++records;
    on_record(NcclRecord{nccl_completion_status(*msg) ? NcclLevel::Warn : NcclLevel::Info, {}, {}, *msg},
              !may_hold_rare_nccl_tokens(*msg));
  } else if (auto status = nccl_completion_status(line)) {
    // A WARN whose text a paste or a wrapping terminal carried onto the
    // next line, or quoted in prose: the status still says the transfers
    // failed.
    add_reason("ib_completion_error", std::to_string(*status),
               nccl_completion_meaning(*status) + ": the job's network transfers failed");
  }
  // "#  Rank  0 Group  0 Pid 123 on node01 device  0 [0000:19:00] ..."
  std::string_view t = trim(line);
  if (t.starts_with("#") && contains(t, "Rank") && contains(t, " device ")) {
    if (auto on = t.find(" on "); on != std::string_view::npos) {
      std::string_view rest = t.substr(on + 4);
      skip_spaces(rest);
      std::size_t n = 0;
      while (n < rest.size() && is_host_char(rest[n])) ++n;
      if (!is_masked_host(rest.substr(0, n))) add_host(rest.substr(0, n));
    }
  }
}

void NcclLogParser::State::on_version(std::string_view printed) {
  if (auto v = version_core(printed)) current = *v;
  if (versions.size() < kMaxNames && std::find(versions.begin(), versions.end(), printed) == versions.end())
    versions.emplace_back(printed);
}

// `plain`: may_hold_rare_nccl_tokens(r.msg) is false.
std::optional<NcclLogParser::State::Repeatable> NcclLogParser::State::on_record(const NcclRecord& r, bool plain) {
  std::string_view msg = r.msg;
  if (msg.starts_with("NCCL version ")) {
    if (auto v = version_token(msg.substr(13))) on_version(*v);
    return std::nullopt;
  }
  // A message that may hold a rare token is never counted unread when it
  // comes again: it may change state (a version switch).
  bool rare = !plain;
  if (rare) on_rare_tokens(msg);
  if (r.level == NcclLevel::Warn) on_warning(msg);
  std::optional<Repeatable> repeatable;
  if (on_connection(r, &repeatable)) {
    if (rare || r.level != NcclLevel::Info) return std::nullopt;
    return repeatable;
  }
  places.on_record(r.host, msg, line_no);
  if (auto e = parse_env_echo(msg)) {
    on_env(std::move(*e));
    return std::nullopt;
  }
  if (contains(msg, "GPU Direct RDMA ")) {
    on_gdr_statement(msg);
    return std::nullopt;
  }
  if (r.level != NcclLevel::Warn && (contains(msg, "IBV_WC_LOC_PROT_ERR") || icontains(msg, "local protection")))
    on_warning(msg);
  on_network_info(msg);
  on_net_speed(msg, r.host);
  return std::nullopt;
}

void NcclLogParser::State::on_net_speed(std::string_view msg, std::string_view host) {
  auto s = parse_nccl_net_speed(msg);
  if (!s || speeds.size() >= kMaxNames) return;
  if (!speed_seen.insert({std::string(host), std::string(s->name)}).second) return;
  speeds.push_back(
      {std::string(s->name), s->port, s->speed_mbps, std::string(s->link_layer), std::string(host), line_no});
}

// RCCL's marks and the rank count may stand in any record. Called only for
// messages may_hold_rare_nccl_tokens() lets through (connection lines,
// most of a log, hold none of the letters, so the searches are spared).
void NcclLogParser::State::on_rare_tokens(std::string_view msg) {
  if (msg.starts_with("RCCL:")) rccl = true;
  if (contains(msg, "RCCL version") || contains(msg, "librccl")) {
    rccl = true;
    if (auto p = scan::find(msg, "RCCL version"); p != std::string_view::npos)
      if (auto v = version_token(msg.substr(p + 12))) on_version(*v);
  }
  for (std::string_view tag : {"nranks ", "nRanks "})
    if (auto p = scan::find(msg, tag); p != std::string_view::npos) {
      std::string_view rest = msg.substr(p + tag.size());
      if (auto n = take_int(rest)) max_nranks = std::max(max_nranks, *n);
    }
}

// Whether the record is a connection line (complete or not); a complete
// one sets `repeatable`.
bool NcclLogParser::State::on_connection(const NcclRecord& r, std::optional<Repeatable>* repeatable) {
  if (!starts_like_channel_line(r.msg)) return false;
  // Read ahead (feed_batch) when this is the record it was read from.
  const bool ready = prepared && prepared->msg.data() == r.msg.data() && prepared->msg.size() == r.msg.size();
  const NcclChannelLine& parsed = ready ? prepared->line : channel_line;
  if (!(ready ? prepared->complete : read_nccl_channel_line(r.msg, channel_line))) {
    if (looks_like_cut_channel_line(r.msg)) ++cut_lines;
    return true;
  }
  std::optional<NcclConnectionKey> key;
  std::uint64_t hash = 0;
  if (parsed.net) {
    key = nccl_connection_key(parsed, r.host, r.pid);
    hash = ready ? prepared->key_hash : key_hash(*key);
    if (!ready) conn_index.prefetch(hash);  // fetched while the ranks are added
  }
  add_rank(parsed.from_rank);
  add_rank(parsed.to_rank);
  if (!parsed.net) {
    ++intra;
    *repeatable = Repeatable::IntraNode;
    return true;
  }
  *repeatable = Repeatable::KnownConnection;
  if (conn_index.find(*key, hash) != NcclConnectionIndex::npos) return true;
  if (conns.size() >= kMaxConnections) {
    // The cap never lifts: this connection is dropped every time it shows.
    ++conns_dropped;
    *repeatable = Repeatable::DroppedConnection;
    return true;
  }
  // Reserved in two steps (untouched pages cost nothing): growing by
  // doubling would hold the old and the new array together at the peak;
  // the whole bound at once costs a short log (and a sanitizer build) for
  // memory it never uses.
  if (conns.capacity() < 1024) conns.reserve(1024);
  if (conns.size() == conns.capacity()) conns.reserve(kMaxConnections);
  conn_index.insert(*key, conns.size());
  conns.push_back(connection_of(parsed, r.host, line_no));
  return true;
}

void NcclLogParser::State::on_env(NcclEnvEcho e) {
  e.line = line_no;
  const std::string& v = e.value;
  if (e.name == "NCCL_NET_GDR_LEVEL" || e.name == "NCCL_IB_GDR_LEVEL") {
    switch (gdr_level_kind(v)) {
      case GdrLevelKind::Disables:
        ++explicit_disabled;
        add_reason("gdr_disabled_env", v, e.name + "=" + v + " turns GPUDirect RDMA off for every GPU/NIC pair");
        break;
      case GdrLevelKind::Widens:
        add_reason("gdr_forced", v,
                   e.name + "=" + v +
                       " allows GPUDirect RDMA beyond NCCL's default distance (PXB): "
                       "GDR over a CPU path may be slower than staging through host memory");
        break;
      case GdrLevelKind::Limits:
        add_reason("gdr_level_env", v, e.name + "=" + v + " sets the largest GPU-NIC distance for GPUDirect RDMA");
        break;
    }
  }
  if (e.name == "NCCL_NET_GDR_READ" && v == "0")
    add_reason("gdr_read_disabled", v, "NCCL_NET_GDR_READ=0: send-side GPUDirect RDMA (NIC reads GPU memory) is off");
  if (e.name == "NCCL_IB_DISABLE" && v == "1") ib_failed("ib_disable", "NCCL_IB_DISABLE=1 set by environment");
  if (e.name == "NCCL_NET" && icontains(v, "socket")) add_cause("net_env", "NCCL_NET=" + v + " set by environment");
  add_reason("env", e.name + "=" + v, e.name + "=" + v + " (echoed by NCCL)");
  if (env.size() < kMaxEnv && env_seen.insert({e.name, v}).second) env.push_back(std::move(e));
}

// "GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)" (<= 2.12),
// "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" (2.13+),
// "GPU Direct RDMA Disabled for GPU 42000 / HCA 0 (distance 6 > 4)".
void NcclLogParser::State::on_gdr_statement(std::string_view msg) {
  std::string_view net = net_of_message(msg);
  std::string_view s = msg.substr(msg.find("GPU Direct RDMA ") + 16);
  bool dmabuf = consume(s, "(DMABUF) ");
  bool enabled = consume(s, "Enabled") || consume(s, "enabled");
  bool disabled = !enabled && (consume(s, "Disabled") || consume(s, "disabled"));
  skip_spaces(s);
  consume(s, "for ");
  if (s.starts_with("HCA")) {
    if (enabled) {
      ++hca_enabled;
      hca_enabled_lines.add(line_no);
      hca_dmabuf = hca_dmabuf || dmabuf;
    }
    if (!disabled || net == "Socket") return;
    ++explicit_disabled;
    ++hca_disabled;
    bool old = contains(s, "(no module)");
    std::string_view label = net_label_of_message(msg);
    add_reason("gdr_disabled_no_module", old ? "old" : "new",
               old ? "NET/" + std::string(label) +
                         " found no GPU peer-memory module (nv_peer_mem / nvidia_peermem; "
                         "amdgpu peer memory for RCCL): GPUDirect RDMA is off for this NIC"
                   : "NET/" + std::string(label) +
                         " reports GPUDirect RDMA disabled for this NIC: no GPU peer-memory "
                         "module registered (nvidia_peermem; amdgpu for RCCL) and no usable DMA-BUF");
    return;
  }
  if (!s.starts_with("GPU")) return;
  if (enabled) {
    ++distance_enabled;
    return;
  }
  auto d = parse_distance(s);
  if (!disabled || !d) return;
  ++explicit_disabled;
  std::string text = "GPUDirect RDMA disabled by GPU-NIC distance: " + std::to_string(d->value);
  std::optional<NcclVersion> v = current ? current : assumed;
  if (v) {
    text += " (" + nccl_distance_name(*v, d->value) + ") " + d->op + " " + std::to_string(d->limit) + " (" +
            nccl_distance_name(*v, d->limit) + ") in NCCL " + v->str() + " path types";
  } else {
    text += " " + d->op + " " + std::to_string(d->limit) +
            " (path-type numbers depend on the NCCL version, which the log does not print)";
  }
  std::string key = std::to_string(d->value) + d->op + std::to_string(d->limit) + (v ? " " + v->str() : "");
  add_reason("gdr_distance", key, text);
}

// WARN lines (and the 2.30 IB completion hint): completion errors, ACS,
// failed verbs calls, GID, other NET errors (nccl_warning.h).
void NcclLogParser::State::on_warning(std::string_view msg) {
  for (const auto& w : nccl_warning_reasons(msg)) add_reason(w.code, w.key, w.message);
}

// Everything else that matters: the network chosen, device lists, why IB
// could not start, plugin GDR statements, the ring summary.
void NcclLogParser::State::on_network_info(std::string_view msg) {
  add_name(net_modules, net_of_message(msg));
  if (on_network_choice(msg)) return;
  on_device_list(msg);
  on_ib_failure(msg);
  if (net_of_message(msg) == "OFI" && (icontains(msg, "disabling GDR") || icontains(msg, "GDR disabled"))) {
    ++explicit_disabled;
    add_reason("gdr_disabled_plugin", "ofi", "the network plugin turned GPUDirect RDMA off: " + clip(msg));
  }
  on_ring_summary(msg);
}

// "Using network IB" (2.7+), "Using internal Network IB" (2.3).
bool NcclLogParser::State::on_network_choice(std::string_view msg) {
  if (consume(msg, "Using internal Network ")) {
    internal_network = clip(trim(msg), kNcclMaxName);
    return true;
  }
  if (!consume(msg, "Using network ")) return false;
  using_network = clip(trim(msg), kNcclMaxName);
  if (using_network == "Socket") {
    using_socket = true;
    using_socket_lines.add(line_no);
  } else {
    using_other = true;
  }
  return true;
}

// "NET/IB : Using [0]mlx5_0:1/IB ...", "NET/Socket : Using [0]eth0:...",
// and 2.3's one device a line "NET/IB: [0] mlx5_1:1/IB" (2.27+ reuses that
// start for per-device details with "provider=": skipped).
void NcclLogParser::State::on_device_list(std::string_view msg) {
  std::string_view net = net_of_message(msg);
  if (net.empty()) return;
  if (auto using_at = msg.find("Using ["); using_at != std::string_view::npos) {
    auto names = device_names(msg.substr(using_at + 6));
    for (auto n : names) add_name(net == "Socket" ? interfaces : devices, n);
    if (net != "Socket" && !names.empty()) ib_using = true;
  } else if (msg.starts_with("NET/IB: [") && !contains(msg, "provider=")) {
    for (auto n : device_names(msg.substr(7))) add_name(devices, n);
    ib_using = true;
  }
}

void NcclLogParser::State::on_ib_failure(std::string_view msg) {
  if (msg.starts_with("NET/IB : No device found")) ib_failed("no_device", "NET/IB : No device found.");
  if (msg.starts_with("NET/IB : No IP interface found")) ib_failed("no_ip", "NET/IB : No IP interface found.");
  if (msg.starts_with("Failed to open libibverbs"))
    ib_failed("libibverbs", "libibverbs could not be loaded (" + clip(msg) + ")");
  if (msg.starts_with("Failed to initialize NET plugin"))
    ib_failed("plugin", "the NET plugin failed to initialize (" + clip(msg) + ")");
}

// "Connected all rings, use ring PXN 0 GDR 1" (2.24+): recorded, not judged.
void NcclLogParser::State::on_ring_summary(std::string_view msg) {
  if (!consume(msg, "Connected all rings, use ring PXN ")) return;
  auto pxn = take_int(msg);
  if (!pxn || !consume(msg, " GDR ")) return;
  auto gdr = take_int(msg);
  if (!gdr) return;
  for (auto& s : summaries)
    if (s.pxn == *pxn && s.gdr == *gdr) {
      ++s.count;
      return;
    }
  if (summaries.size() < kMaxSummaries) summaries.push_back({*pxn, *gdr, line_no, 1});
}

// ----------------------------------------------------------------- finish

bool NcclLogParser::State::socket_used() const {
  for (const auto& c : conns)
    if (c.net == "Socket") return true;
  if (using_socket) return true;
  // <= 2.6 print no "Using network", and excerpts may miss it: IB failing
  // to start, with no other network in sight, is the evidence.
  return ib_unavailable.count > 0 && !ib_using && !using_other && internal_network.empty();
}

std::string NcclLogParser::State::transport() const {
  if (!conns.empty()) {
    std::map<std::string, std::size_t> count;
    for (const auto& c : conns) ++count[c.net];
    std::string best = conns.front().net;
    for (const auto& [net, n] : count)
      if (n > count[best]) best = net;
    return best;
  }
  if (!using_network.empty()) return using_network;
  if (!internal_network.empty()) return internal_network;
  if (socket_used()) return "Socket";
  if (ib_using) return "IB";
  return "";
}

void NcclLogParser::State::finish_socket(NcclLogReport& r) const {
  if (!socket_used()) return;
  std::vector<std::size_t> lines = merge_lines(using_socket_lines.lines, ib_unavailable.lines);
  std::size_t count = using_socket_lines.count + ib_unavailable.count;
  for (const auto& c : r.connections)
    if (c.net == "Socket") {
      lines = merge_lines(lines, {c.line});
      ++count;
    }
  std::string message = "NCCL used the Socket (TCP) transport, which never uses GPUDirect RDMA";
  std::string causes;
  for (const auto& [key, cause] : socket_causes) {
    causes += (causes.empty() ? "" : "; ") + cause.first;
    lines = merge_lines(lines, {cause.second});
  }
  if (!causes.empty()) message += "; cause: " + causes;
  r.reasons.push_back({"socket_fallback", message, lines, std::max(count, lines.size())});
}

void NcclLogParser::State::finish_verdict(NcclLogReport& r) const {
  std::size_t n = r.net_connections, g = r.gdr_connections;
  auto n_s = std::to_string(n), g_s = std::to_string(g);
  if (n > 0) {
    r.verdict = g == n ? GdrVerdict::Yes : g == 0 ? GdrVerdict::No : GdrVerdict::Partial;
    r.verdict_why = g_s + " of " + n_s + " network connections use GDRDMA";
    return;
  }
  if (socket_used()) {
    r.verdict = GdrVerdict::No;
    r.verdict_why = "no connection lines, but NCCL fell back to the Socket transport";
  } else if (explicit_disabled > 0 && distance_enabled > 0) {
    r.verdict = GdrVerdict::Partial;
    r.verdict_why = "no connection lines; GPU Direct RDMA is enabled for some GPU/NIC pairs and disabled for others";
  } else if (explicit_disabled > 0) {
    r.verdict = GdrVerdict::No;
    r.verdict_why = "no connection lines; the log states GPU Direct RDMA is disabled";
  } else {
    r.verdict = GdrVerdict::Unknown;
    r.verdict_why = r.intra_node_lines > 0 ? "only intra-node (P2P/SHM) connection lines"
                                           : "no network connection lines and no GPU Direct RDMA statement";
    if (distance_enabled > 0 || hca_enabled > 0)
      r.verdict_why += "; the GPU Direct RDMA Enabled lines state capability, not what the connections used";
  }
}

// NCCL said GPUDirect RDMA is enabled for the NICs, yet connections on them
// do not use it. The HCA line is the NIC side (the plugin can register GPU
// memory: peer memory or DMA-BUF); the per-connection choice is made per
// GPU-NIC pair by graph/paths.cc:ncclTopoCheckGdr@v2.30.7-1 — the GPU's own
// GDR support, NCCL_NET_GDR_READ for sends, and the path against
// NCCL_NET_GDR_LEVEL (PXB, or P2C with C2C) — and printed only at TRACE
// level. So the cause lies there, not in peer memory.
void NcclLogParser::State::finish_unused_gdr(NcclLogReport& r) const {
  if (hca_enabled == 0 || r.net_connections == 0 || r.gdr_connections == r.net_connections || socket_used()) return;
  // Another transport of the same log (a net plugin beside the built-in
  // IB) said Disabled for an HCA: that statement explains the connections.
  if (hca_disabled > 0) return;
  std::size_t without = r.net_connections - r.gdr_connections;
  r.reasons.push_back(
      {"gdr_enabled_unused",
       "NCCL reported GPU Direct RDMA" + std::string(hca_dmabuf ? " (DMA-BUF)" : "") + " enabled for " +
           std::to_string(hca_enabled_lines.count) + " HCA line(s), so the NIC can reach GPU memory; yet " +
           std::to_string(without) +
           " network connection(s) do not use it: NCCL kept them off per GPU-NIC pair — the PCIe path between them "
           "is beyond NCCL_NET_GDR_LEVEL (PXB by default, P2C on C2C systems), NCCL_NET_GDR_READ is off for "
           "sends, or the GPU does not support GPUDirect RDMA. NCCL prints that decision only with "
           "NCCL_DEBUG=TRACE (\"GPU Direct RDMA Disabled for GPU ... (distance d > l)\"); gdrcheck node on the host, "
           "or analyze with its topology, shows the path",
       hca_enabled_lines.lines, hca_enabled_lines.count});
}

// Receives with GDRDMA but sends without: GDR reads are off (nccl-spec §2.4).
void NcclLogParser::State::finish_send_side(NcclLogReport& r) const {
  std::size_t send = 0, send_gdr = 0, recv = 0, recv_gdr = 0;
  std::vector<std::size_t> send_lines;
  for (const auto& c : r.connections) {
    if (c.side == NetSide::Receive) {
      ++recv;
      recv_gdr += c.gdr ? 1 : 0;
      continue;
    }
    ++send;
    send_gdr += c.gdr ? 1 : 0;
    if (send_lines.size() < kEvidenceLines) send_lines.push_back(c.line);
  }
  if (recv == 0 || recv_gdr != recv || send == 0 || send_gdr != 0) return;
  r.reasons.push_back({"send_side_no_gdr",
                       "receives use GDRDMA but sends do not: GPUDirect RDMA reads are off (NCCL <= 2.18 enables "
                       "them only for GPUs with an NVLink peer, 2.19+ for Ampere and newer; or NCCL_NET_GDR_READ=0)",
                       send_lines, send});
}

// Which hosts (or, without host names, which ranks) print connections
// without GDRDMA when others have it.
void NcclLogParser::State::finish_partial(NcclLogReport& r) const {
  if (r.verdict != GdrVerdict::Partial || r.connections.empty()) return;
  std::vector<std::size_t> lines;
  std::set<std::string> hosts_without;
  std::set<int> ranks_without;
  for (const auto& c : r.connections) {
    if (c.gdr) continue;
    if (lines.size() < kEvidenceLines) lines.push_back(c.line);
    if (!c.host.empty()) hosts_without.insert(c.host);
    ranks_without.insert(c.side == NetSide::Send ? c.from_rank : c.to_rank);  // the rank that printed it
  }
  std::string who;
  if (!hosts_without.empty()) {
    for (const auto& h : hosts_without) who += (who.empty() ? "hosts " : ", ") + h;
  } else {
    for (int k : ranks_without) who += (who.empty() ? "ranks " : ", ") + std::to_string(k);
  }
  r.reasons.push_back(
      {"partial_nodes", "connections without GDRDMA on " + who, lines, r.net_connections - r.gdr_connections});
}

NcclLogReport NcclLogParser::State::report() const {
  NcclLogReport r;
  r.rank_map = places.finish();
  r.versions = versions;
  if (!versions.empty()) r.nccl_version = versions.front();
  r.rccl = rccl;
  r.ranks = max_nranks > 0 ? max_nranks : static_cast<int>(ranks_seen.size());
  r.hosts = hosts;
  for (const auto& g : glued_hosts) add_name(r.hosts, resolve_host(g));
  std::sort(r.hosts.begin(), r.hosts.end());
  r.net_devices = devices;
  r.net_modules = net_modules;
  r.socket_interfaces = interfaces;
  r.net_device_speeds = speeds;
  for (auto& d : r.net_device_speeds) d.host = resolve_host(d.host);
  r.connections = conns;
  for (auto& c : r.connections) c.host = resolve_host(c.host);
  r.net_connections = conns.size();
  r.gdr_connections =
      static_cast<std::size_t>(std::count_if(conns.begin(), conns.end(), [](const auto& c) { return c.gdr; }));
  r.intra_node_lines = intra;
  r.connections_dropped = conns_dropped;
  r.ring_summaries = summaries;
  r.net_transport = transport();
  r.reasons = reasons;
  r.env = env;
  r.lines = line_no;
  r.records = records;
  r.cut_lines = cut_lines;
  finish_socket(r);
  finish_verdict(r);
  finish_send_side(r);
  finish_partial(r);
  finish_unused_gdr(r);
  return r;
}

// ------------------------------------------------------------------ parser

NcclLogParser::NcclLogParser(std::optional<NcclVersion> assumed) : state_(std::make_unique<State>()) {
  state_->assumed = assumed;
}
NcclLogParser::~NcclLogParser() = default;
NcclLogParser::NcclLogParser(NcclLogParser&&) noexcept = default;
NcclLogParser& NcclLogParser::operator=(NcclLogParser&&) noexcept = default;

void NcclLogParser::feed(std::string_view line) {
  state_->feed(state_->lexer.lex(line));
}

void NcclLogParser::feed(const NcclLexedLine& line) {
  state_->feed(line);
}

void NcclLogParser::feed(std::span<const NcclLexedLine> lines) {
  state_->feed_batch({lines, {}});
}

void NcclLogParser::feed(const NcclLexedBatch& batch) {
  state_->feed_batch(batch);
}

NcclLogReport NcclLogParser::finish() {
  state_->lexer.forget();
  state_->repeat_by_memo_id = {};
  return state_->report();
}

NcclLogReport parse_nccl_log(std::string_view text, std::optional<NcclVersion> assumed) {
  NcclLogParser parser(assumed);
  while (!text.empty()) {
    auto nl = text.find('\n');
    parser.feed(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return parser.finish();
}

}  // namespace gdrcheck

#include "evidence/nccl_rank_map.h"

#include <algorithm>
#include <map>
#include <utility>

#include "evidence/log_scan.h"
#include "evidence/nccl_log_messages.h"
#include "evidence/nccl_record.h"

namespace gdrcheck {
namespace {

using scan::consume;
using scan::contains;
using scan::is_digit;
using scan::skip_spaces;
using scan::take_int;
using scan::trim;

constexpr std::size_t kMaxMappedRanks = 65536;
constexpr std::size_t kMaxLists = 1024;
constexpr std::size_t kMaxDevices = 256;

// The integer after `word ` in `msg` ("rank 3"), as a whole token.
std::optional<int> int_after(std::string_view msg, std::string_view word) {
  for (std::size_t at = 0; (at = msg.find(word, at)) != std::string_view::npos; at += word.size()) {
    bool starts = at == 0 || msg[at - 1] == ' ';
    std::string_view rest = msg.substr(at + word.size());
    if (!starts || !consume(rest, " ")) continue;
    skip_spaces(rest);
    if (auto v = take_int(rest); v && (rest.empty() || rest.front() == ' ')) return v;
  }
  return std::nullopt;
}

std::string_view token_after(std::string_view msg, std::string_view word) {
  auto at = msg.find(word);
  if (at == std::string_view::npos) return {};
  std::string_view rest = msg.substr(at + word.size());
  skip_spaces(rest);
  std::size_t n = 0;
  while (n < rest.size() && rest[n] != ' ') ++n;
  return rest.substr(0, n);
}

std::string host_of(std::string_view h) {
  return is_masked_host(h) ? "" : std::string(h.substr(0, kNcclMaxName));
}

// "[0000:19:00]" (domain:bus:device) or "[0x1b]" (the bus only).
std::optional<PciAddress> bracketed_bus(std::string_view s) {
  if (!consume(s, "[")) return std::nullopt;
  auto close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view in = s.substr(0, close);
  if (!consume(in, "0x")) return PciAddress::parse(std::string(in) + ".0");
  auto bus = in.size() <= 2 ? nccl_bus_id(std::string(in) + "000") : std::nullopt;
  return bus;
}

// "fused" device lists of 2.21-2.23: "[0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]=..."
std::vector<std::string> list_names(std::string_view list) {
  std::vector<std::string> out;
  auto bare = [](std::string_view n) {
    auto colon = n.find(':');
    return std::string(colon == std::string_view::npos ? n : n.substr(0, colon));
  };
  if (contains(list, "={")) {
    for (std::size_t at = 0; (at = list.find("={", at)) != std::string_view::npos && out.size() < kMaxDevices;) {
      auto end = list.find('}', at);
      std::string_view group =
          list.substr(at + 2, end == std::string_view::npos ? std::string_view::npos : end - at - 2);
      std::string fused;
      for (auto n : device_names(group)) fused += (fused.empty() ? "" : "+") + bare(n);
      out.push_back(fused);
      if (end == std::string_view::npos) break;
      at = end;
    }
    return out;
  }
  for (auto n : device_names(list))
    if (out.size() < kMaxDevices) out.push_back(bare(n));
  return out;
}

}  // namespace

std::optional<PciAddress> nccl_bus_id(std::string_view hex) {
  if (hex.empty() || hex.size() > 12) return std::nullopt;
  uint64_t v = 0;
  for (char c : hex) {
    char l = static_cast<char>(c | 0x20);
    int d = is_digit(c) ? c - '0' : l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  PciAddress a;
  a.function = static_cast<uint8_t>(v & 0xf);
  a.device = static_cast<uint8_t>((v >> 4) & 0xff);
  a.bus = static_cast<uint8_t>((v >> 12) & 0xff);
  a.domain = static_cast<uint32_t>(v >> 20);
  if (a.function > 7 || a.device > 31) return std::nullopt;
  return a;
}

struct NcclRankMapCollector::State {
  std::map<std::pair<std::string, int>, NcclRankPlace> ranks;
  std::vector<std::pair<std::string, int>> order;
  std::vector<NcclNetDeviceList> lists;
  std::vector<NcclGdrStatement> statements;
  std::size_t line = 0;  // the line being read

  void add_place(NcclRankPlace p) {
    auto key = std::make_pair(p.host, p.rank);
    auto it = ranks.find(key);
    if (it == ranks.end()) {
      if (ranks.size() >= kMaxMappedRanks) return;
      order.push_back(key);
      ranks.emplace(key, std::move(p));
    } else if (p.nranks > it->second.nranks) {
      it->second = std::move(p);
    }
  }

  void on_init(std::string_view host, std::string_view msg) {
    if (!contains(msg, " - Init ") || !contains(msg, "cudaDev ")) return;
    auto rank = int_after(msg, "rank"), nranks = int_after(msg, "nranks"), cuda = int_after(msg, "cudaDev");
    if (!rank || !nranks || !cuda || *rank < 0 || *cuda < 0) return;
    NcclRankPlace p{host_of(host), *rank, *nranks, *cuda, int_after(msg, "nvmlDev"), std::nullopt, line};
    if (std::string_view bus = token_after(msg, " busId "); !bus.empty()) p.bus = nccl_bus_id(bus);
    add_place(std::move(p));
  }

  void on_list(std::string_view host, std::string_view msg) {
    std::string_view net = net_of_message(msg);
    auto using_at = msg.find(" : Using [");
    if (net.empty() || net == "Socket" || using_at == std::string_view::npos) return;
    NcclNetDeviceList l{host_of(host), std::string(net), list_names(msg.substr(using_at + 9)), line};
    if (l.names.empty() || lists.size() >= kMaxLists) return;
    for (const auto& seen : lists)
      if (seen.host == l.host && seen.net == l.net && seen.names == l.names) return;
    lists.push_back(std::move(l));
  }

  void on_gdr_statement(std::string_view host, std::string_view msg) {
    auto at = msg.find("GPU Direct RDMA ");
    if (at == std::string_view::npos || statements.size() >= kMaxLists) return;
    std::string_view s = msg.substr(at + 16);
    NcclGdrStatement st;
    st.host = host_of(host);
    if (consume(s, "Enabled for GPU "))
      st.enabled = true;
    else if (!consume(s, "Disabled for GPU "))
      return;
    std::size_t n = 0;
    while (n < s.size() && s[n] != ' ' && s[n] != '[') ++n;
    std::string_view gpu = s.substr(0, n);
    s.remove_prefix(n);
    if (consume(s, "[")) {  // 2.4-2.6: cudaDev[nvmlDev]
      std::string_view d = gpu;
      st.cuda_dev = take_int(d);
    } else {
      st.bus = nccl_bus_id(gpu);
    }
    auto hca_at = s.find("/ HCA ");
    if (hca_at == std::string_view::npos) return;
    std::string_view hca = token_after(s.substr(hca_at), "HCA");
    // Decimal to 2.22, hex from 2.23 (the device index in the low 56 bits).
    // Digits alone read as decimal: right to 2.22, and from 2.23 below 10
    // devices, where both read alike; the log prints no release to tell.
    uint64_t v = 0;
    bool is_hex = std::any_of(hca.begin(), hca.end(), [](char c) { return !is_digit(c); });
    if (hca.empty() || hca.size() > 16) return;
    for (char c : hca) {
      char l = static_cast<char>(c | 0x20);
      int d = is_digit(c) ? c - '0' : l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
      if (d < 0) return;
      v = v * (is_hex ? 16 : 10) + static_cast<uint64_t>(d);
    }
    st.hca = static_cast<int>(v & 0xffffff);
    if (auto d = parse_distance(s)) st.distance = d->value, st.level = d->limit;
    if (st.enabled) st.read = int_after(s, "read");
    st.line = line;
    for (const auto& seen : statements)
      if (seen.host == st.host && seen.bus == st.bus && seen.cuda_dev == st.cuda_dev && seen.hca == st.hca &&
          seen.enabled == st.enabled)
        return;
    statements.push_back(std::move(st));
  }

  // nccl-tests: "#  Rank  0 Group  0 Pid 123 on node01 device  0 [0000:19:00] NVIDIA H100"
  void on_bare(std::string_view t) {
    t = trim(t);
    auto hash = t.find('#');
    if (hash == std::string_view::npos || !contains(t, " Rank ") || !contains(t, " device ")) return;
    t = t.substr(hash);
    auto rank = int_after(t, "Rank"), dev = int_after(t, "device");
    auto on = t.find(" on ");
    if (!rank || !dev || on == std::string_view::npos) return;
    std::string_view rest = t.substr(on + 4);
    skip_spaces(rest);
    std::size_t n = 0;
    while (n < rest.size() && is_host_char(rest[n])) ++n;
    NcclRankPlace p{host_of(rest.substr(0, n)), *rank, 0, *dev, std::nullopt, std::nullopt, line};
    std::string_view after = t.substr(t.find(" device ") + 8);
    skip_spaces(after);
    take_int(after);
    skip_spaces(after);
    p.bus = bracketed_bus(after);
    add_place(std::move(p));
  }
};

NcclRankMapCollector::NcclRankMapCollector() : state_(std::make_unique<State>()) {}
NcclRankMapCollector::~NcclRankMapCollector() = default;
NcclRankMapCollector::NcclRankMapCollector(NcclRankMapCollector&&) noexcept = default;
NcclRankMapCollector& NcclRankMapCollector::operator=(NcclRankMapCollector&&) noexcept = default;

void NcclRankMapCollector::on_record(std::string_view host, std::string_view msg, std::size_t line) {
  // Only three rare kinds of record matter; most records are none of them.
  bool init = contains(msg, " - Init "), list = msg.starts_with("NET/"), gdr = contains(msg, "GPU Direct RDMA ");
  if (!init && !list && !gdr) return;
  state_->line = line;
  if (init) state_->on_init(host, msg);
  if (gdr)
    state_->on_gdr_statement(host, msg);
  else if (list)
    state_->on_list(host, msg);
}

void NcclRankMapCollector::on_bare_line(std::string_view text, std::size_t line) {
  state_->line = line;
  state_->on_bare(text);
}

NcclRankMap NcclRankMapCollector::finish() const {
  NcclRankMap m;
  for (const auto& key : state_->order) m.ranks.push_back(state_->ranks.at(key));
  m.device_lists = state_->lists;
  m.gdr_statements = state_->statements;
  return m;
}

NcclRankMap read_nccl_rank_map(std::string_view text) {
  NcclRankMapCollector c;
  std::size_t line = 0;
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    ++line;
    NcclRecordScanner scanner(l);
    bool any = false;
    for (NcclRecord r; scanner.next(r);) {
      any = true;
      c.on_record(r.host, r.msg, line);
    }
    if (!any) c.on_bare_line(l, line);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return c.finish();
}

const NcclRankPlace* NcclRankMap::place(const std::string& host, int rank) const {
  const NcclRankPlace* any = nullptr;
  int seen = 0;
  for (const auto& p : ranks)
    if (p.rank == rank) {
      if (p.host == host) return &p;
      any = &p;
      ++seen;
    }
  // A masked or missing host name: the rank alone decides when it is unique.
  return host.empty() && seen == 1 ? any : nullptr;
}

const NcclNetDeviceList* NcclRankMap::devices_of(const std::string& host) const {
  for (const auto& l : device_lists)
    if (l.host == host && !host.empty()) return &l;
  bool one = !device_lists.empty();
  for (const auto& l : device_lists)
    one = one && l.net == device_lists.front().net && l.names == device_lists.front().names;
  return one ? &device_lists.front() : nullptr;
}

}  // namespace gdrcheck

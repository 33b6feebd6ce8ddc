#include "evidence/nccl_channel_line.h"

#include <cstring>

#include "evidence/log_scan.h"

namespace gdrcheck {
namespace {

using scan::is_alnum;
using scan::is_digit;
using scan::is_space;

constexpr std::size_t kMaxName = 64;  // a net / plugin name

// A forward reader over the message. Literals are compared in place and
// numbers read digit by digit: this runs on most lines of a large log.
struct Cursor {
  const char* p;
  const char* end;

  std::size_t left() const { return static_cast<std::size_t>(end - p); }
  template <std::size_t N>
  bool lit(const char (&text)[N]) {
    constexpr std::size_t n = N - 1;
    // memcmp of a constant length compiles to a few word compares.
    if (left() < n || std::memcmp(p, text, n) != 0) return false;
    p += n;
    return true;
  }
  void spaces() {
    while (p != end && is_space(*p)) ++p;
  }
  // 1..9 digits, so the value always fits an int (as scan::take_int).
  std::optional<int> number() {
    const char* q = p;
    while (q != end && q - p < 10 && is_digit(*q)) ++q;
    std::size_t n = static_cast<std::size_t>(q - p);
    if (n == 0 || n > 9) return std::nullopt;
    int v = 0;
    for (; p != q; ++p) v = v * 10 + (*p - '0');
    return v;
  }
  // "7[1b000]" or "7": the rank, and in `device` what the brackets hold.
  std::optional<int> rank(std::string_view& device) {
    auto r = number();
    if (!r) return std::nullopt;
    if (lit("[")) {
      std::size_t close = 0;
      while (close < left() && close <= 16 && is_alnum(p[close])) ++close;
      if (close > 16 || close >= left() || p[close] != ']') return std::nullopt;
      device = std::string_view(p, close);
      p += close + 1;
    }
    return r;
  }
};

// "/GDRDMA(PCI)/Shared/flush=None": flags after the device (and proxy).
// Unknown tokens are skipped so newer releases still parse.
void take_net_flags(Cursor& s, NcclChannelLine& c) {
  while (s.lit("/")) {
    const char* start = s.p;
    while (s.p != s.end && (is_alnum(*s.p) || *s.p == '=' || *s.p == '_')) ++s.p;
    std::string_view tok(start, static_cast<std::size_t>(s.p - start));
    if (tok == "GDRDMA") c.gdr = true;
    if (tok == "Shared") c.shared = true;
    if (s.lit("(PCI)")) c.pci = true;
  }
}

// "NET/<name>/<dev>[(<proxy>)][flags]". Plugin names may hold spaces
// ("AWS Libfabric") but never '/'.
bool take_net_spec(Cursor s, NcclChannelLine& c) {
  if (!s.lit("NET/")) return false;
  const void* slash = std::memchr(s.p, '/', s.left());
  if (!slash) return false;
  auto n = static_cast<std::size_t>(static_cast<const char*>(slash) - s.p);
  if (n == 0 || n > kMaxName) return false;
  c.net_name = std::string_view(s.p, n);
  s.p += n + 1;
  auto dev = s.number();
  if (!dev) return false;
  c.dev = *dev;
  if (s.lit("(")) {
    auto proxy = s.number();
    if (!proxy || !s.lit(")")) return false;
    c.proxy_rank = *proxy;
  }
  take_net_flags(s, c);
  return true;
}

bool is_intra_transport(std::string_view via) {
  return via.starts_with("P2P/") || via.starts_with("SHM/") || via.starts_with("direct shared memory") ||
         via.starts_with("NVLS");
}

}  // namespace

std::optional<NcclChannelLine> parse_nccl_channel_line(std::string_view msg) {
  NcclChannelLine c;
  Cursor s{msg.data(), msg.data() + msg.size()};
  if (!s.lit("Channel ") && !s.lit("Ring ")) return std::nullopt;
  auto channel = s.number();
  if (!channel) return std::nullopt;
  c.channel = *channel;
  if (s.lit("/")) {
    auto k = s.number();
    if (!k) return std::nullopt;
    c.conn_index = *k;
  }
  s.spaces();
  if (!s.lit(":")) return std::nullopt;
  s.spaces();
  auto from = s.rank(c.from_device);
  s.spaces();
  if (!from || !s.lit("->")) return std::nullopt;
  s.spaces();
  auto to = s.rank(c.to_device);
  if (!to) return std::nullopt;
  c.from_rank = *from;
  c.to_rank = *to;
  s.spaces();
  bool send = s.lit("[send]");
  c.receive = !send && s.lit("[receive]");
  s.spaces();
  if (!s.lit("via ")) return std::nullopt;
  s.spaces();
  if (send || c.receive) {
    c.net = true;
    if (!take_net_spec(s, c)) return std::nullopt;
    return c;
  }
  if (is_intra_transport(std::string_view(s.p, s.left()))) return c;
  return std::nullopt;
}

bool looks_like_cut_channel_line(std::string_view msg) {
  if (!starts_like_channel_line(msg)) return false;
  auto arrow = scan::find(msg, "->");
  if (arrow == std::string_view::npos) return false;
  return scan::contains(msg, " via ") || scan::find(msg, "->", arrow + 2) == std::string_view::npos;
}

}  // namespace gdrcheck

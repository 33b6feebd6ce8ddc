#include "evidence/nccl_channel_line.h"

#include <cstring>

#include "evidence/log_scan.h"

namespace gdrcheck {
namespace {

using scan::is_alnum;
using scan::is_digit;
using scan::is_space;

constexpr std::size_t kMaxNetName = 64;  // a net / plugin name

// A forward reader over the message. Literals are compared in place and
// numbers read digit by digit: this runs on most lines of a large log.
struct Cursor {
  const char* p;
  const char* end;

  std::size_t left() const { return static_cast<std::size_t>(end - p); }
  template <std::size_t N>
  bool lit(const char (&text)[N]) {
    constexpr std::size_t n = N - 1;
    if (left() < n || !scan::same_bytes(p, text, n)) return false;
    p += n;
    return true;
  }
  void spaces() {
    while (p != end && is_space(*p)) ++p;
  }
  // 1..9 digits, so the value always fits an int (as scan::take_int).
  std::optional<int> number() {
    const char* q = p;
    int v = 0;
    for (; q != end && is_digit(*q); ++q) {
      if (q - p == 9) return std::nullopt;  // a tenth digit
      v = v * 10 + (*q - '0');
    }
    if (q == p) return std::nullopt;
    p = q;
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
    if (scan::same_text(tok, "GDRDMA")) c.gdr = true;
    if (scan::same_text(tok, "Shared")) c.shared = true;
    if (s.lit("(PCI)")) c.pci = true;
  }
}

// "NET/<name>/<dev>[(<proxy>)][flags]". Plugin names may hold spaces
// ("AWS Libfabric") but never '/'.
bool take_net_spec(Cursor s, NcclChannelLine& c) {
  if (!s.lit("NET/")) return false;
  // A loop, not memchr: the name is a few bytes, shorter than the call.
  std::size_t n = 0;
  while (n < s.left() && n <= kMaxNetName && s.p[n] != '/') ++n;
  if (n == 0 || n > kMaxNetName || n == s.left()) return false;
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

// Field by field: assigning a fresh NcclChannelLine (as returning one by
// value) compiled to a block copy that cost a fifth of this function.
void reset(NcclChannelLine& c) {
  c.channel = c.conn_index = c.from_rank = c.to_rank = c.dev = 0;
  c.from_device = c.to_device = c.net_name = {};
  c.receive = c.net = c.gdr = c.pci = c.shared = false;
  c.proxy_rank.reset();
}

}  // namespace

bool read_nccl_channel_line(std::string_view msg, NcclChannelLine& c) {
  reset(c);
  Cursor s{msg.data(), msg.data() + msg.size()};
  if (!s.lit("Channel ") && !s.lit("Ring ")) return false;
  auto channel = s.number();
  if (!channel) return false;
  c.channel = *channel;
  if (s.lit("/")) {
    auto k = s.number();
    if (!k) return false;
    c.conn_index = *k;
  }
  s.spaces();
  if (!s.lit(":")) return false;
  s.spaces();
  auto from = s.rank(c.from_device);
  s.spaces();
  if (!from || !s.lit("->")) return false;
  s.spaces();
  auto to = s.rank(c.to_device);
  if (!to) return false;
  c.from_rank = *from;
  c.to_rank = *to;
  s.spaces();
  bool send = s.lit("[send]");
  c.receive = !send && s.lit("[receive]");
  s.spaces();
  if (!s.lit("via ")) return false;
  s.spaces();
  if (send || c.receive) {
    c.net = true;
    return take_net_spec(s, c);
  }
  return is_intra_transport(std::string_view(s.p, s.left()));
}

bool looks_like_cut_channel_line(std::string_view msg) {
  if (!starts_like_channel_line(msg)) return false;
  auto arrow = scan::find(msg, "->");
  if (arrow == std::string_view::npos) return false;
  return scan::contains(msg, " via ") || scan::find(msg, "->", arrow + 2) == std::string_view::npos;
}

}  // namespace gdrcheck

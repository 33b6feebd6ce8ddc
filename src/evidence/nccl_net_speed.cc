#include "evidence/nccl_net_speed.h"

#include <cctype>
#include <charconv>

#include "evidence/log_scan.h"

namespace gdrcheck {
namespace {

using scan::consume;
using scan::is_space;
using scan::take_int;

constexpr std::size_t kMaxName = 64;

// Characters up to (not including) the first of `stops` or a space.
std::string_view take_until(std::string_view& s, std::string_view stops) {
  std::size_t n = 0;
  while (n < s.size() && !is_space(s[n]) && stops.find(s[n]) == std::string_view::npos) ++n;
  std::string_view out = s.substr(0, n);
  s.remove_prefix(n);
  return out;
}

// "400000" after "speed=": a positive integer (Mb/s).
std::optional<double> speed_after(std::string_view s, std::string_view tag) {
  auto p = scan::find(s, tag);
  if (p == std::string_view::npos) return std::nullopt;
  s.remove_prefix(p + tag.size());
  auto v = take_int(s);
  if (!v || *v <= 0) return std::nullopt;
  return *v;
}

bool good_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxName;
}

// "NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 ..."
std::optional<NcclNetSpeedLine> per_device_line(std::string_view msg) {
  if (!consume(msg, "NET/")) return std::nullopt;
  auto open = msg.find(": [");
  if (open == std::string_view::npos || !scan::contains(msg, " provider=")) return std::nullopt;
  std::string_view s = msg.substr(open + 3);
  if (!take_int(s) || !consume(s, "]")) return std::nullopt;
  scan::skip_spaces(s);
  NcclNetSpeedLine line;
  line.name = take_until(s, ":");
  if (!good_name(line.name) || !consume(s, ":")) return std::nullopt;
  take_until(s, ":");  // the uverbs device
  if (!consume(s, ":")) return std::nullopt;
  line.port = take_int(s);
  if (!line.port || !consume(s, "/")) return std::nullopt;
  line.link_layer = take_until(s, "");
  auto speed = speed_after(s, " speed=");
  if (!speed) return std::nullopt;
  line.speed_mbps = *speed;
  return line;
}

// "NET/IB : Made virtual device [0] name=mlx5_0 speed=400000 ndevs=1"
std::optional<NcclNetSpeedLine> virtual_device_line(std::string_view msg) {
  auto at = scan::find(msg, "Made virtual device [");
  if (!msg.starts_with("NET/") || at == std::string_view::npos) return std::nullopt;
  std::string_view s = msg.substr(at);
  auto name_at = scan::find(s, " name=");
  if (name_at == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(name_at + 6);
  NcclNetSpeedLine line;
  line.name = take_until(rest, "");
  auto speed = speed_after(rest, " speed=");
  if (!good_name(line.name) || !speed) return std::nullopt;
  line.speed_mbps = *speed;
  return line;
}

// "+ NET[1.2] - NET/0 (0/0/1.250000)", "+ NET[50.0] - NET/0-1 (3fa1.../1/50.000000)"
std::optional<NcclNetSpeedLine> topology_line(std::string_view msg) {
  auto at = scan::find(msg, "] - NET/");
  if (at == std::string_view::npos || !scan::contains(msg.substr(0, at), "NET[")) return std::nullopt;
  std::string_view s = msg.substr(at + 4);
  NcclNetSpeedLine line;
  std::string_view id = s.substr(4);
  std::size_t n = 0;
  while (n < id.size() && (std::isxdigit(static_cast<unsigned char>(id[n])) || id[n] == '-')) ++n;
  if (n == 0 || n > kMaxName) return std::nullopt;
  line.name = s.substr(0, 4 + n);
  s.remove_prefix(4 + n);
  if (!consume(s, " (")) return std::nullopt;
  take_until(s, "/");  // the NIC's asic (GUID)
  if (!consume(s, "/")) return std::nullopt;
  line.port = take_int(s);
  if (!line.port || !consume(s, "/")) return std::nullopt;
  double bw = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), bw);
  if (ec != std::errc() || end == s.data() + s.size() || *end != ')' || !(bw > 0)) return std::nullopt;
  line.speed_mbps = bw * 8000.0;
  return line;
}

}  // namespace

std::optional<NcclNetSpeedLine> parse_nccl_net_speed(std::string_view msg) {
  if (auto l = per_device_line(msg)) return l;
  if (auto l = virtual_device_line(msg)) return l;
  return topology_line(msg);
}

}  // namespace gdrcheck

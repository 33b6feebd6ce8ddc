#include "evidence/nccl_log_messages.h"

#include "evidence/log_scan.h"

namespace gdrcheck {

using scan::all_digits;
using scan::consume;
using scan::is_alnum;
using scan::is_digit;
using scan::is_space;
using scan::skip_spaces;
using scan::take_int;
using scan::trim;

std::string clip(std::string_view s, std::size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n)) + "...";
}

// "2.21.5+cuda12.4" / "2.21.5-HEAD:9a0e6a1" after "NCCL version" or
// "RCCL version :". The numeric core must be a version.
std::optional<std::string> version_token(std::string_view s) {
  skip_spaces(s);
  if (consume(s, ":")) skip_spaces(s);
  std::size_t n = 0;
  while (n < s.size() && !is_space(s[n]) && n < kNcclMaxName) ++n;
  std::string_view tok = s.substr(0, n);
  while (!tok.empty() && (tok.back() == ',' || tok.back() == '.' || tok.back() == ';')) tok.remove_suffix(1);
  std::size_t core = 0;
  while (core < tok.size() && (is_digit(tok[core]) || tok[core] == '.')) ++core;
  std::string_view numbers = tok.substr(0, core);
  while (!numbers.empty() && numbers.back() == '.') numbers.remove_suffix(1);
  if (numbers.empty() || !NcclVersion::parse(numbers)) return std::nullopt;
  return std::string(tok);
}

std::optional<NcclVersion> version_core(std::string_view printed) {
  std::size_t core = 0;
  while (core < printed.size() && (is_digit(printed[core]) || printed[core] == '.')) ++core;
  std::string_view numbers = printed.substr(0, core);
  while (!numbers.empty() && numbers.back() == '.') numbers.remove_suffix(1);
  return NcclVersion::parse(numbers);
}

// "NCCL_IB_HCA set to mlx5", "NCCL_IB_DISABLE set by environment to 0.".
std::optional<NcclEnvEcho> parse_env_echo(std::string_view msg) {
  if (!msg.starts_with("NCCL_") && !msg.starts_with("RCCL_")) return std::nullopt;
  std::size_t n = 0;
  while (n < msg.size() && (is_alnum(msg[n]) || msg[n] == '_')) ++n;
  std::string_view name = msg.substr(0, n), rest = msg.substr(n);
  if (!consume(rest, " set by environment to ") && !consume(rest, " set to ")) return std::nullopt;
  std::string_view value = trim(rest);
  // NCCL_PARAM prints integers as "%ld." — drop that period only.
  if (value.size() > 1 && value.back() == '.') {
    std::string_view number = value.substr(0, value.size() - 1);
    if (number.starts_with("-")) number.remove_prefix(1);
    if (all_digits(number)) value.remove_suffix(1);
  }
  return NcclEnvEcho{std::string(name), clip(value, 256), 0};
}

GdrLevelKind gdr_level_kind(std::string_view v) {
  if (all_digits(v)) {
    if (v.size() > 3) return GdrLevelKind::Widens;
    int n = std::stoi(std::string(v));
    return n == 0 ? GdrLevelKind::Disables : n >= 3 ? GdrLevelKind::Widens : GdrLevelKind::Limits;
  }
  if (v == "LOC") return GdrLevelKind::Disables;
  if (v == "PXN" || v == "PHB" || v == "SYS") return GdrLevelKind::Widens;
  return GdrLevelKind::Limits;
}

// "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ..." and the 2.21-2.23 merged
// form "[0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB}": the names after "[n]".
std::vector<std::string_view> device_names(std::string_view list) {
  if (auto oob = list.find("OOB "); oob != std::string_view::npos) list = list.substr(0, oob);
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] != '[') continue;
    std::string_view s = list.substr(i + 1);
    if (!take_int(s) || !consume(s, "]")) continue;
    while (!s.empty() && (s.front() == '=' || s.front() == '{' || is_space(s.front()))) s.remove_prefix(1);
    std::size_t n = 0;
    while (n < s.size() && !is_space(s[n]) && s[n] != ',' && s[n] != '}' && s[n] != ';' && s[n] != '[') ++n;
    if (n > 0 && n <= kNcclMaxName) out.push_back(s.substr(0, n));
  }
  return out;
}

// "NET/IB : ..." → "IB"; "" when the message does not start with NET/.
std::string_view net_of_message(std::string_view msg) {
  if (!consume(msg, "NET/")) return {};
  std::size_t n = 0;
  while (n < msg.size() && msg[n] != ' ' && msg[n] != ':' && n < kNcclMaxName) ++n;
  return msg.substr(0, n);
}

std::string_view net_label_of_message(std::string_view msg) {
  std::string_view net = net_of_message(msg);
  if (net.empty()) return net;
  std::string_view rest = msg.substr(4);
  std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos || colon > kNcclMaxName) return net;
  std::string_view name = trim(rest.substr(0, colon));
  if (name.find_first_of("/()") != std::string_view::npos) return net;
  return name.empty() ? net : name;
}

// "(distance 6 > 4)", "(distance 3 >= 2)", "(distance 8 > 5, read ...)".

std::optional<Distance> parse_distance(std::string_view s) {
  auto p = s.find("distance ");
  if (p == std::string_view::npos) return std::nullopt;
  s.remove_prefix(p + 9);
  Distance d;
  auto value = take_int(s);
  skip_spaces(s);
  for (std::string_view op : {">=", "<=", ">", "<"})
    if (consume(s, op)) {
      d.op = op;
      break;
    }
  skip_spaces(s);
  auto limit = take_int(s);
  if (!value || !limit || d.op.empty()) return std::nullopt;
  d.value = *value;
  d.limit = *limit;
  return d;
}

}  // namespace gdrcheck

#include "evidence/nccl_stripped_line.h"

#include "evidence/log_scan.h"
#include "evidence/nccl_channel_line.h"
#include "evidence/nccl_completion.h"

namespace gdrcheck {
namespace {

using scan::consume;
using scan::contains;
using scan::is_digit;

// Markdown left around a quoted message: indentation, "> " quote marks and
// the backquotes of inline code.
std::string_view strip_debris(std::string_view s) {
  while (!s.empty() && (scan::is_space(s.front()) || s.front() == '`' || s.front() == '>')) s.remove_prefix(1);
  while (!s.empty() && (scan::is_space(s.back()) || s.back() == '`')) s.remove_suffix(1);
  return s;
}

// "NET/IB : ", "NET/IBP:", "NET/NCCL RDMA Plugin v10 : ": a net name (no
// '/' or ':', at most a plugin name long) closed by a colon. A name of
// several words is NCCL's only with " :" after it; prose puts the colon
// against its last word ("NET/IB is what NCCL uses:").
bool net_message(std::string_view s) {
  if (!consume(s, "NET/")) return false;
  std::size_t n = 0;
  while (n < s.size() && n < 64 && s[n] != ':' && s[n] != '/' && s[n] != '(') ++n;
  if (n == 0 || n == s.size() || s[n] != ':') return false;
  std::string_view name = s.substr(0, n);
  return name.find(' ') == std::string_view::npos || name.back() == ' ';
}

// "Channel 00/0 :", "Ring 00 :": the word and a digit.
bool connection_message(std::string_view s) {
  if (!consume(s, "Channel ") && !consume(s, "Ring ")) return false;
  return !s.empty() && is_digit(s.front());
}

// "NCCL_IB_HCA set to mlx5", "NCCL_IB_DISABLE set by environment to 0."
bool env_echo(std::string_view s) {
  if (!consume(s, "NCCL_")) return false;
  std::size_t n = 0;
  while (n < s.size() && (scan::is_alnum(s[n]) || s[n] == '_')) ++n;
  return s.substr(n).starts_with(" set ");
}

// "Using network IB", "Using network AWS Libfabric": a net name of at
// most three words, where prose goes on ("Using network bonding, we ...").
bool network_choice(std::string_view s) {
  if (!consume(s, "Using network ")) return false;
  int words = 1;
  for (char c : s) {
    if (c == ' ') ++words;
    if (words > 3 || !(scan::is_alnum(c) || c == ' ' || c == '_' || c == '-')) return false;
  }
  return !s.empty() && s.size() <= 64;
}

// "misc/ibvwrap.cc:288 NCCL WARN ...": a WARN whose host and device were
// cut still names the source line that printed it.
bool located_warn(std::string_view line) {
  auto at = scan::find(line, "NCCL WARN ");
  if (at == std::string_view::npos) return false;
  std::size_t end = at;
  while (end > 0 && scan::is_space(line[end - 1])) --end;
  std::size_t digits = end;
  while (digits > 0 && is_digit(line[digits - 1])) --digits;
  if (digits == end || digits == 0 || line[digits - 1] != ':') return false;
  std::string_view file = line.substr(0, digits - 1);
  return file.ends_with(".cc") || file.ends_with(".c") || file.ends_with(".h") || file.ends_with(".cpp");
}

}  // namespace

std::optional<std::string_view> stripped_nccl_message(std::string_view line) {
  // Most lines of a log that fail the record scanner are the job's own
  // output: one look at the first character rules nearly all of them out.
  std::string_view s = strip_debris(line);
  if (s.empty()) return std::nullopt;
  char c = s.front();
  if (c != 'N' && c != 'C' && c != 'R' && c != 'U' && c != 'G') return std::nullopt;
  if (net_message(s) || connection_message(s) || env_echo(s) || network_choice(s) || s.starts_with("GPU Direct RDMA "))
    return s;
  return std::nullopt;
}

bool looks_like_stripped_nccl_line(std::string_view line) {
  if (located_warn(line)) return true;
  if (nccl_completion_status(line)) return true;
  // "NCCL INFO NET/IB : Using ...": the level kept, the host and device cut.
  std::string_view s = strip_debris(line);
  if (consume(s, "NCCL INFO ") || consume(s, "NCCL WARN ")) line = s;
  auto msg = stripped_nccl_message(line);
  if (!msg) return false;
  if (connection_message(*msg)) {
    auto c = parse_nccl_channel_line(*msg);
    return c && contains(*msg, " via ");
  }
  return net_message(*msg) && (contains(*msg, "Using [") || contains(*msg, "GPU Direct RDMA "));
}

}  // namespace gdrcheck

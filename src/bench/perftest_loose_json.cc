#include "bench/perftest_loose_json.h"

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "evidence/log_scan.h"

namespace gdrcheck {
namespace {

using scan::trim;

constexpr std::size_t kMaxLooseJsonDepth = 4;  // perftest nests two levels
constexpr std::size_t kMaxMembers = 4096;      // perftest writes a few dozen
constexpr std::size_t kMaxKey = 64;

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ' ';
}

// `TX_depth `, `"Test with events"`, `percentile_99.9`.
std::optional<std::string> key_of(std::string_view k) {
  k = trim(k);
  if (k.size() >= 2 && k.front() == '"' && k.back() == '"') k = k.substr(1, k.size() - 2);
  if (k.empty() || k.size() > kMaxKey) return std::nullopt;
  for (char c : k)
    if (!key_char(c)) return std::nullopt;
  return std::string(k);
}

std::optional<nlohmann::json> number_of(std::string_view v) {
  long long whole = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), whole);
  if (ec == std::errc() && end == v.data() + v.size()) return nlohmann::json(whole);
  double real = 0;
  auto [end2, ec2] = std::from_chars(v.data(), v.data() + v.size(), real);
  if (ec2 == std::errc() && end2 == v.data() + v.size() && std::isfinite(real)) return nlohmann::json(real);
  return std::nullopt;
}

// `128`, `2.42`, `"rxe0"`, `RDMA_Write_Latency_Test`, `OFF`.
std::optional<nlohmann::json> value_of(std::string_view v) {
  v = trim(v);
  if (v.empty()) return std::nullopt;
  if (v.front() == '"') {
    if (v.size() < 2 || v.back() != '"') return std::nullopt;
    std::string_view inner = v.substr(1, v.size() - 2);
    if (inner.find_first_of("\"\\") != std::string_view::npos) return std::nullopt;
    return nlohmann::json(std::string(inner));
  }
  if (auto n = number_of(v)) return n;
  for (char c : v)
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',' ||
        static_cast<unsigned char>(c) < 0x20)
      return std::nullopt;
  return nlohmann::json(std::string(v));
}

}  // namespace

std::optional<nlohmann::json> read_perftest_loose_json(std::string_view text) {
  nlohmann::json root;
  std::vector<nlohmann::json*> open;  // the objects not yet closed, innermost last
  bool closed = false, unquoted = false;
  std::size_t members = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty()) continue;
    if (closed) return std::nullopt;  // text after the last brace
    if (line.back() == ',') line = trim(line.substr(0, line.size() - 1));
    if (line == "{") {
      if (!open.empty()) return std::nullopt;
      root = nlohmann::json::object();
      open.push_back(&root);
      continue;
    }
    if (open.empty()) return std::nullopt;
    if (line == "}") {
      open.pop_back();
      closed = open.empty();
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || ++members > kMaxMembers) return std::nullopt;
    auto key = key_of(line.substr(0, colon));
    if (!key || open.back()->contains(*key)) return std::nullopt;  // a key twice: refused, as in JSON reports
    unquoted = unquoted || line.front() != '"';
    std::string_view rest = trim(line.substr(colon + 1));
    if (rest == "{") {
      if (open.size() >= kMaxLooseJsonDepth) return std::nullopt;
      nlohmann::json& child = (*open.back())[*key] = nlohmann::json::object();
      open.push_back(&child);
      continue;
    }
    auto value = value_of(rest);
    if (!value) return std::nullopt;
    (*open.back())[*key] = std::move(*value);
  }
  // Standard JSON is for the JSON parser: this reads the old format only.
  if (!closed || !unquoted) return std::nullopt;
  return root;
}

}  // namespace gdrcheck

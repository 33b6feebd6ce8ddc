#include "nccl/nccl_version.h"

#include <cctype>

namespace gdrcheck {
namespace {

// A run of decimal digits at the front of `s`, consumed. Six digits is far
// more than any NCCL field needs and keeps the value inside an int.
std::optional<int> take_number(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 6) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < n; ++i) value = value * 10 + (s[i] - '0');
  s.remove_prefix(n);
  return value;
}

bool all_of_set(std::string_view s, bool (*ok)(char)) {
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}

bool release_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.';
}
bool build_char(char c) {
  return std::isgraph(static_cast<unsigned char>(c)) != 0;
}

// What may follow the numbers: a package release ("-1", as in the git tag
// v2.21.5-1 and the .deb/.rpm versions) and/or a build tag ("+cuda12.2",
// as NCCL prints it in "NCCL version 2.18.3+cuda12.2").
bool valid_suffix(std::string_view s) {
  if (s.empty()) return true;
  std::string_view build;
  if (auto plus = s.find('+'); plus != std::string_view::npos) {
    build = s.substr(plus + 1);
    s = s.substr(0, plus);
    if (build.empty() || !all_of_set(build, build_char)) return false;
  }
  if (s.empty()) return true;
  return s.size() > 1 && s[0] == '-' && all_of_set(s.substr(1), release_char);
}

}  // namespace

std::optional<NcclVersion> NcclVersion::parse(std::string_view text) {
  // Tags are spelled "v2.21.5-1"; accept the 'v' so a tag can be pasted.
  if (!text.empty() && text[0] == 'v') text.remove_prefix(1);
  NcclVersion v;
  auto major = take_number(text);
  if (!major || text.empty() || text[0] != '.') return std::nullopt;
  text.remove_prefix(1);
  auto minor = take_number(text);
  if (!minor) return std::nullopt;
  int patch = 0;  // "2.30" names the release series; patch 0
  if (!text.empty() && text[0] == '.') {
    text.remove_prefix(1);
    auto p = take_number(text);
    if (!p) return std::nullopt;
    patch = *p;
  }
  if (!valid_suffix(text)) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  v.patch = patch;
  return v;
}

std::string NcclVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace gdrcheck

#include "host/driver_info.h"

#include <cctype>
#include <charconv>

namespace gdrcheck {
namespace {

bool is_version_token(std::string_view t) {
  int dots = 0;
  for (char c : t) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return dots >= 1 && std::isdigit(static_cast<unsigned char>(t.front())) && t.back() != '.';
}

int leading_int(std::string_view t) {
  int v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

}  // namespace

std::optional<NvidiaDriver> parse_nvidia_version(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (line.find("NVRM version:") == std::string_view::npos) return std::nullopt;
  NvidiaDriver d;
  d.open_module = line.find("Open Kernel Module") != std::string_view::npos;
  std::size_t i = line.find(':') + 1;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    std::string_view token = line.substr(i, j - i);
    if (!token.empty() && is_version_token(token)) {
      d.version = std::string(token);
      d.major = leading_int(token);
      return d;
    }
    i = j;
  }
  return std::nullopt;
}

std::optional<KernelRelease> parse_kernel_release(std::string_view text) {
  std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  KernelRelease k;
  auto [p1, e1] = std::from_chars(text.data(), text.data() + dot, k.major);
  auto [p2, e2] = std::from_chars(text.data() + dot + 1, text.data() + text.size(), k.minor);
  if (e1 != std::errc() || e2 != std::errc() || p2 == text.data() + dot + 1) return std::nullopt;
  return k;
}

}  // namespace gdrcheck

#include "host/mounts.h"

#include <optional>
#include <sstream>

namespace gdrcheck {
namespace {

// A node has hundreds of mounts (containers add more); a table past this
// is not a real one.
constexpr std::size_t kMaxMounts = 65536;

// "\040" → ' ': the kernel's mangle() escapes these four as three octal digits.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
        s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// "/a/b" is below "/a" and "/", not below "/ab".
bool holds(const std::string& mountpoint, const std::string& path) {
  if (mountpoint == "/") return !path.empty() && path[0] == '/';
  if (path.compare(0, mountpoint.size(), mountpoint) != 0) return false;
  return path.size() == mountpoint.size() || path[mountpoint.size()] == '/';
}

// mount(8)'s listing, which users paste instead: "DEV on DIR type FS (OPTS)".
// DIR is printed unescaped, so it is what lies between " on " and the last
// " type ".
std::optional<Mount> mount_listing_line(const std::string& line) {
  auto on = line.find(" on /");
  auto type = line.rfind(" type ");
  if (on == std::string::npos || type == std::string::npos || type <= on || line.back() != ')') return std::nullopt;
  auto open = line.find(" (", type);
  if (open == std::string::npos || on == 0) return std::nullopt;
  Mount m;
  m.device = line.substr(0, on);
  m.mountpoint = line.substr(on + 4, type - on - 4);
  m.fstype = line.substr(type + 6, open - type - 6);
  m.options = split(line.substr(open + 2, line.size() - open - 3), ',');
  if (m.device.find(' ') != std::string::npos || m.fstype.empty() || m.fstype.find(' ') != std::string::npos)
    return std::nullopt;
  return m;
}

}  // namespace

bool Mount::has_option(const std::string& name) const {
  for (const auto& o : options)
    if (o == name) return true;
  return false;
}

std::optional<std::string> Mount::option(const std::string& key) const {
  for (const auto& o : options)
    if (o.size() > key.size() && o.compare(0, key.size(), key) == 0 && o[key.size()] == '=')
      return o.substr(key.size() + 1);
  return std::nullopt;
}

MountTable parse_mounts(const std::string& text) {
  MountTable t;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x && f.size() < 7;) f.push_back(x);
    if (f.empty()) continue;
    if (auto listed = mount_listing_line(line); listed && t.mounts.size() < kMaxMounts) {
      listed->line = number;
      t.mounts.push_back(std::move(*listed));
      continue;
    }
    if (f.size() != 6 || f[1].empty() || f[1][0] != '/' || t.mounts.size() >= kMaxMounts) {
      ++t.skipped;
      continue;
    }
    Mount m;
    m.device = unescape(f[0]);
    m.mountpoint = unescape(f[1]);
    m.fstype = unescape(f[2]);
    m.options = split(unescape(f[3]), ',');
    m.line = number;
    t.mounts.push_back(std::move(m));
  }
  return t;
}

const Mount* mount_holding(const MountTable& table, const std::string& path) {
  const Mount* best = nullptr;
  for (const auto& m : table.mounts)
    if (holds(m.mountpoint, path) && (!best || m.mountpoint.size() >= best->mountpoint.size())) best = &m;
  return best;
}

}  // namespace gdrcheck

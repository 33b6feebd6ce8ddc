#include "host/lnet_state.h"

#include <sstream>

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxNis = 1024;

bool ipv4_like(const std::string& s) {
  int dots = 0;
  for (char c : s) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return false;
  }
  return dots == 3 && s.size() <= 15;
}

}  // namespace

std::vector<LnetNid> parse_lnet_nis(const std::string& text) {
  std::vector<LnetNid> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && out.size() < kMaxNis;) {
    std::istringstream fields(line);
    std::string nid;
    if (!(fields >> nid)) continue;
    auto at = nid.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == nid.size()) continue;
    LnetNid n{nid.substr(0, at), nid.substr(at + 1)};
    if (n.net != "lo" && !ipv4_like(n.address)) continue;
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<std::string> o2ib_interfaces_of(const std::string& networks) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < networks.size() && out.size() < 64) {
    auto open = networks.find('(', i);
    if (open == std::string::npos) break;
    auto close = networks.find(')', open);
    if (close == std::string::npos) break;
    std::string net = networks.substr(i, open - i);
    auto first = net.find_first_not_of(" ,\t");
    net = first == std::string::npos ? "" : net.substr(first);
    if (net.rfind("o2ib", 0) == 0) {
      std::istringstream list(networks.substr(open + 1, close - open - 1));
      for (std::string name; std::getline(list, name, ',');) {
        auto a = name.find_first_not_of(' '), b = name.find_last_not_of(' ');
        if (a != std::string::npos) out.push_back(name.substr(a, b - a + 1));
      }
    }
    i = close + 1;
  }
  return out;
}

LnetState read_lnet_state(const Root& root) {
  LnetState s;
  std::string looked;
  for (const char* path : {"/sys/kernel/debug/lnet/nis", "/proc/sys/lnet/nis"}) {
    FileRead r = root.read(path, 1 << 20);
    if (r.ok()) {
      s.nids = parse_lnet_nis(r.content);
      s.nids_file = path;
      break;
    }
    looked += (looked.empty() ? "" : "; ") + r.reason();
  }
  if (!s.nids) s.nids_file = looked;
  s.networks = read_fact(root, "/sys/module/lnet/parameters/networks");
  if (s.networks.value)
    for (const auto& name : o2ib_interfaces_of(*s.networks.value))
      if (auto a = locate_interface(root, name)) s.o2ib_interfaces.push_back(*a);
  return s;
}

}  // namespace gdrcheck

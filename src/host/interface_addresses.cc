#include "host/interface_addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <sstream>

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxAddresses = 4096;

bool plain_interface_name(const std::string& s) {
  if (s.empty() || s.size() > 15) return false;  // IFNAMSIZ
  for (char c : s)
    if (c == '/' || c <= ' ' || c > '~') return false;
  return s != "." && s != "..";
}

bool ipv4_text(const std::string& s) {
  in_addr a{};
  return ::inet_pton(AF_INET, s.c_str(), &a) == 1;
}

// What sysfs says of the interface: its PCI function and port.
InterfaceAddress locate(const Root& root, std::string name, std::string ipv4) {
  InterfaceAddress a{std::move(name), std::move(ipv4), std::nullopt, 1};
  const std::string base = "/sys/class/net/" + a.interface;
  if (auto dev = root.resolve(base + "/device")) a.pci = PciAddress::parse(dev->substr(dev->find_last_of('/') + 1));
  if (FileRead p = root.read(base + "/dev_port", 64); p.ok()) {
    std::string v = p.trimmed();
    if (!v.empty() && v.size() < 4 && v.find_first_not_of("0123456789") == std::string::npos) a.port = std::stoi(v) + 1;
  }
  return a;
}

std::vector<std::pair<std::string, std::string>> live_pairs() {
  std::vector<std::pair<std::string, std::string>> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i && out.size() < kMaxAddresses; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_name) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) out.emplace_back(i->ifa_name, text);
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace

std::optional<InterfaceAddress> locate_interface(const Root& root, const std::string& name) {
  if (!plain_interface_name(name)) return std::nullopt;
  return locate(root, name, "");
}

std::string live_addresses_text() {
  std::string out;
  for (const auto& [name, ip] : live_pairs()) out += name + " " + ip + "\n";
  return out;
}

std::optional<std::vector<InterfaceAddress>> read_interface_addresses(const Root& root) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (root.is_live()) {
    pairs = live_pairs();
  } else {
    FileRead r = root.read(kAddressesCapture, 1 << 20);
    if (!r.ok()) return std::nullopt;
    std::istringstream in(r.content);
    std::string name, ip;
    while (pairs.size() < kMaxAddresses && in >> name >> ip)
      if (plain_interface_name(name) && ipv4_text(ip)) pairs.emplace_back(name, ip);
  }
  std::vector<InterfaceAddress> out;
  for (auto& [name, ip] : pairs)
    if (plain_interface_name(name)) out.push_back(locate(root, name, ip));
  return out;
}

}  // namespace gdrcheck

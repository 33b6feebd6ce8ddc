// libFuzzer entry point for host lists ("gpu[01-04,07],login1") and host
// files. The first line is expanded as a host list, the whole input read
// as a host file. Either ends in hosts or a std::invalid_argument naming
// the problem; anything else (a crash, another exception, a sanitizer
// report) is a bug, and so is a result that breaks the promises of
// hostlist.h / hostfile.h: no duplicates, no empty name, at most 1,000,000
// hosts from one list, and no host a launcher would read as an option.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "cluster/hostfile.h"
#include "cluster/hostlist.h"

namespace {

void check_hosts(const std::vector<std::string>& hosts) {
  std::unordered_set<std::string_view> seen;
  for (const auto& h : hosts) {
    if (h.empty() || !seen.insert(h).second) __builtin_trap();
  }
}

// ssh/pdsh take a leading '-' as an option: such a "host" must be refused.
void check_no_option(const std::vector<std::string>& hosts) {
  for (const auto& h : hosts)
    if (h.front() == '-') __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string list(text.substr(0, text.find('\n')));
  try {
    auto items = gdrcheck::split_hostlist(list);
    if (items.empty()) __builtin_trap();
    auto hosts = gdrcheck::expand_hostlist(list);
    check_hosts(hosts);
    if (hosts.size() > 1'000'000) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  try {
    auto hosts = gdrcheck::parse_hostfile(text);
    if (hosts.empty()) __builtin_trap();
    check_hosts(hosts);
    check_no_option(hosts);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

// libFuzzer entry point for host lists ("gpu[01-04,07],login1") and host
// files. The first line is expanded as a host list, the whole input read
// as a host file. Either ends in hosts or a std::invalid_argument naming
// the problem; anything else (a crash, another exception, a sanitizer
// report) is a bug, and so is a result that breaks the promises of
// hostlist.h / hostfile.h: no duplicates, no empty name, at most 1,000,000
// hosts from one list, and no host a launcher would read as an option.
//
// Making a million names is correct but takes a second under the
// sanitizers, and the fuzzer soon learns to ask for it every run; a list
// or host file that names more than kExpandNames is only counted (the
// count must agree with what expansion refuses), so the runs go to the
// parser's branches rather than to the allocator.
#include <algorithm>
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

constexpr std::size_t kExpandNames = 4096;

// Names the host file's words make, by count_hostlist; a word that cannot
// be counted counts as nothing (parse_hostfile then refuses it). The words
// are the product's own (hostfile_host_word). With words of its own (split
// at space, tab and CR only) this count took "r[1-995]0Jr[1-620]\v[" for
// one unbalanced list and counted nothing, while the product, for which a
// vertical tab is a blank, made its 616,900 names: seconds a run.
std::size_t hostfile_names(std::string_view text) {
  std::size_t total = 0;
  while (!text.empty() && total <= kExpandNames) {
    std::string_view line = text.substr(0, text.find('\n'));
    text.remove_prefix(std::min(text.size(), line.size() + 1));
    std::string word(gdrcheck::hostfile_host_word(line));
    if (word.empty()) continue;
    try {
      total += gdrcheck::count_hostlist(word);
    } catch (const std::invalid_argument&) {
    }
  }
  return total;
}

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
    std::size_t count = gdrcheck::count_hostlist(list);
    if (count <= kExpandNames) {
      auto hosts = gdrcheck::expand_hostlist(list);
      check_hosts(hosts);
      if (hosts.size() > count) __builtin_trap();
    } else if (count > 1'000'000) {
      (void)gdrcheck::expand_hostlist(list);
      __builtin_trap();  // past the cap: expansion must have refused
    }
  } catch (const std::invalid_argument&) {
  }
  if (hostfile_names(text) > kExpandNames) return 0;
  try {
    auto hosts = gdrcheck::parse_hostfile(text);
    if (hosts.empty()) __builtin_trap();
    check_hosts(hosts);
    check_no_option(hosts);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

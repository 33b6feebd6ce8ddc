#include "cluster/hostfile.h"

#include <stdexcept>
#include <unordered_set>

#include "cluster/hostlist.h"

namespace gdrcheck {
namespace {

constexpr std::string_view kBlank = " \t\r\f\v";

std::string_view first_word(std::string_view line) {
  line = line.substr(0, line.find('#'));
  std::size_t start = line.find_first_not_of(kBlank);
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  return line.substr(0, line.find_first_of(kBlank));
}

std::vector<std::string> hosts_of_word(std::string_view word, std::size_t line_number) {
  std::string where = "line " + std::to_string(line_number) + ": ";
  if (word.front() == '-') throw std::invalid_argument(where + "'" + std::string(word) + "' is not a host name");
  try {
    return expand_hostlist(std::string(word));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + e.what());
  }
}

}  // namespace

std::vector<std::string> parse_hostfile(std::string_view text) {
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  std::size_t line_number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    std::string_view word = first_word(line);
    if (word.empty()) continue;
    for (auto& h : hosts_of_word(word, line_number))
      if (seen.insert(h).second) hosts.push_back(std::move(h));
  }
  if (hosts.empty()) throw std::invalid_argument("no host in the file");
  return hosts;
}

}  // namespace gdrcheck

#include "cluster/hostfile.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "cluster/hostlist.h"
#include "cluster/node_name.h"
#include "host/user_file.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

constexpr std::string_view kBlank = " \t\r\f\v";
// The host list's own cap; a host file is no way around it.
constexpr std::size_t kMaxHostfileHosts = 1'000'000;
constexpr std::size_t kMaxHostfileLines = 1'000'000;

// `named` counts the names of every word so far (duplicates too): each
// word is counted before it is expanded, so the file as a whole can never
// make more than kMaxHostfileHosts names.
std::vector<std::string> hosts_of_word(std::string_view word, std::size_t line_number, std::size_t& named) {
  std::string where = "line " + std::to_string(line_number) + ": ";
  if (word.front() == '-') throw std::invalid_argument(where + "'" + visible_name(word) + "' is not a host name");
  try {
    std::string list(word);
    named += count_hostlist(list);
    if (named > kMaxHostfileHosts) throw std::invalid_argument("more than 1000000 hosts in the file");
    return expand_hostlist(list);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + e.what());
  }
}

}  // namespace

std::string_view hostfile_host_word(std::string_view line) {
  line = line.substr(0, line.find('#'));
  std::size_t start = line.find_first_not_of(kBlank);
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  return line.substr(0, line.find_first_of(kBlank));
}

std::vector<std::string> parse_hostfile(std::string_view text) {
  // Counted before any line is read: a file over the limit costs one scan.
  if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) > kMaxHostfileLines)
    throw std::invalid_argument("more than 1000000 lines; not a host file");
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  std::size_t line_number = 0, named = 0;
  while (!text.empty()) {
    if (line_number == kMaxHostfileLines) throw std::invalid_argument("more than 1000000 lines; not a host file");
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    std::string_view word = hostfile_host_word(line);
    if (word.empty()) continue;
    for (auto& h : hosts_of_word(word, line_number, named))
      if (seen.insert(h).second) hosts.push_back(std::move(h));
  }
  if (hosts.empty()) throw std::invalid_argument("no host in the file");
  return hosts;
}

std::vector<std::string> read_hostfile(const std::string& path) {
  std::string text = read_user_file(path, kMaxHostfileBytes, "host file");
  try {
    return parse_hostfile(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(path, e.what());
  }
}

}  // namespace gdrcheck

#include "cluster/hostlist.h"

#include <cstddef>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxHosts = 1'000'000;

[[noreturn]] void bad_list(const std::string& list, const std::string& why) {
  throw std::invalid_argument("host list '" + list + "': " + why);
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string padded(unsigned long value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// "01-04,07" -> 01 02 03 04 07
std::vector<std::string> expand_ranges(const std::string& list, const std::string& ranges) {
  std::vector<std::string> values;
  std::size_t start = 0;
  while (start <= ranges.size()) {
    std::size_t comma = ranges.find(',', start);
    if (comma == std::string::npos) comma = ranges.size();
    std::string part = ranges.substr(start, comma - start);
    std::size_t dash = part.find('-');
    std::string lo = part.substr(0, dash);
    std::string hi = dash == std::string::npos ? lo : part.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi)) bad_list(list, "bad range '" + part + "'");
    unsigned long first = std::stoul(lo), last = std::stoul(hi);
    if (last < first) bad_list(list, "reversed range '" + part + "'");
    if (last - first >= kMaxHosts) bad_list(list, "range '" + part + "' is too large");
    for (unsigned long v = first; v <= last; ++v) values.push_back(padded(v, lo.size()));
    start = comma + 1;
  }
  return values;
}

// One item, possibly with several bracket groups: the product of them.
std::vector<std::string> expand_item(const std::string& list, const std::string& item) {
  std::vector<std::string> names = {""};
  std::size_t pos = 0;
  while (pos < item.size()) {
    std::size_t open = item.find('[', pos);
    std::string text = item.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
    for (auto& name : names) name += text;
    if (open == std::string::npos) break;
    std::size_t close = item.find(']', open);
    if (close == std::string::npos) bad_list(list, "'[' without ']'");
    std::vector<std::string> values = expand_ranges(list, item.substr(open + 1, close - open - 1));
    if (names.size() * values.size() > kMaxHosts) bad_list(list, "more than 1000000 hosts");
    std::vector<std::string> product;
    product.reserve(names.size() * values.size());
    for (const auto& name : names) {
      for (const auto& value : values) product.push_back(name + value);
    }
    names = std::move(product);
    pos = close + 1;
  }
  return names;
}

}  // namespace

std::vector<std::string> split_hostlist(const std::string& list) {
  std::vector<std::string> items;
  std::string item;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) bad_list(list, "']' without '['");
    if (c == ',' && depth == 0) {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (depth != 0) bad_list(list, "'[' without ']'");
  items.push_back(item);
  return items;
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;
  for (const auto& item : split_hostlist(list)) {
    if (item.empty()) continue;
    for (auto& host : expand_item(list, item)) {
      if (seen.insert(host).second) hosts.push_back(std::move(host));
      if (hosts.size() > kMaxHosts) bad_list(list, "more than 1000000 hosts");
    }
  }
  return hosts;
}

}  // namespace gdrcheck

#include "cluster/hostlist.h"

#include "cluster/node_name.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxHosts = 1'000'000;
// DNS names are at most 253 bytes: a longer "host" is not one, and this
// bounds what the cap of hosts can cost.
constexpr std::size_t kMaxNameBytes = 255;

[[noreturn]] void bad_list(const std::string& list, const std::string& why) {
  throw std::invalid_argument("host list '" + visible_name(list) + "': " + why);
}

// 1 to 9 digits: a range bound std::stoul always takes.
bool is_short_number(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string zero_padded(unsigned long value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// Saturating: a count past the cap stays past it, never wraps.
std::size_t capped_product(std::size_t a, std::size_t b) {
  if (a == 0 || b == 0) return 0;
  return a > (kMaxHosts + 1) / b ? kMaxHosts + 1 : std::min(a * b, kMaxHosts + 1);
}

std::size_t capped_sum(std::size_t a, std::size_t b) {
  return std::min(a + b, kMaxHosts + 1);  // both are at most kMaxHosts + 1
}

struct HostRange {
  unsigned long first = 0, last = 0;
  std::size_t width = 0;  // of the first bound: zero padding is kept
};

// "01-04,07" -> 01..04 and 07
std::vector<HostRange> parse_ranges(const std::string& list, const std::string& ranges) {
  std::vector<HostRange> out;
  std::size_t start = 0;
  while (start <= ranges.size()) {
    std::size_t comma = ranges.find(',', start);
    if (comma == std::string::npos) comma = ranges.size();
    std::string part = ranges.substr(start, comma - start);
    std::size_t dash = part.find('-');
    std::string lo = part.substr(0, dash);
    std::string hi = dash == std::string::npos ? lo : part.substr(dash + 1);
    if (!is_short_number(lo) || !is_short_number(hi)) bad_list(list, "bad range '" + part + "'");
    unsigned long first = std::stoul(lo), last = std::stoul(hi);
    if (last < first) bad_list(list, "reversed range '" + part + "'");
    if (last - first >= kMaxHosts) bad_list(list, "range '" + part + "' is too large");
    out.push_back({first, last, lo.size()});
    start = comma + 1;
  }
  return out;
}

// One item's bracket groups, in order, each a list of ranges, with the
// plain text before each group and after the last.
struct Item {
  std::vector<std::string> texts;  // groups.size() + 1 pieces
  std::vector<std::vector<HostRange>> groups;
};

Item parse_item(const std::string& list, const std::string& item) {
  Item out;
  std::size_t pos = 0;
  while (true) {
    std::size_t open = item.find('[', pos);
    out.texts.push_back(item.substr(pos, open == std::string::npos ? std::string::npos : open - pos));
    if (open == std::string::npos) return out;
    std::size_t close = item.find(']', open);
    if (close == std::string::npos) bad_list(list, "'[' without ']'");
    out.groups.push_back(parse_ranges(list, item.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
}

// How many names the item makes, counted before any is made.
std::size_t count_names(const Item& item) {
  std::size_t names = 1;
  for (const auto& group : item.groups) {
    std::size_t values = 0;
    for (const auto& r : group) values = capped_sum(values, r.last - r.first + 1);
    names = capped_product(names, values);
  }
  return names;
}

// The longest name the item makes, also counted before any is made.
std::size_t longest_name(const Item& item) {
  std::size_t bytes = 0;
  for (const auto& t : item.texts) bytes += t.size();
  for (const auto& group : item.groups) {
    std::size_t widest = 0;
    for (const auto& r : group) widest = std::max({widest, r.width, std::to_string(r.last).size()});
    bytes += widest;
  }
  return bytes;
}

// The product of the item's groups, in order.
std::vector<std::string> expand_item(const Item& item) {
  std::vector<std::string> names = {item.texts[0]};
  for (std::size_t g = 0; g < item.groups.size(); ++g) {
    std::vector<std::string> product;
    for (const auto& name : names)
      for (const auto& r : item.groups[g])
        for (unsigned long v = r.first; v <= r.last; ++v)
          product.push_back(name + zero_padded(v, r.width) + item.texts[g + 1]);
    names = std::move(product);
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

namespace {

// Every item parsed and counted: a short list such as
// "a[0-999999]b[0-999999]" names 10^12 hosts and must be refused before a
// single one is made.
std::vector<Item> counted_items(const std::string& list, std::size_t& total) {
  std::vector<Item> items;
  total = 0;
  for (const auto& text : split_hostlist(list)) {
    if (text.empty()) continue;
    // Every name starts with the item's first text: a leading '-' would
    // reach ssh or pdsh as an option ("-oProxyCommand=...").
    if (text.front() == '-')
      bad_list(list, "'" + visible_name(text.substr(0, 40)) + "' starts with '-'; not a host name");
    items.push_back(parse_item(list, text));
    if (longest_name(items.back()) > kMaxNameBytes) bad_list(list, "a host name longer than 255 bytes");
    total = capped_sum(total, count_names(items.back()));
  }
  return items;
}

}  // namespace

std::size_t count_hostlist(const std::string& list) {
  std::size_t total = 0;
  counted_items(list, total);
  return total;
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::size_t total = 0;
  std::vector<Item> items = counted_items(list, total);
  if (total > kMaxHosts) bad_list(list, "more than 1000000 hosts");
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  for (const auto& item : items)
    for (auto& host : expand_item(item))
      if (seen.insert(host).second) hosts.push_back(std::move(host));
  return hosts;
}

namespace {

// A name as text, a number and more text: "r1n05x" -> "r1n" 5 "x" (the
// last run of digits), with the width that run is written in when it is
// zero-padded, else 0 (any width: "8" and "10" are one range, [8-10]).
struct NumberedName {
  std::string prefix, suffix;
  unsigned long value = 0;
  std::size_t width = 0;
};

std::optional<NumberedName> numbered_name(const std::string& name) {
  if (name.find_first_of("[],") != std::string::npos) return std::nullopt;
  std::size_t end = name.find_last_of("0123456789");
  if (end == std::string::npos) return std::nullopt;
  std::size_t start = end;
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  std::string digits = name.substr(start, end - start + 1);
  if (digits.size() > 9) return std::nullopt;  // as parse_ranges: at most 9 digits
  NumberedName n{name.substr(0, start), name.substr(end + 1), std::stoul(digits), 0};
  if (digits.size() > 1 && digits[0] == '0') n.width = digits.size();
  return n;
}

struct Group {
  std::string prefix, suffix;
  std::size_t width = 0;
  std::vector<unsigned long> values;
};

std::string ranges_text(const Group& g) {
  std::vector<unsigned long> v = g.values;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() == 1) return g.prefix + zero_padded(v[0], g.width) + g.suffix;
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + zero_padded(v[i], g.width);
    if (j > i) out += "-" + zero_padded(v[j], g.width);
    i = j + 1;
  }
  return g.prefix + "[" + out + "]" + g.suffix;
}

}  // namespace

std::vector<std::string> fold_hostlist_items(const std::vector<std::string>& hosts) {
  // Each item is a group of numbered names or one name as is, in order of
  // first appearance.
  std::vector<Group> groups;
  std::vector<std::string> verbatim;
  std::vector<std::pair<bool, std::size_t>> order;  // (is a group, index)
  std::map<std::tuple<std::string, std::string, std::size_t>, std::size_t> index;
  std::unordered_set<std::string> seen;
  for (const auto& h : hosts) {
    if (!seen.insert(h).second) continue;
    auto n = numbered_name(h);
    if (!n) {
      order.push_back({false, verbatim.size()});
      verbatim.push_back(h);
      continue;
    }
    auto [it, fresh] = index.emplace(std::make_tuple(n->prefix, n->suffix, n->width), groups.size());
    if (fresh) {
      order.push_back({true, groups.size()});
      groups.push_back({n->prefix, n->suffix, n->width, {}});
    }
    groups[it->second].values.push_back(n->value);
  }
  std::vector<std::string> items;
  for (const auto& [is_group, i] : order) items.push_back(is_group ? ranges_text(groups[i]) : verbatim[i]);
  return items;
}

std::string fold_hostlist(const std::vector<std::string>& hosts) {
  std::string out;
  for (const auto& item : fold_hostlist_items(hosts)) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace gdrcheck

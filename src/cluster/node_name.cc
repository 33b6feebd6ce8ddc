#include "cluster/node_name.h"

#include <algorithm>

#include "host/text_format.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

// A host name label is at most 63 characters (RFC 1035); Slurm node names
// are host names in practice.
constexpr std::size_t kMaxNodeName = 63;

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool name_char(char c) {
  return alnum(c) || c == '.' || c == '_' || c == '-';
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii::lower(x) == ascii::lower(y); });
}

std::string_view first_label(std::string_view name) {
  return name.substr(0, name.find('.'));
}

// "10" of "10.0.0.7" names no host: short names are compared only when
// they hold a letter.
bool short_name(std::string_view label) {
  return std::any_of(label.begin(), label.end(), [](char c) { return alnum(c) && !(c >= '0' && c <= '9'); });
}

}  // namespace

std::string plain_node_name_problem(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.size() > kMaxNodeName) return "longer than 63 characters";
  if (name.find_first_of("[],") != std::string_view::npos) return "a host list, not one node name";
  if (!std::all_of(name.begin(), name.end(), name_char))
    return "not one plain node name (letters, digits, '.', '_', '-')";
  if (!alnum(name.front())) return "does not start with a letter or digit";
  for (std::string_view keyword : {"ALL", "DEFAULT"})
    if (equal_ignoring_case(name, keyword)) return "a Slurm keyword, not a node";
  return "";
}

bool same_host(std::string_view claimed, std::string_view addressed) {
  if (claimed.empty() || addressed.empty()) return false;
  if (equal_ignoring_case(claimed, addressed)) return true;
  std::string_view a = first_label(claimed), b = first_label(addressed);
  return short_name(a) && short_name(b) && equal_ignoring_case(a, b);
}

std::string visible_name(std::string_view name) {
  constexpr std::size_t kShown = 200;
  std::size_t size = std::min(name.size(), kShown);
  // Never cut a UTF-8 character in two.
  while (size < name.size() && size > 0 && (static_cast<unsigned char>(name[size]) & 0xC0) == 0x80) --size;
  // The one escaping rule for data in messages (host/text_format.h).
  std::string out = printable(name.substr(0, size));
  return size < name.size() ? out + "..." : out;
}

}  // namespace gdrcheck

#include "nccl/ib_hca_filter.h"

#include <algorithm>
#include <cstdlib>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

// The port part of "name:port[:...]". Up to 2.30.4 NCCL reads it with atoi
// (text that is not a number, or nothing at all, is port 0 and matches no
// port: src/misc/utils.cc:parseStringList@v2.30.4-1); 2.30.7 splits with
// strsep and treats an empty port as "any" (parseStringList@v2.30.7-1).
int entry_port(std::string_view rest, const NcclVersion& v) {
  bool empty = rest.empty() || rest.front() == ':';
  if (empty) return v >= NcclVersion{2, 30, 7} ? -1 : 0;
  return std::atoi(std::string(rest.substr(0, rest.find(':'))).c_str());
}

}  // namespace

HcaFilter parse_hca(std::string_view text, const NcclVersion& version) {
  HcaFilter f;
  if (text.starts_with('^')) {
    f.exclude = true;
    text.remove_prefix(1);
  }
  if (text.starts_with('=')) {
    f.exact = true;
    text.remove_prefix(1);
  }
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view entry = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    std::size_t colon = entry.find(':');
    std::string name(entry.substr(0, colon));
    int port = colon == std::string_view::npos ? -1 : entry_port(entry.substr(colon + 1), version);
    if (!name.empty()) f.entries.emplace_back(std::move(name), port);
  }
  return f;
}

bool hca_matches(const HcaFilter& f, const std::string& device, int port) {
  bool hit = f.entries.empty();
  for (const auto& [name, want] : f.entries) {
    bool name_ok = f.exact ? device == name : device.starts_with(name);
    hit = hit || (name_ok && (want == -1 || want == port));
  }
  return hit != f.exclude;
}

bool ib_hca_selects(const std::string& filter, const std::string& device, int port, const NcclVersion& version) {
  return hca_matches(parse_hca(filter, version), device, port);
}

std::vector<std::string> hca_prefix_pitfalls(const HcaFilter& f, const std::vector<std::string>& devices) {
  std::vector<std::string> found;
  if (f.exact) return found;
  for (const auto& entry : f.entries) {
    bool named = std::find(devices.begin(), devices.end(), entry.first) != devices.end();
    std::vector<std::string> also;
    for (const auto& d : devices)
      if (d != entry.first && d.starts_with(entry.first) && std::find(also.begin(), also.end(), d) == also.end())
        also.push_back(d);
    if (named && !also.empty()) found.push_back("'" + entry.first + "' also matches " + join(also));
  }
  return found;
}

}  // namespace gdrcheck

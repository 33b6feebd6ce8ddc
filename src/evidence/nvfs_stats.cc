// Reader for /proc/driver/nvidia-fs/stats (nvfs-stat.c prints it with
// seq_printf: header lines, then "Label\t\t: key=value ..." lines padded
// with tabs, then one line per GPU). Each line is read by what it starts
// with, never by its position, so versions that add or drop lines read the
// same, and a line broken in two by a documentation page or a terminal
// ("pg-cache-eio=0" on a line of its own) is joined to the one before.
#include "evidence/nvfs_stats.h"

#include <algorithm>

#include "host/text_numbers.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxNvfsLines = 4096;
constexpr std::size_t kMaxNvfsLine = 4096;
constexpr std::size_t kMaxGroups = 64;
constexpr std::size_t kMaxKeys = 64;  // per group, per GPU, and scalars
constexpr std::size_t kMaxNvfsGpus = 1024;
constexpr std::size_t kMaxNvfsName = 64;  // a label or key longer than this is not nvidia-fs's
constexpr std::size_t kMaxText = 128;     // a version or level string

// isspace but '\n': the text is cut into lines at '\n' before these run.
bool is_space_but_newline(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim_space_but_newline(std::string_view s) {
  while (!s.empty() && is_space_but_newline(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space_but_newline(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> space_separated_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space_but_newline(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !is_space_but_newline(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string bounded_text(std::string_view s) {
  return std::string(s.substr(0, kMaxText));
}

// "True"/"Enabled" and their opposites as nvidia-fs prints them.
std::optional<bool> parse_flag(std::string_view v) {
  v = trim_space_but_newline(v);
  if (v == "True" || v == "Enabled") return true;
  if (v == "False" || v == "Disabled") return false;
  return std::nullopt;
}

// The text between `prefix` and the next ')' ("NVFS Driver(version: 2.20.5)").
std::optional<std::string> in_parens(std::string_view line, std::string_view prefix) {
  std::string_view rest = line.substr(prefix.size());
  std::size_t close = rest.find(')');
  if (close == std::string_view::npos) return std::nullopt;
  return bounded_text(trim_space_but_newline(rest.substr(0, close)));
}

bool is_pair(std::string_view word) {
  std::size_t eq = word.find('=');
  return eq != std::string_view::npos && eq > 0;
}

class NvfsStatsReader {
 public:
  explicit NvfsStatsReader(NvfsStats& s) : s_(s) {}

  void line(std::string_view raw) {
    if (raw.size() > kMaxNvfsLine) {
      ++s_.ignored_lines;
      return;
    }
    std::string_view l = trim_space_but_newline(raw);
    if (l.empty()) return;
    std::size_t colon = l.find(':');
    if (colon == std::string_view::npos) return continuation(l);
    last_ = Last::None;  // set again by a group or GPU line
    if (header(l)) return;
    if (l.starts_with("GPU ")) return gpu(l);
    std::string_view label = trim_space_but_newline(l.substr(0, colon));
    std::string_view rest = trim_space_but_newline(l.substr(colon + 1));
    if (label.empty() || label.size() > kMaxNvfsName || label.find('=') != std::string_view::npos) {
      ++s_.ignored_lines;
      return;
    }
    if (rest.find('=') != std::string_view::npos) return group(label, rest);
    // "Active Process: 0". A run of digits too long for 64 bits is still a
    // counter, of unknown value.
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return add(s_.scalars, label, whole_number<std::uint64_t>(rest));
    ++s_.ignored_lines;
  }

 private:
  bool header(std::string_view l) {
    if (l.starts_with("GDS Version:")) {
      s_.gds_version = bounded_text(trim_space_but_newline(l.substr(12)));
    } else if (l.starts_with("NVFS statistics(ver:")) {
      s_.stats_version = in_parens(l, "NVFS statistics(ver:");
    } else if (l.starts_with("NVFS Driver(version:")) {
      s_.driver_version = in_parens(l, "NVFS Driver(version:");
    } else if (l.starts_with("Mellanox PeerDirect Supported:")) {
      s_.peerdirect = parse_flag(l.substr(30));
    } else if (l.starts_with("IO stats:")) {
      // "IO stats: Enabled, peer IO stats: Disabled"
      std::string_view rest = l.substr(9);
      std::size_t comma = rest.find(',');
      s_.io_stats = parse_flag(rest.substr(0, comma));
      if (comma != std::string_view::npos) {
        std::string_view peer = trim_space_but_newline(rest.substr(comma + 1));
        if (peer.starts_with("peer IO stats:")) s_.peer_io_stats = parse_flag(peer.substr(14));
      }
    } else if (l.starts_with("Logging level:")) {
      s_.logging_level = bounded_text(trim_space_but_newline(l.substr(14)));
    } else {
      return false;
    }
    return true;
  }

  // "GPU 0000:be:00.0  uuid:87e5... : Registered_MiB=0 ..."
  void gpu(std::string_view l) {
    std::vector<std::string_view> w = space_separated_words(l);
    if (w.size() < 2 || w[1].size() > kMaxNvfsName) {
      ++s_.ignored_lines;
      return;
    }
    if (s_.gpus.size() >= kMaxNvfsGpus) {
      s_.truncated = true;
      last_ = Last::None;
      return;
    }
    NvfsGpu g;
    g.bdf = std::string(w[1]);
    for (std::size_t i = 2; i < w.size(); ++i) {
      if (w[i].starts_with("uuid:") && g.uuid.empty())
        g.uuid = std::string(w[i].substr(5, kMaxNvfsName));
      else if (is_pair(w[i]))
        pair(g.values, w[i]);
    }
    s_.gpus.push_back(std::move(g));
    last_ = Last::Gpu;
  }

  void group(std::string_view label, std::string_view rest) {
    std::vector<std::string_view> pairs = space_separated_words(rest);
    pairs.erase(std::remove_if(pairs.begin(), pairs.end(), [](std::string_view w) { return !is_pair(w); }),
                pairs.end());
    if (pairs.empty()) {
      ++s_.ignored_lines;
      return;
    }
    auto it = std::find_if(s_.groups.begin(), s_.groups.end(), [&](const NvfsGroup& g) { return g.name == label; });
    if (it == s_.groups.end()) {
      if (s_.groups.size() >= kMaxGroups) {
        s_.truncated = true;
        last_ = Last::None;
        return;
      }
      s_.groups.push_back({std::string(label), {}});
      it = s_.groups.end() - 1;
    }
    for (std::string_view w : pairs) pair(it->values, w);
    last_group_ = static_cast<std::size_t>(it - s_.groups.begin());
    last_ = Last::Group;
  }

  // A line of key=value words only: the tail of the line before, broken
  // by whatever displayed it.
  void continuation(std::string_view l) {
    std::vector<std::string_view> w = space_separated_words(l);
    if (last_ == Last::None || w.empty() || !std::all_of(w.begin(), w.end(), is_pair)) {
      ++s_.ignored_lines;
      return;
    }
    NvfsValues& into = last_ == Last::Gpu ? s_.gpus.back().values : s_.groups[last_group_].values;
    for (std::string_view x : w) pair(into, x);
  }

  void pair(NvfsValues& into, std::string_view word) {
    std::size_t eq = word.find('=');
    add(into, word.substr(0, eq), whole_number<std::uint64_t>(word.substr(eq + 1)));
  }

  // The first value of a key counts; a key printed twice (never by
  // nvidia-fs) cannot overwrite it.
  void add(NvfsValues& into, std::string_view key, NvfsValue v) {
    if (key.size() > kMaxNvfsName) return;
    if (std::any_of(into.begin(), into.end(), [&](const auto& kv) { return kv.first == key; })) return;
    if (into.size() >= kMaxKeys) {
      s_.truncated = true;
      return;
    }
    into.emplace_back(std::string(key), v);
  }

  // The line read last, which a continuation line belongs to.
  enum class Last { None, Group, Gpu };
  NvfsStats& s_;
  Last last_ = Last::None;
  std::size_t last_group_ = 0;
};

const NvfsValue* find_value(const NvfsValues& values, std::string_view key) {
  for (const auto& [k, v] : values)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

bool NvfsStats::recognised() const {
  if (gds_version || stats_version || driver_version) return true;
  // The groups every release prints; a file of other "x : k=v" lines is
  // not nvidia-fs's.
  for (std::string_view name : {"Reads", "Writes", "Mmap", "Bar1-map", "Error"})
    if (group(name)) return true;
  return false;
}

const NvfsGroup* NvfsStats::group(std::string_view name) const {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

const NvfsValue* NvfsStats::value(std::string_view name, std::string_view key) const {
  const NvfsGroup* g = group(name);
  return g ? find_value(g->values, key) : nullptr;
}

const NvfsValue* NvfsStats::scalar(std::string_view label) const {
  return find_value(scalars, label);
}

const NvfsValue* NvfsStats::first_value(std::string_view name, std::initializer_list<std::string_view> keys) const {
  for (std::string_view k : keys)
    if (const NvfsValue* v = value(name, k)) return v;
  return nullptr;
}

NvfsStats parse_nvfs_stats(std::string_view text) {
  NvfsStats s;
  if (text.size() > kMaxNvfsStatsBytes) {
    text = text.substr(0, kMaxNvfsStatsBytes);
    s.truncated = true;
  }
  NvfsStatsReader reader(s);
  std::size_t lines = 0;
  while (!text.empty()) {
    if (++lines > kMaxNvfsLines) {
      s.truncated = true;
      break;
    }
    std::size_t nl = text.find('\n');
    reader.line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return s;
}

}  // namespace gdrcheck

#include "report/finding_fold.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace gdrcheck {
namespace {

// "GPU12" → {"GPU", 12}. Only subjects ending in a plain decimal number
// fold: a leading zero ("GPU01") or more than 9 digits would not come back
// the same from a range, so those are listed as they are.
struct Numbered {
  std::string prefix;
  long number = 0;
};

std::optional<Numbered> numbered(const std::string& s) {
  std::size_t start = s.size();
  while (start > 0 && s[start - 1] >= '0' && s[start - 1] <= '9') --start;
  std::size_t digits = s.size() - start;
  if (digits == 0 || digits > 9 || start == 0) return std::nullopt;
  if (digits > 1 && s[start] == '0') return std::nullopt;
  return Numbered{s.substr(0, start), std::stol(s.substr(start))};
}

// One prefix's numbers as runs: {0,1,2,5} → "GPU0–2, GPU5".
std::vector<std::string> runs(const std::string& prefix, const std::set<long>& numbers, const std::string& dash) {
  std::vector<std::string> out;
  for (auto it = numbers.begin(); it != numbers.end();) {
    long first = *it, last = *it;
    for (++it; it != numbers.end() && *it == last + 1; ++it) last = *it;
    std::string run = prefix + std::to_string(first);
    if (last != first) run += dash + std::to_string(last);
    out.push_back(run);
  }
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

void split_evidence(FoldedFinding& f) {
  for (const auto& line : f.first->evidence) {
    bool everywhere =
        std::all_of(f.members.begin(), f.members.end(), [&](const Finding* m) { return has_line(m->evidence, line); });
    if (everywhere && !has_line(f.shared_evidence, line)) f.shared_evidence.push_back(line);
  }
  for (const Finding* m : f.members) {
    std::vector<std::string> own;
    for (const auto& line : m->evidence)
      if (!has_line(f.shared_evidence, line)) own.push_back(line);
    f.own_evidence.push_back(std::move(own));
  }
}

}  // namespace

std::vector<FoldedFinding> fold_findings(const std::vector<const Finding*>& findings) {
  using Key = std::tuple<std::string, Status, std::string, std::string>;
  std::map<Key, std::size_t> index;
  std::vector<FoldedFinding> out;
  for (const Finding* f : findings) {
    Key key{f->check, f->status, f->summary, f->fix};
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) out.push_back({f, {}, {}, {}});
    out[it->second].members.push_back(f);
  }
  for (auto& f : out) split_evidence(f);
  return out;
}

std::string fold_subjects(const std::vector<std::string>& subjects, bool utf8) {
  const std::string dash = utf8 ? "\u2013" : "-";
  // Each entry is a numbered prefix (folded where it first appears) or a
  // subject listed as it is.
  std::vector<std::pair<bool, std::string>> order;
  std::map<std::string, std::set<long>> numbers;
  std::set<std::string> listed;
  for (const auto& s : subjects) {
    if (auto n = numbered(s)) {
      if (!numbers.count(n->prefix)) order.push_back({true, n->prefix});
      numbers[n->prefix].insert(n->number);
    } else if (listed.insert(s).second) {
      order.push_back({false, s});
    }
  }
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  for (const auto& [is_prefix, text] : order) {
    if (!is_prefix) {
      add(text);
      continue;
    }
    for (const auto& run : runs(text, numbers[text], dash)) add(run);
  }
  return out;
}

}  // namespace gdrcheck

#include "topology/smi_unfold.h"

#include <set>
#include <string_view>

#include "topology/smi_vocabulary.h"

namespace gdrcheck::smi {
namespace {

// Longer lines are left alone: no matrix is that wide, and the reader
// turns them into a word no matrix has.
constexpr std::size_t kMaxUnfoldLine = 64 * 1024;

struct LineToken {
  std::string_view text;
  std::size_t offset = 0;
};

std::vector<LineToken> tokens_of(std::string_view line) {
  std::vector<LineToken> out;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    out.push_back({line.substr(start, i - start), start});
  }
  return out;
}

// The labels a word stands for in a header: itself, or the labels run
// together in it.
std::vector<std::string> labels_in(std::string_view w) {
  if (is_device_label(w)) return {std::string(w)};
  return split_glued_labels(w);
}

bool starts_with_code(std::string_view w) {
  return is_code(w) || !split_glued_codes(w).empty();
}

// Index of the header's first word (GPU0, alone or glued to GPU1), or
// npos; `labels` gets the header's device labels, `end` the index after
// them.
std::size_t find_header(const std::vector<LineToken>& t, std::set<std::string, std::less<>>* labels, std::size_t* end) {
  for (std::size_t k = 0; k < t.size(); ++k) {
    // Its first label is a prefix of the word: words that do not start
    // with GPU0 (nearly all) are passed over without splitting them.
    if (!t[k].text.starts_with("GPU0")) continue;
    auto first = labels_in(t[k].text);
    if (first.empty() || first[0] != "GPU0") continue;
    if (k + 1 < t.size() && starts_with_code(t[k + 1].text)) continue;  // the GPU0 row, not the header
    labels->clear();
    std::size_t j = k;
    for (; j < t.size(); ++j) {
      auto l = labels_in(t[j].text);
      if (l.empty() || labels->count(l[0])) break;
      labels->insert(l.begin(), l.end());
    }
    if (labels->size() >= 2) {
      *end = j;
      return k;
    }
  }
  return std::string::npos;
}

bool next_line_is_row(const std::vector<std::string>& lines, std::size_t i) {
  for (std::size_t j = i + 1; j < lines.size(); ++j) {
    auto t = tokens_of(lines[j]);
    if (t.empty()) continue;
    return t[0].text == "GPU0" && t.size() > 1 && starts_with_code(t[1].text);
  }
  return false;
}

// Offsets at which `line` is cut; empty when it stays whole.
std::vector<std::size_t> cuts_of(const std::vector<std::string>& lines, std::size_t i) {
  const std::string& line = lines[i];
  // Every header starts with a word that starts with GPU0 (find_header).
  if (line.size() > kMaxUnfoldLine || line.find("GPU0") == std::string::npos) return {};
  auto t = tokens_of(line);
  std::set<std::string, std::less<>> labels;
  std::size_t end = 0;
  std::size_t k = find_header(t, &labels, &end);
  if (k == std::string::npos) return {};
  std::vector<std::size_t> cuts;
  if (k > 0) cuts.push_back(t[k].offset);
  for (std::size_t j = end; j + 1 < t.size(); ++j)
    if (labels.count(t[j].text) && starts_with_code(t[j + 1].text)) cuts.push_back(t[j].offset);
  bool rows_inline = cuts.size() > (k > 0 ? 1u : 0u);
  if (!rows_inline && !(k > 0 && next_line_is_row(lines, i))) return {};
  return cuts;
}

}  // namespace

std::vector<std::string> unfold_lines(std::vector<std::string> lines, std::size_t* unfolded) {
  *unfolded = 0;
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto cuts = cuts_of(lines, i);
    if (cuts.empty()) {
      out.push_back(std::move(lines[i]));
      continue;
    }
    ++*unfolded;
    std::size_t start = 0;
    for (std::size_t c : cuts) {
      if (c > start) out.push_back(lines[i].substr(start, c - start));
      start = c;
    }
    out.push_back(lines[i].substr(start));
  }
  return out;
}

}  // namespace gdrcheck::smi

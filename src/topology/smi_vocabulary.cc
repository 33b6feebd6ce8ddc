#include "topology/smi_vocabulary.h"

#include <algorithm>
#include <array>

#include "text/ascii.h"
#include "topology/path_class.h"

namespace gdrcheck::smi {
namespace {

bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}

// Splits before every capital that follows a digit: "GPU0GPU1CPU" →
// {GPU0, GPU1, CPU}.
std::vector<std::string> split_after_digits(std::string_view w) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i > 0 && is_upper(w[i]) && ascii::is_digit(w[i - 1])) parts.emplace_back();
    parts.back() += w[i];
  }
  return parts;
}

}  // namespace

bool is_code(std::string_view w) {
  return w == "N/A" || parse_smi_code(std::string(w)).path != SmiPath::Unknown;
}

bool is_p2p_status(std::string_view w) {
  static constexpr std::array<std::string_view, 7> kStatus = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"};
  return std::find(kStatus.begin(), kStatus.end(), w) != kStatus.end();
}

std::size_t code_at(std::string_view w, std::size_t i) {
  static const std::array<std::string_view, 8> kFixed = {"NODE", "N/A", "PIX", "PXB", "PHB", "SYS", "SOC", "X"};
  if (w.substr(i, 2) == "NV") {
    std::size_t j = i + 2;
    while (j < w.size() && ascii::is_digit(w[j])) ++j;
    if (j > i + 2) return j - i;
  }
  for (auto code : kFixed)
    if (w.substr(i, code.size()) == code) return code.size();
  return 0;
}

// Codes all start with a letter and NV# eats digits only, so the greedy
// split is the only one.
std::vector<std::string> split_glued_codes(std::string_view w) {
  if (w.size() > kMaxGluedWord || is_code(w)) return {};
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < w.size();) {
    std::size_t n = code_at(w, i);
    if (n == 0) return {};
    parts.emplace_back(w.substr(i, n));
    i += n;
  }
  return parts.size() > 1 ? parts : std::vector<std::string>{};
}

LeadingCodes split_leading_codes(std::string_view w, std::size_t wanted) {
  LeadingCodes out;
  if (w.size() > kMaxGluedWord || wanted == 0) return out;
  std::size_t i = 0;
  while (i < w.size() && out.codes.size() < wanted) {
    std::size_t n = code_at(w, i);
    if (n == 0) break;
    out.codes.emplace_back(w.substr(i, n));
    i += n;
  }
  // NV# eats every digit after it, the CPU list's first number too.
  bool nv_last = !out.codes.empty() && out.codes.back().rfind("NV", 0) == 0;
  if (out.codes.size() != wanted || i == w.size() || code_at(w, i) != 0 || nv_last) return {};
  out.rest = std::string(w.substr(i));
  return out;
}

bool is_upper_label(std::string_view w) {
  std::size_t i = 0;
  while (i < w.size() && is_upper(w[i])) ++i;
  if (i < 2 || i == w.size() || w.substr(0, i) == "NV") return false;
  return std::all_of(w.begin() + static_cast<long>(i), w.end(), ascii::is_digit);
}

bool is_lower_label(std::string_view w) {
  if (w.empty() || w.size() > kMaxGluedWord || !is_lower(w.front()) || !ascii::is_digit(w.back())) return false;
  return std::all_of(w.begin(), w.end(), [](char c) { return is_lower(c) || ascii::is_digit(c) || c == '_'; });
}

bool is_device_label(std::string_view w) {
  return is_upper_label(w) || is_lower_label(w);
}

std::vector<std::string> split_glued_labels(std::string_view w) {
  if (w.size() > kMaxGluedWord || is_device_label(w)) return {};
  auto parts = split_after_digits(w);
  if (parts.size() < 2 || !std::all_of(parts.begin(), parts.end(), [](auto& p) { return is_upper_label(p); }))
    return {};
  return parts;
}

LeadingLabels split_leading_labels(std::string_view w) {
  LeadingLabels out;
  if (w.size() > kMaxGluedWord) return out;
  auto parts = split_after_digits(w);
  if (parts.size() < 2) return out;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!is_upper_label(parts[i])) return {};
    out.labels.push_back(parts[i]);
  }
  const std::string& rest = parts.back();
  if (!std::all_of(rest.begin(), rest.end(), [](char c) { return is_upper(c) || is_lower(c); })) return {};
  out.rest = rest;
  return out;
}

std::vector<std::string> split_camel_words(std::string_view w) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i > 0 && is_upper(w[i]) && is_lower(w[i - 1])) parts.emplace_back();
    parts.back() += w[i];
  }
  return parts;
}

bool is_cpu_list(std::string_view s) {
  if (s.empty() || s.size() > 4096) return false;
  std::size_t i = 0;
  while (i < s.size()) {
    auto number = [&](long* v) {
      std::size_t start = i;
      *v = 0;
      while (i < s.size() && ascii::is_digit(s[i]) && i - start < 7) *v = *v * 10 + (s[i++] - '0');
      return i > start && (i == s.size() || !ascii::is_digit(s[i]));
    };
    long lo = 0, hi = 0;
    if (!number(&lo)) return false;
    hi = lo;
    if (i < s.size() && s[i] == '-') {
      ++i;
      if (!number(&hi) || hi < lo) return false;
    }
    if (i == s.size()) return true;
    if (s[i++] != ',' || i == s.size()) return false;
  }
  return true;
}

bool is_cut_cell(std::string_view s) {
  auto ends = [&](std::string_view tail) { return s.size() > tail.size() && s.substr(s.size() - tail.size()) == tail; };
  return ends("...") || ends("\xE2\x80\xA6");
}

}  // namespace gdrcheck::smi

#include "report/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "host/text_format.h"
#include "text/utf8_prefix.h"

namespace gdrcheck {
namespace {

bool metric_name_char(char c, bool first, bool colon) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!metric_name_char(name[i], i == 0, colon)) return false;
  return true;
}

// FNV-1a: a stable, dependency-free fingerprint of a value that was cut.
std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// # HELP text escapes backslash and line feed (not the double quote).
std::string escape_help(std::string_view help) {
  std::string out;
  for (char c : help) out += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
  return out;
}

std::string rendered_labels(const PrometheusLabels& labels) {
  std::set<std::string_view> seen;
  std::string out;
  for (const auto& l : labels) {
    if (!valid_label_name(l.name) || !seen.insert(l.name).second)
      throw std::invalid_argument("invalid or repeated label name \"" + printable(l.name) + "\"");
    out += (out.empty() ? "" : ",") + l.name + "=\"" + escape_label_value(label_value(l.value)) + "\"";
  }
  return out;
}

}  // namespace

double keep_first(double kept, double) {
  return kept;
}
double keep_lowest(double kept, double added) {
  return std::min(kept, added);
}
double keep_highest(double kept, double added) {
  return std::max(kept, added);
}

bool valid_metric_name(std::string_view name) {
  return valid_name(name, true);
}

bool valid_label_name(std::string_view name) {
  return valid_name(name, false) && name.rfind("__", 0) != 0;
}

std::string label_value(std::string_view data) {
  std::string safe = printable(data);
  if (safe.size() <= kMaxLabelValueBytes) return safe;
  char tag[16];
  std::snprintf(tag, sizeof tag, "~%08x", static_cast<unsigned>(fnv1a(data)));
  std::string out(utf8_prefix(safe, kMaxLabelValueBytes - 12));
  return out + "..." + tag;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Whole numbers (counts, epoch seconds) as integers: "1700000000" reads
  // better than the shortest form "1.7e+09".
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

void PrometheusText::gauge(const std::string& name, const std::string& help) {
  if (!valid_metric_name(name)) throw std::invalid_argument("invalid metric name \"" + printable(name) + "\"");
  for (const auto& f : families_)
    if (f.name == name) throw std::invalid_argument("metric family " + name + " declared twice");
  families_.push_back({name, help, {}, {}});
}

void PrometheusText::add(const std::string& name, const PrometheusLabels& labels, double value, SeriesCombine combine) {
  auto family = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == name; });
  if (family == families_.end()) throw std::invalid_argument("metric family " + printable(name) + " not declared");
  std::string key = rendered_labels(labels);
  auto [it, added] = family->index.emplace(key, family->samples.size());
  if (added)
    family->samples.emplace_back(std::move(key), value);
  else
    family->samples[it->second].second = combine(family->samples[it->second].second, value);
}

std::string PrometheusText::text() const {
  std::string out;
  for (const auto& f : families_) {
    if (f.samples.empty()) continue;
    out += "# HELP " + f.name + " " + escape_help(f.help) + "\n";
    out += "# TYPE " + f.name + " gauge\n";
    for (const auto& [labels, value] : f.samples)
      out += f.name + (labels.empty() ? "" : "{" + labels + "}") + " " + sample_value(value) + "\n";
  }
  return out;
}

}  // namespace gdrcheck

// The Prometheus text exposition format 0.0.4, as node_exporter's textfile
// collector and `promtool check metrics` read it: every metric family once
// with its # HELP and # TYPE, valid metric and label names, label values
// escaped (backslash, double quote, newline), and no series twice. Values
// come from other machines (host names, NIC names, finding subjects), so
// each label value is also made printable and capped before it is escaped.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gdrcheck {

// A label value longer than this (after printable()) is cut, and a short
// hash of the whole value keeps two long values that share a prefix apart.
// Real subjects and host names are far shorter; the cap only stops a
// hostile report from making every sample kilobytes long.
inline constexpr std::size_t kMaxLabelValueBytes = 128;

// What every exposition says about its own making.
struct PrometheusStamp {
  std::string version;      // gdrcheck's version
  double unix_seconds = 0;  // when the report was made
};

struct PrometheusLabel {
  std::string name, value;
};
using PrometheusLabels = std::vector<PrometheusLabel>;

// How a second sample for a series already present is folded into it. The
// first value and the new one in, the value kept out.
using SeriesCombine = double (*)(double kept, double added);
double keep_first(double kept, double added);
double keep_lowest(double kept, double added);
double keep_highest(double kept, double added);

bool valid_metric_name(std::string_view name);  // [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_label_name(std::string_view name);   // [a-zA-Z_][a-zA-Z0-9_]*, not "__" reserved

// Data from elsewhere as a label value: printable() (no control bytes, valid
// UTF-8), cut at kMaxLabelValueBytes on a character boundary; not yet
// escaped for the exposition.
std::string label_value(std::string_view data);

// Backslash, double quote and line feed escaped as the format requires.
std::string escape_label_value(std::string_view value);

// A sample value: shortest round-trip form, NaN, +Inf, -Inf.
std::string sample_value(double v);

// The gauges of one output, in the order their families were declared.
// Names are the program's own: an invalid one is a programming error
// (std::invalid_argument), as is a sample of an undeclared family.
class PrometheusText {
 public:
  void gauge(const std::string& name, const std::string& help);
  // Labels are sanitized with label_value(); a repeated series is folded
  // with `combine` rather than written twice.
  void add(const std::string& name, const PrometheusLabels& labels, double value, SeriesCombine combine = keep_first);
  std::string text() const;  // families without samples are left out

 private:
  struct Family {
    std::string name, help;
    std::vector<std::pair<std::string, double>> samples;  // rendered labels, value
    std::map<std::string, std::size_t> index;             // rendered labels -> sample
  };
  std::vector<Family> families_;
};

}  // namespace gdrcheck

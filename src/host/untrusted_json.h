// The one way gdrcheck reads JSON it did not write itself in this process:
// node reports from other machines, manifests, bandwidth files, perftest
// output, node descriptions. Such text may be hostile, so the reader
//  - bounds the nesting depth: the parser is iterative, but copying,
//    comparing, printing and walking a document recurse, and 100,000
//    levels overflow the stack;
//  - refuses a key given twice in one object: the library keeps the last
//    one, so a report saying "status": "CRITICAL", then "status": "OK"
//    would silently read as OK;
// and every whole number is read through one checked accessor, because
// converting a double such as 1e300 to an int is undefined behaviour.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "topology/input_error.h"

namespace gdrcheck {

// Real documents are less than 20 levels deep (node descriptions, the
// deepest, nest PCIe switches); 64 leaves room and keeps recursion small.
inline constexpr std::size_t kMaxJsonDepth = 64;

struct UntrustedJsonOptions {
  std::size_t max_depth = kMaxJsonDepth;
  bool allow_comments = false;  // node descriptions are hand-written and may carry // comments
};

// Text that is not JSON at all (it breaks the grammar): an InputError with
// the problem "not valid JSON: <detail>", where `detail` is the parser's
// own description ("parse error at line 1, column 2: ..."), kept apart so
// a reader can word it its own way.
class JsonSyntaxError : public InputError {
 public:
  JsonSyntaxError(std::string file, const std::string& detail)
      : InputError(std::move(file), "not valid JSON: " + detail), detail_(detail) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};

// The document in `text`. Throws JsonSyntaxError when it is not JSON, and
// InputError(file, problem) when it is nested deeper than the bound
// ("nested deeper than 64 levels; not a <what>") or has a key twice in one
// object ("key \"status\" appears twice in one object (line 3, column
// 12)"). Nothing else escapes but std::bad_alloc.
nlohmann::json parse_untrusted_json(std::string_view text, const std::string& file, const std::string& what,
                                    const UntrustedJsonOptions& options = {});

// A JSON value read as a whole number in [min, max]: `value` is set, or
// `problem` says why not, naming `name`:
// "\"port\" must be a whole number from 0 to 65535, not 1e+300".
// Integral floats (8.0) are accepted; fractions, out-of-range values and
// anything that is not a number are refused.
struct WholeNumber {
  std::optional<long long> value;
  std::string problem;
};
WholeNumber read_whole_number(const nlohmann::json& v, const std::string& name, long long min, long long max);

// A value from a document as message text: a string quoted, with control
// bytes and everything beyond ASCII escaped (a terminal acts on C1 codes
// such as U+009B too) and cut when long ("\"\\u001b[2J\""); a number as written;
// anything else as json_value_description says it.
std::string json_shown(const nlohmann::json& v);

// What a value is, for "expected X, not <this>" messages: "a string",
// "an object", "null", or the number itself ("8.5", "1e+300").
std::string json_value_description(const nlohmann::json& v);

}  // namespace gdrcheck

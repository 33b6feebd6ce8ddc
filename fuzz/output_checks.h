// What every rendered output must satisfy, whatever the data behind it:
// JSON text parses back (a consumer of --json must never choke), and human
// text carries no control byte but newlines, tabs and SGR colour sequences
// (data from other machines must not move the cursor, retitle the
// terminal or hide lines). A violation aborts so that the fuzzer reports
// the input.
//
// These are the targets' oracle, not code under test: output_checks.cc is
// built without coverage instrumentation (fuzz/CMakeLists.txt), so that
// the fuzzer spends neither time nor corpus entries on the branches of the
// JSON parser that checks our output.
#pragma once

#include <string_view>

namespace fuzz_checks {

void json_parses_back(std::string_view text);

void text_is_clean(std::string_view text);

}  // namespace fuzz_checks

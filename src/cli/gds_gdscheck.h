// `gdrcheck gds --gdscheck FILE`: a `gdscheck -p` output read from the file
// the user names and cross-checked with the files the report was built
// from (checks/gds_checks.h, check_gds_gdscheck). gds_command.cc only wires
// this into `gds`.
#pragma once

#include <string>

#include "checks/gds_report.h"
#include "evidence/gdscheck.h"
#include "host/gds_state.h"

namespace gdrcheck {

struct GdscheckInput {
  std::string file;  // as the user named it
  GdscheckReport report;
};

// Reads FILE ("-" for standard input) with the user-file reader. Throws
// InputError(FILE, …) when it cannot be read or does not look like
// gdscheck -p output, so nothing is run or printed for a wrong file.
GdscheckInput read_gdscheck_input(const std::string& file);

// The cross-check's findings appended to the report, and the report's
// status made the worst of all.
void append_gdscheck_crosscheck(GdsReport& r, const GdsState& g, const GdscheckInput& in);

}  // namespace gdrcheck

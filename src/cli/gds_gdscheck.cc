#include "cli/gds_gdscheck.h"

#include <optional>

#include "checks/gds_checks.h"
#include "evidence/cufile_config.h"
#include "host/user_file.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

// A gdscheck -p output is a few KiB; anything this large is something else.
constexpr std::size_t kMaxGdscheckBytes = 1u << 20;

}  // namespace

GdscheckInput read_gdscheck_input(const std::string& file) {
  std::string text = read_user_file(file, kMaxGdscheckBytes, "gdscheck -p output");
  if (!looks_like_gdscheck(text))
    throw InputError(file,
                     "not gdscheck -p output (no \"GDS release version\" or \"nvidia_fs version\" line, no section "
                     "title, fewer than three transport rows)");
  return {file, parse_gdscheck(text)};
}

void append_gdscheck_crosscheck(GdsReport& r, const GdsState& g, const GdscheckInput& in) {
  // The same configuration the report judged (build_gds_report reads it
  // from the state the same way).
  std::optional<CufileConfig> config;
  if (g.cufile_path && g.cufile_text) config = parse_cufile_config(*g.cufile_text, *g.cufile_path);
  auto findings = check_gds_gdscheck(g, config, in.report, in.file);
  r.findings.insert(r.findings.end(), findings.begin(), findings.end());
  r.status = worst_status(r.findings);
}

}  // namespace gdrcheck

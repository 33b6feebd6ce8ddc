#include "report/gds_text.h"

#include <sstream>

#include "host/text_format.h"
#include "report/terminal_text.h"

namespace gdrcheck {

std::string render_gds_text(const GdsReport& r) {
  std::ostringstream out;
  out << "gdrcheck gds: " << safe_line(r.host) << " (root " << safe_line(r.root) << ")\n";
  out << "cuFile configuration: " << (r.cufile.empty() ? std::string("none found") : safe_line(r.cufile)) << "\n";
  if (r.watch)
    out << "watched: " << safe_line(join(r.watch->command, " ")) << " (" << safe_line(r.watch->outcome) << ")\n";
  out << "\n";
  int counts[4] = {0, 0, 0, 0};
  for (const auto& f : r.findings) {
    ++counts[static_cast<int>(f.status)];
    out << status_name(f.status) << "  " << safe_line(f.check) << " " << safe_line(f.subject) << ": "
        << safe_line(f.summary) << "\n";
    for (const auto& e : f.evidence) out << "    evidence: " << safe_line(e) << "\n";
    if (!f.fix.empty() && f.status != Status::Ok) out << "    fix: " << safe_line(f.fix) << "\n";
  }
  out << "\n"
      << status_name(r.status) << ": " << safe_line(r.host) << ": GPUDirect Storage; "
      << counts[static_cast<int>(Status::Critical)] << " critical, " << counts[static_cast<int>(Status::Warning)]
      << " warning, " << counts[static_cast<int>(Status::Unknown)] << " unknown findings\n";
  return terminal_guard(out.str(), false);
}

}  // namespace gdrcheck

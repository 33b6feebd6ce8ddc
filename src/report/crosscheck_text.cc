#include "report/crosscheck_text.h"

#include <sstream>

#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kUnseenListed = 4;

std::string side_text(const CrosscheckSide& s) {
  return (s.nic.empty() ? std::string("NIC ?") : safe_line(s.nic)) + " GDR " + (s.gdr_send.empty() ? "?" : s.gdr_send) +
         "/" + (s.gdr_recv.empty() ? "?" : s.gdr_recv);
}

std::string who(const CrosscheckRow& r) {
  std::string host = r.host.empty() ? "" : safe_line(r.host) + " ";
  std::string gpu = r.gpu.empty() ? "GPU ?" : safe_line(r.gpu);
  return host + (r.rank >= 0 ? "rank " + std::to_string(r.rank) : std::string("rank ?")) + "  " + gpu;
}

std::string verdict(const CrosscheckRow& r) {
  if (r.agree == "yes") return r.cause.empty() ? "agree" : "agree (" + safe_line(r.cause) + ")";
  if (r.agree == "no") return "differs: " + safe_line(r.cause);
  return "inconclusive: " + safe_line(r.cause);
}

}  // namespace

std::string render_crosscheck_text(const Crosscheck& c) {
  std::ostringstream out;
  out << "Cross-check: " << safe_line(c.topology) << " predicted vs " << safe_line(c.log) << " observed\n";
  out << "  predicted with " << safe_line(c.predicted_with) << "\n";
  for (const auto& n : c.notes) out << "  - " << safe_line(n) << "\n";
  std::size_t unseen = 0;
  for (const auto& r : c.rows) {
    // Ranks the log shows nothing of are counted, not listed, past a few.
    if (r.observed_by.empty() && !r.gpu.empty() && ++unseen > kUnseenListed) continue;
    out << "  " << who(r);
    if (!r.mapped_by.empty()) out << " (" << safe_line(r.mapped_by) << ")";
    out << "  predicted " << (r.gpu.empty() ? "-" : side_text(r.predicted)) << "  ·  log ";
    out << (r.observed_by.empty() ? std::string("-") : side_text(r.observed) + " (" + safe_line(r.observed_by) + ")");
    out << "  ·  " << verdict(r) << "\n";
  }
  if (unseen > kUnseenListed)
    out << "  ... and " << unseen - kUnseenListed << " more ranks the log shows no NET channel line of\n";
  if (c.rows.empty()) out << "  no rank of the log could be placed (no Init, rank, channel or GPU Direct RDMA lines)\n";
  out << "\n";
  return out.str();
}

}  // namespace gdrcheck

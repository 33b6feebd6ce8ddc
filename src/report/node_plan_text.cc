#include "report/node_plan_text.h"

#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

std::string pair_text(const PairVerdict& p) {
  return safe_line(p.nic_name.empty() ? "no NIC" : p.nic_name) + " " + (p.path.empty() ? "-" : p.path) + " " +
         gdr_use_name(p.gdr_send) + "/" + gdr_use_name(p.gdr_recv);
}

const PairVerdict* pair_of(const std::vector<PairVerdict>& pairs, const std::string& gpu) {
  for (const auto& p : pairs)
    if (p.gpu == gpu) return &p;
  return nullptr;
}

bool same(const PairVerdict& a, const PairVerdict& b) {
  return a.nic == b.nic && a.path == b.path && a.gdr_send == b.gdr_send && a.gdr_recv == b.gdr_recv;
}

}  // namespace

std::vector<std::string> plan_lines(const NodeReport& r) {
  std::vector<std::string> out;
  for (const auto& s : r.plan) {
    std::string line = safe_line(s.gpu) + "  ";
    if (s.gets_gdr)
      line += "GDR: " + safe_line(s.how);
    else
      line += "no GDR" + (s.how.empty() ? "" : " (" + safe_line(s.how) + ")") + ": " + safe_line(s.why_not) +
              (s.change.empty() ? "" : "; change: " + safe_line(s.change));
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> what_if_lines(const NodeReport& r) {
  std::vector<std::string> out;
  for (const auto& m : r.what_if) out.push_back("moved: " + safe_line(m));
  std::size_t changed = 0;
  for (const auto& after : r.pairs) {
    const PairVerdict* before = pair_of(r.before_what_if, after.gpu);
    if (before && same(*before, after)) continue;
    ++changed;
    out.push_back(safe_line(after.gpu) + "  " + (before ? pair_text(*before) : "-") + "  ->  " + pair_text(after));
  }
  if (changed == 0) out.push_back("no GPU's NIC, path or GDR changed");
  return out;
}

}  // namespace gdrcheck

#include "report/node_text.h"

#include <map>
#include <sstream>

#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

std::string_view colour(Status s) {
  switch (s) {
    case Status::Ok:
      return sgr::kGreen;
    case Status::Warning:
      return sgr::kYellow;
    case Status::Critical:
      return sgr::kRed;
    case Status::Unknown:
      return sgr::kMagenta;
  }
  return sgr::kReset;
}

std::string status_cell(Status s, const NodeTextOptions& o, std::size_t width) {
  std::string name = status_name(s);
  return painted(name, colour(s), o.color) + std::string(width > name.size() ? width - name.size() : 1, ' ');
}

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

// A data value padded to `w` columns, measured after escaping.
std::string data_cell(const std::string& data, std::size_t w) {
  return pad(safe_line(data.empty() ? "-" : data), w);
}

void write_table(std::ostream& out, const NodeReport& r, const NodeTextOptions& o) {
  if (r.pairs.empty()) return;
  out << pad("GPU", 6) << pad("NIC", 10) << pad("PATH", 6) << pad("NCCL", 6) << pad("GDR send/recv", 15)
      << pad("VERDICT", 10) << "REASON\n";
  for (const auto& p : r.pairs) {
    if (o.quiet && p.status == Status::Ok) continue;
    out << data_cell(p.gpu, 6) << data_cell(p.nic_name, 10) << data_cell(p.path, 6) << data_cell(p.nccl_path, 6)
        << pad(std::string(gdr_use_name(p.gdr_send)) + "/" + gdr_use_name(p.gdr_recv), 15)
        << status_cell(p.status, o, 10) << safe_line(p.reason) << "\n";
  }
  out << "\n";
}

void write_finding(std::ostream& out, const Finding& f, const NodeTextOptions& o) {
  out << "  " << status_cell(f.status, o, 10) << data_cell(f.subject, 14) << safe_line(f.summary) << "\n";
  if (f.status == Status::Ok && !o.verbose) return;
  // Evidence may quote a whole file (/proc/driver/nvidia/version): its
  // lines continue under the value.
  for (const auto& e : f.evidence) out << "              evidence: " << safe_lines(e, std::string(24, ' ')) << "\n";
  if (!f.fix.empty()) out << "              fix: " << safe_lines(f.fix, std::string(19, ' ')) << "\n";
}

// One block per check: every finding that is not OK in full; OK ones one
// line each with --verbose, otherwise counted ("12 OK: GPU0 ... GPU7").
void write_check(std::ostream& out, const std::vector<const Finding*>& fs, const NodeTextOptions& o) {
  std::vector<const Finding*> fine;
  for (const Finding* f : fs) {
    if (f->status != Status::Ok || o.verbose)
      write_finding(out, *f, o);
    else
      fine.push_back(f);
  }
  if (fine.empty() || o.quiet) return;
  if (fine.size() == 1) {
    write_finding(out, *fine.front(), o);
    return;
  }
  std::string subjects;
  for (std::size_t i = 0; i < fine.size() && i < 6; ++i) subjects += (i ? ", " : "") + safe_line(fine[i]->subject);
  if (fine.size() > 6) subjects += ", ...";
  bool others = fine.size() < fs.size();
  out << "  " << status_cell(Status::Ok, o, 10) << fine.size() << (others ? " more" : "") << " OK: " << subjects
      << " (-v shows each)\n";
}

void write_findings(std::ostream& out, const NodeReport& r, const NodeTextOptions& o) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Finding*>> by_check;
  for (const auto& f : r.findings) {
    if (o.quiet && f.status == Status::Ok) continue;
    if (!by_check.count(f.check)) order.push_back(f.check);
    by_check[f.check].push_back(&f);
  }
  for (const auto& check : order) {
    out << "[" << safe_line(check) << "]\n";
    write_check(out, by_check[check], o);
  }
}

}  // namespace

std::string node_summary_line(const NodeReport& r) {
  int ready = 0, crit = 0, warn = 0, unknown = 0;
  for (const auto& p : r.pairs) ready += p.ready();
  for (const auto& f : r.findings) {
    crit += f.status == Status::Critical;
    warn += f.status == Status::Warning;
    unknown += f.status == Status::Unknown;
  }
  std::ostringstream s;
  s << status_name(r.status) << ": " << safe_line(r.host) << ": " << r.pairs.size() << " GPU"
    << (r.pairs.size() == 1 ? "" : "s") << ", " << ready << " GPUDirect-ready, " << r.pairs.size() - ready << " not; "
    << crit << " critical, " << warn << " warning, " << unknown << " unknown findings";
  return s.str();
}

std::string render_node_text(const NodeReport& r, const NodeTextOptions& o) {
  std::ostringstream out;
  if (!o.quiet) {
    out << "gdrcheck node: " << safe_line(r.host) << " (root " << safe_line(r.root) << ")\n";
    out << "NCCL " << safe_line(r.nccl.describe()) << "\n";
    if (r.nccl_topology != "sysfs") out << "NCCL topology from " << safe_line(r.nccl_topology) << "\n";
    out << "\n";
    write_table(out, r, o);
  }
  write_findings(out, r, o);
  out << (o.quiet ? "" : "\n") << node_summary_line(r) << "\n";
  return terminal_guard(out.str(), o.color);
}

}  // namespace gdrcheck

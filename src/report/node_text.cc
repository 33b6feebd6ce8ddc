#include "report/node_text.h"

#include <map>
#include <sstream>

namespace gdrcheck {
namespace {

const char* colour(Status s) {
  switch (s) {
    case Status::Ok:
      return "\033[32m";
    case Status::Warning:
      return "\033[33m";
    case Status::Critical:
      return "\033[31m";
    case Status::Unknown:
      return "\033[35m";
  }
  return "";
}

std::string status_cell(Status s, const NodeTextOptions& o, std::size_t width) {
  std::string name = status_name(s);
  std::string padded = name + std::string(width > name.size() ? width - name.size() : 1, ' ');
  return o.color ? colour(s) + name + "\033[0m" + padded.substr(name.size()) : padded;
}

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

void write_table(std::ostream& out, const NodeReport& r, const NodeTextOptions& o) {
  if (r.pairs.empty()) return;
  out << pad("GPU", 6) << pad("NIC", 10) << pad("PATH", 6) << pad("NCCL", 6) << pad("GDR send/recv", 15)
      << pad("VERDICT", 10) << "REASON\n";
  for (const auto& p : r.pairs) {
    if (o.quiet && p.status == Status::Ok) continue;
    out << pad(p.gpu, 6) << pad(p.nic_name.empty() ? "-" : p.nic_name, 10) << pad(p.path.empty() ? "-" : p.path, 6)
        << pad(p.nccl_path, 6) << pad(std::string(gdr_use_name(p.gdr_send)) + "/" + gdr_use_name(p.gdr_recv), 15)
        << status_cell(p.status, o, 10) << p.reason << "\n";
  }
  out << "\n";
}

void write_finding(std::ostream& out, const Finding& f, const NodeTextOptions& o) {
  out << "  " << status_cell(f.status, o, 10) << pad(f.subject, 14) << f.summary << "\n";
  if (f.status == Status::Ok && !o.verbose) return;
  for (const auto& e : f.evidence) out << "              evidence: " << e << "\n";
  if (!f.fix.empty()) out << "              fix: " << f.fix << "\n";
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
  for (std::size_t i = 0; i < fine.size() && i < 6; ++i) subjects += (i ? ", " : "") + fine[i]->subject;
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
    out << "[" << check << "]\n";
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
  s << status_name(r.status) << ": " << r.host << ": " << r.pairs.size() << " GPU" << (r.pairs.size() == 1 ? "" : "s")
    << ", " << ready << " GPUDirect-ready, " << r.pairs.size() - ready << " not; " << crit << " critical, " << warn
    << " warning, " << unknown << " unknown findings";
  return s.str();
}

std::string render_node_text(const NodeReport& r, const NodeTextOptions& o) {
  std::ostringstream out;
  if (!o.quiet) {
    out << "gdrcheck node: " << r.host << " (root " << r.root << ")\n";
    out << "NCCL " << r.nccl.describe() << "\n";
    if (r.nccl_topology != "sysfs") out << "NCCL topology from " << r.nccl_topology << "\n";
    out << "\n";
    write_table(out, r, o);
  }
  write_findings(out, r, o);
  out << (o.quiet ? "" : "\n") << node_summary_line(r) << "\n";
  return out.str();
}

}  // namespace gdrcheck

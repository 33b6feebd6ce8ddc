#include "report/node_text.h"

#include <map>
#include <sstream>

#include "checks/policy.h"
#include "report/finding_fold.h"
#include "report/node_plan_text.h"
#include "report/terminal_text.h"
#include "report/text_wrap.h"

namespace gdrcheck {
namespace {

// Where continuation lines start: under the summary of a finding, under
// the value of an evidence or fix line, under the REASON column.
constexpr std::size_t kSummaryColumn = 12, kNoteColumn = 16, kEvidenceColumn = 24, kFixColumn = 19, kReasonColumn = 53;
// A reason wrapped into fewer columns than this reads one word per line:
// below it, the reason continues under the NIC column instead.
constexpr std::size_t kNarrowestReason = 30, kRowHang = 6;
// OK subjects listed before "…" on a counted line.
constexpr std::size_t kOkSubjectsShown = 8;

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
  std::size_t shown = display_width(s);
  return shown >= w ? s + " " : s + std::string(w - shown, ' ');
}

// A data value padded to `w` columns, measured after escaping.
std::string data_cell(const std::string& data, std::size_t w) {
  return pad(safe_line(data.empty() ? "-" : data), w);
}

// Writes lines the renderer built: ASCII when the locale wants it, then
// wrapped with continuation lines starting at `hang`. Several lines (evidence
// quoting a file) each wrap on their own.
class Writer {
 public:
  Writer(std::ostream& out, const NodeTextOptions& o) : out_(out), o_(o) {}

  void line(const std::string& text, std::size_t hang) {
    std::string ascii;
    std::string_view shown = text;
    if (!o_.utf8) shown = ascii = ascii_text(text);
    std::string indent(hang, ' ');
    std::size_t start = 0;
    for (;;) {
      std::size_t end = shown.find('\n', start);
      std::string_view one = shown.substr(start, end == std::string_view::npos ? end : end - start);
      if (o_.width > 0)
        out_ << wrap_line(one, static_cast<std::size_t>(o_.width), indent) << "\n";
      else
        out_ << one << "\n";
      if (end == std::string_view::npos) return;
      start = end + 1;
    }
  }
  // A line that must stay whole (the summary scripts read).
  void unwrapped(const std::string& text) { out_ << (o_.utf8 ? text : ascii_text(text)) << "\n"; }
  const NodeTextOptions& options() const { return o_; }

 private:
  std::ostream& out_;
  const NodeTextOptions& o_;
};

std::string ellipsis(const NodeTextOptions& o) {
  return o.utf8 ? "\u2026" : "...";
}

void write_table(Writer& w, const NodeReport& r) {
  const NodeTextOptions& o = w.options();
  if (r.pairs.empty()) return;
  std::size_t hang =
      o.width <= 0 || static_cast<std::size_t>(o.width) >= kReasonColumn + kNarrowestReason ? kReasonColumn : kRowHang;
  w.line(pad("GPU", 6) + pad("NIC", 10) + pad("PATH", 6) + pad("NCCL", 6) + pad("GDR send/recv", 15) +
             pad("VERDICT", 10) + "REASON",
         hang);
  for (const auto& p : r.pairs) {
    if (o.quiet && p.status == Status::Ok) continue;
    w.line(data_cell(p.gpu, 6) + data_cell(p.nic_name, 10) + data_cell(p.path, 6) + data_cell(p.nccl_path, 6) +
               pad(std::string(gdr_use_name(p.gdr_send)) + "/" + gdr_use_name(p.gdr_recv), 15) +
               status_cell(p.status, o, 10) + safe_line(p.reason),
           hang);
  }
  w.line("", 0);
}

void write_evidence(Writer& w, const std::string& label, const std::string& e) {
  w.line(std::string(14, ' ') + label + safe_lines(e, std::string(kEvidenceColumn, ' ')), kEvidenceColumn);
}

void write_policy_note(Writer& w, const Finding& f) {
  w.line(std::string(14, ' ') + safe_line(policy_note(f)), kNoteColumn);
}

void write_fix(Writer& w, const Finding& f) {
  if (!f.fix.empty()) w.line("              fix: " + safe_lines(f.fix, std::string(kFixColumn, ' ')), kFixColumn);
}

// A finding the site policy changed to OK: its line and the policy's note,
// so a passed check never hides that it was passed by decision.
bool policy_passed(const Finding& f) {
  return f.status == Status::Ok && !policy_note(f).empty();
}

void write_finding(Writer& w, const Finding& f) {
  const NodeTextOptions& o = w.options();
  w.line("  " + status_cell(f.status, o, 10) + data_cell(f.subject, 14) + safe_line(f.summary), kSummaryColumn);
  if (f.status == Status::Ok && !o.verbose) {
    if (policy_passed(f)) write_policy_note(w, f);
    return;
  }
  // Evidence may quote a whole file (/proc/driver/nvidia/version): its
  // lines continue under the value.
  for (const auto& e : f.evidence) write_evidence(w, "evidence: ", e);
  write_fix(w, f);
}

// Several findings with one status, summary and fix: the subjects folded,
// the shared evidence once, each subject's own evidence labelled with it
// (the first subject's only, unless --verbose).
void write_fold(Writer& w, const FoldedFinding& fold) {
  const NodeTextOptions& o = w.options();
  const Finding& f = *fold.first;
  std::vector<std::string> subjects;
  for (const Finding* m : fold.members) subjects.push_back(safe_line(m->subject));
  w.line("  " + status_cell(f.status, o, 10) + fold_subjects(subjects, o.utf8) + " (" +
             std::to_string(fold.members.size()) + "): " + safe_line(f.summary),
         kSummaryColumn);
  if (f.status == Status::Ok && !o.verbose) {
    if (policy_passed(f)) write_policy_note(w, f);
    return;
  }
  for (const auto& e : fold.shared_evidence) write_evidence(w, "evidence: ", e);
  std::size_t others = 0;
  for (std::size_t i = 0; i < fold.members.size(); ++i) {
    if (fold.own_evidence[i].empty()) continue;
    if (i > 0 && !o.verbose) {
      ++others;
      continue;
    }
    for (const auto& e : fold.own_evidence[i]) write_evidence(w, subjects[i] + ": ", e);
  }
  if (others > 0)
    w.line(std::string(14, ' ') + ellipsis(o) + " and " + std::to_string(others) +
               " more with evidence of their own (-v shows each)",
           kEvidenceColumn);
  write_fix(w, f);
}

// OK findings of a check counted on one line ("12 OK: mlx5_0–11").
void write_ok_count(Writer& w, const std::vector<const Finding*>& fine, bool others) {
  const NodeTextOptions& o = w.options();
  std::vector<std::string> subjects;
  for (const Finding* f : fine) subjects.push_back(safe_line(f->subject));
  std::string folded = fold_subjects(subjects, o.utf8);
  // Cut the list, not a subject: at the separator after the last one shown.
  std::size_t cut = 0;
  for (std::size_t i = 0; i < kOkSubjectsShown && cut != std::string::npos; ++i) cut = folded.find(", ", cut + 1);
  if (cut != std::string::npos) folded = folded.substr(0, cut) + ", " + ellipsis(o);
  w.line("  " + status_cell(Status::Ok, o, 10) + std::to_string(fine.size()) + (others ? " more" : "") +
             " OK: " + folded + " (-v shows each)",
         kSummaryColumn);
}

// One block per check: every finding that is not OK in full, findings of
// one root cause folded; OK ones one line each with --verbose, otherwise
// counted. A finding the site policy passed is always shown with its note,
// --quiet included: it may be an UNKNOWN nobody could verify.
void write_check(Writer& w, const std::vector<const Finding*>& fs) {
  const NodeTextOptions& o = w.options();
  std::vector<const Finding*> shown, fine;
  for (const Finding* f : fs) (f->status != Status::Ok || o.verbose || policy_passed(*f) ? shown : fine).push_back(f);
  for (const auto& fold : fold_findings(shown)) {
    if (fold.members.size() == 1)
      write_finding(w, *fold.first);
    else
      write_fold(w, fold);
  }
  if (fine.empty() || o.quiet) return;
  if (fine.size() == 1)
    write_finding(w, *fine.front());
  else
    write_ok_count(w, fine, fine.size() < fs.size());
}

void write_findings(Writer& w, const NodeReport& r) {
  const NodeTextOptions& o = w.options();
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Finding*>> by_check;
  for (const auto& f : r.findings) {
    if (o.quiet && f.status == Status::Ok && !policy_passed(f)) continue;
    if (!by_check.count(f.check)) order.push_back(f.check);
    by_check[f.check].push_back(&f);
  }
  for (const auto& check : order) {
    w.line("[" + safe_line(check) + "]", 1);
    write_check(w, by_check[check]);
  }
}

}  // namespace

NodeTextOptions node_text_options(const OutputStyle& style, bool quiet, bool verbose) {
  return {style.color, quiet, verbose, style.utf8, style.width};
}

std::string node_summary_line(const NodeReport& r) {
  int ready = 0, crit = 0, warn = 0, unknown = 0, by_policy = 0;
  for (const auto& p : r.pairs) ready += p.ready();
  for (const auto& f : r.findings) {
    crit += f.status == Status::Critical;
    warn += f.status == Status::Warning;
    unknown += f.status == Status::Unknown;
    by_policy += !policy_note(f).empty();
  }
  std::ostringstream s;
  s << status_name(r.status) << ": " << safe_line(r.host) << ": " << r.pairs.size() << " GPU"
    << (r.pairs.size() == 1 ? "" : "s") << ", ";
  if (r.from_topology_file) {
    // A plan: what the topology gives, the host facts being the host finding's.
    int gdr = 0;
    for (const auto& p : r.pairs) gdr += p.gdr_send == GdrUse::Yes && p.gdr_recv == GdrUse::Yes;
    s << gdr << " get GPUDirect RDMA from this topology, " << r.pairs.size() - gdr << " do not; ";
  } else {
    s << ready << " GPUDirect-ready, " << r.pairs.size() - ready << " not; ";
  }
  s << crit << " critical, " << warn << " warning, " << unknown << " unknown findings";
  if (by_policy > 0) s << "; " << by_policy << " changed by site policy";
  return s.str();
}

std::string render_node_text(const NodeReport& r, const NodeTextOptions& o) {
  std::ostringstream out;
  Writer w(out, o);
  if (!o.quiet) {
    if (r.from_topology_file)
      w.line("gdrcheck node: topology file " + safe_line(r.root) + " (" + source_kind_name(r.topology.kind) +
                 "); host facts " + (r.assumed.empty() ? "not stated" : "stated: " + safe_line(r.assumed)),
             2);
    else
      w.line("gdrcheck node: " + safe_line(r.host) + " (root " + safe_line(r.root) + ")", 2);
    w.line("NCCL " + safe_line(r.nccl.describe()), 2);
    if (r.nccl_topology != "sysfs") w.line("NCCL topology from " + safe_line(r.nccl_topology), 2);
    w.line("", 0);
    if (!r.what_if.empty()) {
      w.line("What if (the report below is of the edited topology):", 2);
      for (const auto& l : what_if_lines(r)) w.line("  " + l, 8);
      w.line("", 0);
    }
    write_table(w, r);
    if (!r.plan.empty()) {
      w.line("Plan (what this topology gives each GPU, and the smallest change where it gives no GDR):", 2);
      for (const auto& l : plan_lines(r)) w.line("  " + l, 8);
      w.line("", 0);
    }
  }
  write_findings(w, r);
  if (!o.quiet) w.line("", 0);
  w.unwrapped(node_summary_line(r));
  return terminal_guard(out.str(), o.color);
}

}  // namespace gdrcheck

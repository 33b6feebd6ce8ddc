#include "report/bench_text.h"

#include <cstdio>
#include <sstream>

#include "host/text_format.h"
#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

void findings_text(std::ostringstream& o, const std::vector<Finding>& findings, bool verbose) {
  int ok_count = 0;
  for (const auto& f : findings) {
    if (f.status == Status::Ok && !verbose) {
      ++ok_count;
      continue;
    }
    o << "  [" << status_name(f.status) << "] " << safe_line(f.check) << " " << safe_line(f.subject) << ": "
      << safe_line(f.summary) << "\n";
    for (const auto& e : f.evidence) o << "      " << safe_lines(e, "        ") << "\n";
    if (!f.fix.empty()) o << "      fix: " << safe_lines(f.fix, std::string(11, ' ')) << "\n";
  }
  if (ok_count) o << "  " << ok_count << " OK finding(s) (-v lists them)\n";
}

void run_lines(std::ostringstream& o, const std::vector<NcclRunResult>& runs) {
  for (const auto& r : runs) {
    o << "  " << safe_line(r.label) << ": "
      << safe_line(r.could_not_run.empty() ? r.end : "could not run — " + r.could_not_run);
    if (r.large) o << ", busbw " << fixed(r.large->busbw) << " GB/s at " << r.large->size << " B";
    o << "\n    raw output: " << (r.raw_output.empty() ? "(none)" : safe_line(r.raw_output)) << "\n";
  }
}

void busbw_table(std::ostringstream& o, const NcclRunResult& r) {
  o << "busbw table (" << safe_line(r.label) << ", out-of-place; GB/s):\n";
  o << "  " << std::string(14 - 4, ' ') << "size"
    << "   algbw   busbw\n";
  for (const auto& p : r.table) {
    char line[96];
    std::snprintf(line, sizeof line, "  %14llu %7.2f %7.2f\n", static_cast<unsigned long long>(p.size), p.algbw,
                  p.busbw);
    o << line;
  }
}

}  // namespace

std::string render_nccl_bench_text(const NcclBenchReport& r, bool verbose) {
  std::ostringstream o;
  o << "gdrcheck bench nccl: " << safe_line(r.test) << " on " << r.nodes << " node(s) x " << r.ranks_per_node
    << " GPU(s), launcher " << bench_launcher_name(r.launcher);
  if (!r.hosts.empty()) o << " (" << safe_line(join(r.hosts, ",")) << ")";
  o << "\n";
  for (const auto& n : r.env_notes) o << "  note: " << safe_line(n) << "\n";
  o << "runs:\n";
  run_lines(o, r.gdr_on);
  run_lines(o, r.gdr_off);
  for (const auto& run : r.gdr_on)
    if (run.could_not_run.empty()) {
      o << "GPUDirect RDMA proof (" << safe_line(run.label) << ", NCCL "
        << (run.nccl_version.empty() ? "?" : safe_line(run.nccl_version)) << ", "
        << (run.net_transport.empty() ? "network ?" : safe_line(run.net_transport)) << "): log verdict "
        << gdr_verdict_name(run.gdr) << "\n";
      for (const auto& n : run.nodes)
        o << "  " << (n.host.empty() ? "(host not printed)" : safe_line(n.host)) << ": " << n.gdr << "/"
          << n.connections << " connections GDRDMA (send " << n.send_gdr << "/" << n.send << ", receive " << n.recv_gdr
          << "/" << n.recv << ")\n";
      busbw_table(o, run);
      break;
    }
  o << "bandwidth:\n";
  if (r.busbw_on)
    o << "  large-message busbw " << fixed(r.busbw_on->median) << " GB/s (median of " << r.busbw_on->count
      << ", spread " << fixed(r.busbw_on->spread * 100, 1) << " %)\n";
  if (r.expectation.known)
    o << "  expected " << fixed(r.expectation.expected_busbw_gbytes) << " GB/s busbw, pass at "
      << fixed(r.expectation.pass_busbw_gbytes) << " GB/s (" << fixed(r.expectation.pass_ratio * 100, 0) << " %) — "
      << safe_line(r.expectation.basis) << " [" << safe_line(r.nic_source) << "]\n";
  else
    o << "  expected: unknown — " << safe_line(r.expectation.unknown_reason) << "\n";
  if (r.busbw_off) o << "  GDR off (NCCL_NET_GDR_LEVEL=LOC): " << fixed(r.busbw_off->median) << " GB/s\n";
  if (r.gain) o << "  gain with GDR on: " << (*r.gain >= 0 ? "+" : "") << fixed(*r.gain * 100, 1) << " %\n";
  o << "  units: " << safe_line(r.units) << "\n";
  o << "findings:\n";
  findings_text(o, r.findings, verbose);
  o << "verdict: " << status_name(r.status) << "\n";
  return terminal_guard(o.str(), false);
}

std::string render_rdma_bench_text(const RdmaBenchReport& r, bool verbose) {
  std::ostringstream o;
  o << "gdrcheck bench rdma: ib_write_bw per GPU-NIC pair on " << safe_line(r.node) << ", "
    << (r.launcher == BenchLauncher::Local ? std::string("loopback") : "to " + safe_line(join(r.hosts, ","))) << "\n";
  for (const auto& n : r.notes) o << "  note: " << safe_line(n) << "\n";
  o << "  pair                      Gb/s   port  ratio  host-mem\n";
  for (const auto& p : r.pairs) {
    std::string name = safe_line(p.pair.gpu + "-" + p.pair.nic);
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s %6s %6s %6s %9s\n", name.c_str(),
                  p.gpu.stats ? fixed(p.gpu.stats->median, 1).c_str() : "-",
                  p.pair.port_rate_gbps > 0 ? fixed(p.pair.port_rate_gbps, 0).c_str() : "?",
                  p.judgement && p.judgement->ratio > 0 ? fixed(p.judgement->ratio, 2).c_str() : "-",
                  p.host_gbits ? fixed(*p.host_gbits, 1).c_str() : "-");
    o << line;
  }
  o << "  units: " << safe_line(r.units) << "\n";
  o << "findings:\n";
  findings_text(o, r.findings, verbose);
  o << "verdict: " << status_name(r.status) << "\n";
  return terminal_guard(o.str(), false);
}

}  // namespace gdrcheck

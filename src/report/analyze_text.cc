#include "report/analyze_text.h"

#include <sstream>

#include "host/text_format.h"
#include "report/crosscheck_text.h"
#include "report/terminal_text.h"

namespace gdrcheck {
namespace {

std::string lines_of(const std::vector<std::size_t>& lines, std::size_t count) {
  std::string s;
  for (std::size_t l : lines) s += (s.empty() ? "" : ", ") + std::to_string(l);
  if (count > lines.size()) s += ", ... (" + std::to_string(count) + " lines)";
  return s;
}

// Data values joined, as one line of terminal text.
std::string listed(const std::vector<std::string>& items, std::string_view sep = ", ") {
  return safe_line(join(items, sep));
}

// "400", "12.5", "1.25": Gb/s without trailing zeros.
std::string gbps_text(double mbps) {
  std::ostringstream s;
  s.precision(4);
  s << mbps / 1000.0;
  return s.str();
}

// "NICs: mlx5_0 400 Gb/s (IB, port 1, node1), ...": the rates the log printed.
void write_speeds(std::ostream& out, const std::vector<NcclNetDeviceSpeed>& speeds) {
  if (speeds.empty()) return;
  out << "  NICs:";
  const char* sep = " ";
  for (const auto& d : speeds) {
    std::vector<std::string> about;
    if (!d.link_layer.empty()) about.push_back(d.link_layer);
    if (d.port) about.push_back("port " + std::to_string(*d.port));
    if (!d.host.empty()) about.push_back(d.host);
    out << sep << safe_line(d.name) << " " << gbps_text(d.speed_mbps) << " Gb/s";
    if (!about.empty()) out << " (" << listed(about) << ")";
    sep = ", ";
  }
  out << "\n";
}

void write_log(std::ostream& out, const NcclLogReport& r, bool detail) {
  out << "  " << (r.rccl ? "RCCL " : "NCCL ")
      << (r.nccl_version.empty() ? "version unknown" : safe_line(r.nccl_version));
  if (r.versions.size() > 1) out << " (versions in this file: " << listed(r.versions) << ")";
  // The rank count is the job's (nRanks); the hosts are those whose lines
  // the file holds, which a cut or one-rank log does not make the job's.
  out << "; " << r.ranks << " ranks";
  if (!r.hosts.empty()) out << "; lines from " << r.hosts.size() << " host(s): " << listed(r.hosts);
  out << "\n  network: " << (r.net_transport.empty() ? "unknown" : safe_line(r.net_transport));
  if (r.net_transport.empty() && !r.net_modules.empty())
    out << " (lines from NET/" << listed(r.net_modules, ", NET/")
        << ": loaded or tried; no line says which network NCCL used)";
  if (!r.net_devices.empty()) out << " (" << listed(r.net_devices, " ") << ")";
  if (!r.socket_interfaces.empty()) out << " sockets " << listed(r.socket_interfaces, " ");
  out << "\n";
  write_speeds(out, r.net_device_speeds);
  out << "  network connections: " << r.net_connections << ", with GDRDMA: " << r.gdr_connections << "\n";
  for (const auto& reason : r.reasons)
    out << "  - " << safe_line(reason.code) << ": " << safe_line(reason.message) << " (line "
        << lines_of(reason.lines, reason.count) << ")\n";
  for (const auto& s : r.ring_summaries)
    out << "  - note: 'use ring PXN " << s.pxn << " GDR " << s.gdr << "' (line " << s.line
        << ") is not proof by itself: it says GDR 1 on single-node communicators too\n";
  if (!detail) return;
  for (const auto& c : r.connections)
    out << "    line " << c.line << ": channel " << c.channel << "/" << c.conn_index << " " << c.from_rank << " -> "
        << c.to_rank << " [" << net_side_name(c.side) << "] NET/" << safe_line(c.net) << "/" << c.dev
        << (c.proxy_rank ? "(" + std::to_string(*c.proxy_rank) + ")" : "") << (c.gdr ? " GDRDMA" : " staged")
        << (c.shared ? " shared" : "") << (c.host.empty() ? "" : " on " + safe_line(c.host)) << "\n";
}

void write_busbw_vs_nics(std::ostream& out, const BusbwVsNics& c) {
  const BandwidthJudgement& j = c.judgement;
  out << "  - busbw vs NICs: " << status_name(j.status) << ": " << safe_line(j.summary) << "\n";
  if (c.expectation.known)
    out << "    expected " << c.expectation.expected_busbw_gbytes << " GB/s (" << safe_line(c.expectation.basis)
        << "), pass at " << c.expectation.pass_busbw_gbytes << " GB/s\n";
  for (const auto& e : j.evidence) out << "    " << safe_lines(e, "      ") << "\n";
  for (const auto& a : c.expectation.assumptions) out << "    assumed: " << safe_line(a) << "\n";
  if (!j.fix.empty()) out << "    fix: " << safe_lines(j.fix, std::string(9, ' ')) << "\n";
}

void write_tests(std::ostream& out, const NcclTestsReport& t, const std::vector<BusbwVsNics>& vs_nics) {
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    const NcclTestsRun& run = t.runs[i];
    out << "  " << (run.test_name.empty() ? "nccl-tests" : safe_line(run.test_name)) << ": " << run.rows.size()
        << " rows";
    if (!run.hosts.empty()) out << ", " << run.ranks.size() << " ranks on " << run.hosts.size() << " hosts";
    if (run.avg_busbw) out << ", avg busbw " << *run.avg_busbw << " GB/s";
    if (run.max_busbw)
      out << ", best out-of-place busbw " << *run.max_busbw << " GB/s at " << run.max_busbw_size.value_or(0) << " B";
    out << (run.failed ? ", FAILED" : "") << (run.complete ? "" : " (no footer: output cut?)") << "\n";
    for (const auto& e : run.errors) out << "  - error: " << safe_line(e) << "\n";
    for (const auto& n : run.notes) out << "  - " << safe_line(n) << "\n";
    if (i < vs_nics.size()) write_busbw_vs_nics(out, vs_nics[i]);
  }
  out << "  busbw is GB/s (1e9 bytes/s) of bus bandwidth, not Gb/s of line rate: 400 Gb/s NDR is 50 GB/s per NIC\n";
}

// One line per perftest run, its notes below it; a single run's verdict is
// the artifact's, so only its figures are repeated.
void write_perftest(std::ostream& out, const PerftestPaste& p) {
  for (const auto& r : p.runs) {
    out << "  line " << r.first_line << ": "
        << safe_line(!r.report.test.empty() ? r.report.test
                     : !r.program.empty()   ? r.program
                                            : "perftest");
    if (!r.report.device.empty()) out << " on " << safe_line(r.report.device);
    if (!r.report.link_type.empty()) out << " (" << safe_line(r.report.link_type) << ")";
    out << ", " << r.report.rows.size() << " rows";
    if (r.average_gbits) out << ", average " << fixed(*r.average_gbits, 2) << " Gb/s";
    if (r.port_rate_gbps) out << " of " << fixed(*r.port_rate_gbps, 0) << " Gb/s";
    out << ": " << status_name(r.status) << "\n";
    if (p.runs.size() > 1) out << "    " << safe_line(r.verdict) << "\n";
    for (const auto& e : r.errors) out << "    line " << e.line << ": " << safe_line(e.text) << "\n";
    for (const auto& n : r.notes) out << "    - " << safe_line(n) << "\n";
  }
}

void write_artifact(std::ostream& out, const Artifact& a, bool detail) {
  std::string file = safe_line(a.file);
  out << "== " << file << " (" << artifact_kind_name(a.kind) << ")\n";
  if (!a.error.empty()) {
    out << "  UNKNOWN: " << file << ": " << safe_line(a.error) << "\n\n";
    return;
  }
  out << "  " << status_name(a.status) << ": " << safe_line(a.verdict) << "\n";
  if (a.nccl_tests) write_tests(out, *a.nccl_tests, a.busbw_vs_nics);
  if (a.nccl_log && (a.kind == ArtifactKind::NcclLog || a.nccl_log->records > 0)) write_log(out, *a.nccl_log, detail);
  if (a.ibv)
    for (const auto& d : a.ibv->devices) {
      out << "  " << safe_line(d.name) << " fw " << (d.fw.empty() ? "?" : safe_line(d.fw)) << ":";
      for (const auto& p : d.ports)
        out << " port " << p.port << " " << safe_line(p.state) << "/" << safe_line(p.physical_state) << " "
            << (p.rate_gbps ? std::to_string(static_cast<int>(*p.rate_gbps)) + " Gb/s" : "rate ?") << " "
            << safe_line(p.link_layer) << ";";
      out << "\n";
    }
  if (a.gdscheck) {
    const GdscheckReport& g = *a.gdscheck;
    out << "  GDS " << (g.gds_version.empty() ? "?" : safe_line(g.gds_version)) << ", nvidia-fs "
        << (g.nvidia_fs_version.empty() ? "not loaded" : safe_line(g.nvidia_fs_version))
        << "; supported: " << listed(g.supported) << "; unsupported: " << listed(g.unsupported) << "\n";
    for (const auto& n : g.notes) out << "  - " << safe_line(n) << "\n";
  }
  if (a.gdsio)
    for (const auto& r : a.gdsio->runs) {
      out << "  line " << r.line << ": " << (r.io_type.empty() ? "?" : safe_line(r.io_type)) << " "
          << (r.xfer_type.empty() ? "transfer type ?" : safe_line(r.xfer_type)) << (r.xfer_from_command ? " (-x)" : "");
      if (r.threads) out << ", " << *r.threads << " threads";
      if (!r.io_size.empty()) out << ", IOSize " << safe_line(r.io_size);
      out << ", " << (r.throughput_gib_s ? fixed(*r.throughput_gib_s, 3) + " GiB/s" : "throughput ?");
      if (r.avg_latency_us) out << ", " << fixed(*r.avg_latency_us, 1) << " us avg";
      out << "\n";
    }
  if (a.cufile_log && !a.cufile_log->levels.empty()) {
    out << "  levels:";
    for (const auto& [level, n] : a.cufile_log->levels) out << " " << safe_line(level) << " " << n << ";";
    out << "\n";
  }
  if (a.perftest) write_perftest(out, *a.perftest);
  if (a.topology)
    out << "  " << a.topology->with_role(DeviceRole::Gpu).size() << " GPUs, "
        << a.topology->with_role(DeviceRole::Nic).size() << " NICs (gdrcheck topo " << file << " shows the matrix)\n";
  for (const auto& n : a.notes) out << "  - " << safe_line(n) << "\n";
  out << "\n";
}

}  // namespace

std::string render_analyze_text(const std::vector<Artifact>& artifacts, bool detail,
                                const std::vector<Crosscheck>& crosschecks) {
  std::ostringstream out;
  for (const auto& a : artifacts) write_artifact(out, a, detail);
  for (const auto& c : crosschecks) out << render_crosscheck_text(c);
  out << status_name(worse(overall_status(artifacts), crosscheck_status(crosschecks))) << ": " << artifacts.size()
      << " input" << (artifacts.size() == 1 ? "" : "s") << " analysed";
  if (!crosschecks.empty()) out << ", " << crosschecks.size() << " cross-check" << (crosschecks.size() == 1 ? "" : "s");
  out << "\n";
  return terminal_guard(out.str(), false);
}

}  // namespace gdrcheck

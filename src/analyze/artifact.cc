#include "analyze/artifact.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>

#include "analyze/gds_artifacts.h"
#include "analyze/line_source.h"
#include "analyze/nccl_log_pipeline.h"
#include "analyze/perftest_artifact.h"
#include "host/compressed_input.h"
#include "host/text_format.h"
#include "host/unique_fd.h"
#include "host/user_file.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"
#include "topology/nccl_xml_source.h"
#include "topology/path_matrix.h"
#include "topology/smi_text_source.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

void judge_nccl_log(Artifact& a, const NcclLogReport& r) {
  switch (r.verdict) {
    case GdrVerdict::Yes:
      a.status = Status::Ok;
      a.verdict = "GPUDirect RDMA: yes — every network connection in the log uses GDRDMA";
      break;
    case GdrVerdict::Partial:
      a.status = Status::Warning;
      a.verdict = "GPUDirect RDMA: partial — some network connections are staged through host memory";
      break;
    case GdrVerdict::No:
      a.status = Status::Critical;
      a.verdict = "GPUDirect RDMA: no — network traffic is staged through host memory";
      break;
    case GdrVerdict::Unknown:
      a.status = Status::Unknown;
      a.verdict = "GPUDirect RDMA: unknown — the log shows no network connection and no explicit statement";
      break;
  }
  if (!r.verdict_why.empty()) a.verdict += " (" + r.verdict_why + ")";
  // A job whose transfers failed is CRITICAL whatever GDR did: the log's
  // own completion errors say the network broke (with NCCL's hint).
  // Error 5 (flushed) only follows another error on the connection: the
  // verdict leads with the first other status the log shows.
  const NcclReason* failed = nullptr;
  std::size_t lines = 0;
  for (const auto& reason : r.reasons) {
    if (reason.code != "ib_completion_error") continue;
    lines += reason.count;
    bool flush = reason.message.rfind("IB completion error 5 ", 0) == 0;
    if (!failed || (!flush && failed->message.rfind("IB completion error 5 ", 0) == 0)) failed = &reason;
  }
  if (failed) {
    a.status = Status::Critical;
    a.verdict = failed->message + " (" + std::to_string(lines) + " completion error line" + (lines == 1 ? "" : "s") +
                "); " + a.verdict;
    return;
  }
  // A verbs call that failed while a connection was set up: NCCL returns a
  // system error and the communicator is not made — a failed job too.
  if (const NcclReason* setup = r.reason("ib_verbs_failed")) {
    a.status = Status::Critical;
    a.verdict = setup->message + "; " + a.verdict;
  }
}

// The artifact's status and exit code say what the output proves about
// GPUDirect RDMA (docs/json.md); the busbw judgement is reported beside it
// with its own status, so a slow but direct run is not called "partial".
void relate_busbw_to_nics(Artifact& a, const BandwidthOverrides& bandwidth) {
  const NcclLogReport* log = a.nccl_log ? &*a.nccl_log : nullptr;
  for (const auto& run : a.nccl_tests->runs) a.busbw_vs_nics.push_back(compare_busbw_with_nics(run, log, bandwidth));
}

void judge_nccl_tests(Artifact& a, const BandwidthOverrides& bandwidth) {
  const NcclTestsReport& t = *a.nccl_tests;
  bool failed = false;
  for (const auto& run : t.runs) failed |= run.failed;
  bool has_net = a.nccl_log && (a.nccl_log->net_connections > 0 || a.nccl_log->verdict != GdrVerdict::Unknown);
  if (has_net)
    judge_nccl_log(a, *a.nccl_log);
  else {
    a.status = Status::Unknown;
    a.verdict = "GPUDirect RDMA: unknown — no NCCL INFO lines about the network in this output";
    a.notes.push_back("rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to prove the data path");
  }
  if (failed) {
    a.status = Status::Critical;
    a.verdict = "nccl-tests reported wrong results or errors; " + a.verdict;
  }
  relate_busbw_to_nics(a, bandwidth);
}

// Each GPU by name: the ones with a NIC behind their switch, the ones
// without (NCCL stages their traffic by default), and the ones the paste
// cannot tell (a row cut off, a cell unreadable) — UNKNOWN for those, never
// counted as either.
void judge_topology(Artifact& a) {
  a.paths = compute_paths(*a.topology);
  const TopologyPaths& p = *a.paths;
  std::vector<std::string> direct, far, unknown;
  for (const auto& c : p.closest) {
    if (c.nics.empty() || c.nccl_code.empty() || c.nccl_code == "?")
      unknown.push_back(printable(c.gpu));
    else if (c.nccl_code == "PIX" || c.nccl_code == "PXB")
      direct.push_back(printable(c.gpu));
    else
      far.push_back(printable(c.gpu) + " (" + printable(c.smi_code) + ")");
  }
  if (p.closest.empty() || a.topology->with_role(DeviceRole::Nic).empty()) {
    a.status = Status::Unknown;
    a.verdict = "no GPU-NIC pair in the matrix: nothing about GPUDirect RDMA can be told";
    return;
  }
  std::string unread = unknown.empty() ? ""
                                       : join(unknown, ", ") +
                                             ": no NIC class in the paste (a row cut off or a cell unreadable), so "
                                             "unknown";
  if (far.empty() && unknown.empty()) {
    a.status = Status::Ok;
    a.verdict = "every GPU has a NIC behind its PCIe switch (PIX/PXB): GPUDirect RDMA is possible by default";
  } else if (far.empty()) {
    a.status = Status::Unknown;
    a.verdict = unread + (direct.empty() ? "" : "; " + join(direct, ", ") + " have a NIC behind their PCIe switch");
  } else {
    a.status = direct.empty() ? Status::Critical : Status::Warning;
    a.verdict = std::to_string(far.size()) + " of " + std::to_string(p.closest.size()) +
                " GPUs have no NIC behind their PCIe switch: " + join(far, ", ") +
                ": NCCL stages their traffic through host memory by default" + (unread.empty() ? "" : "; " + unread);
  }
}

// A port that is not ACTIVE carries no RDMA traffic: CRITICAL, as `node`'s
// port check says of the same fact (checks/port_check.cc), with the same
// causes named from the physical state.
std::string ibv_port_name(const IbvDevice& d, const IbvPort& p) {
  return (d.name.empty() ? std::string("a device") : printable(d.name)) +
         (p.port ? " port " + std::to_string(p.port) : "");
}

// What to do about the ports that are not ACTIVE, from their physical state.
std::string ibv_fix(const std::vector<const IbvPort*>& down) {
  for (const IbvPort* p : down)
    if (p->physical_state == "LinkUp")
      return "the link is up but the port was not brought to Active: check that a subnet manager (opensm/UFM) "
             "reaches it, and for an SR-IOV virtual function its pkey and GUID configuration; not the cable";
  for (const IbvPort* p : down)
    if (p->physical_state == "Disabled")
      return "a port is administratively disabled: enable it (ibportstate / switch configuration)";
  return "check the cable and the switch port (ibstat DEVICE PORT; mlxlink -d DEVICE)";
}

// A port proven not ACTIVE is CRITICAL (as node's port check). A port whose
// state line was cut, or a device whose port lines were, is unknown: never
// counted as down, never as ACTIVE.
void judge_ibv(Artifact& a) {
  int ports = 0;
  std::vector<std::string> down, unknown;
  std::vector<const IbvPort*> down_ports;
  for (const auto& d : a.ibv->devices) {
    if (d.ports.empty())
      unknown.push_back((d.name.empty() ? std::string("a device") : printable(d.name)) +
                        (d.unreadable ? " (ibstat could not read it)" : " (no port lines in the paste)"));
    for (const auto& p : d.ports) {
      ++ports;
      if (p.state == "ACTIVE") continue;
      if (p.state.empty()) {
        unknown.push_back(ibv_port_name(d, p) + " (no State line in the paste)");
        continue;
      }
      down_ports.push_back(&p);
      down.push_back(ibv_port_name(d, p) + " " + printable(p.state) +
                     (p.physical_state.empty() ? "" : " (physical " + printable(p.physical_state) + ")"));
    }
  }
  std::string unknown_text = unknown.empty() ? "" : "; unknown: " + join(unknown, ", ");
  if (!down.empty()) {
    a.status = Status::Critical;
    a.verdict = std::to_string(down.size()) + " of " + std::to_string(ports) +
                " ports not ACTIVE (no RDMA traffic through them): " + join(down, ", ") + unknown_text;
    a.notes.push_back(ibv_fix(down_ports));
    a.notes.push_back("gdrcheck node calls the same fact CRITICAL (check port): one severity for one fact");
  } else if (!unknown.empty()) {
    a.status = Status::Unknown;
    a.verdict = std::to_string(unknown.size()) +
                " port(s) or device(s) whose state the paste does not show: " + join(unknown, ", ") +
                (ports > 0 ? "; the other ports listed are ACTIVE" : "");
  } else if (ports == 0) {
    a.status = Status::Unknown;
    a.verdict = "no ports listed";
  } else {
    a.status = Status::Ok;
    a.verdict = "all " + std::to_string(ports) + " ports ACTIVE";
  }
}

void judge_gdscheck(Artifact& a) {
  const GdscheckReport& g = *a.gdscheck;
  if (!g.platform_verified) {
    a.status = Status::Unknown;
    a.verdict = "no platform verification line";
  } else if (*g.platform_verified) {
    a.status = Status::Ok;
    a.verdict = "platform verification succeeded (the stack is installed; it does not prove I/O used the direct path)";
  } else {
    a.status = Status::Critical;
    a.verdict = "platform verification failed";
  }
}

void stream_logs(LineSource& src, Artifact& a, bool with_tests) {
  NcclLogParser log;
  NcclTestsParser tests;
  for_each_lexed_nccl_batch(src, [&](const NcclLexedBatch& batch) {
    log.feed(batch);
    if (with_tests)
      for (const NcclLexedLine& line : batch.lines) tests.feed(line.line);
  });
  a.nccl_log = log.finish();
  if (with_tests) a.nccl_tests = tests.finish();
}

// Fails closed: what was proven from part of a file is not reported when
// the rest could not be read (a corrupt or cut compressed stream, a read
// error, a decompression bomb).
Artifact read_to_the_end(Artifact a, const LineSource& src) {
  if (!src.failure().empty()) {
    Artifact failed;
    failed.file = a.file;
    failed.kind = a.kind;
    failed.error = src.failure();
    return failed;
  }
  if (src.compression() != Compression::None)
    a.notes.push_back(std::string("read ") + compression_name(src.compression()) + "-compressed, by its first bytes");
  if (src.nul_bytes())
    a.notes.push_back(std::to_string(src.nul_bytes()) +
                      " NUL bytes skipped (a log a crash cut short is often padded with them); the text around them "
                      "was read");
  return a;
}

}  // namespace

const char* artifact_kind_name(ArtifactKind k) {
  switch (k) {
    case ArtifactKind::NcclLog:
      return "nccl-log";
    case ArtifactKind::NcclTests:
      return "nccl-tests";
    case ArtifactKind::TopoMatrix:
      return "topo-matrix";
    case ArtifactKind::TopologyXml:
      return "topology-xml";
    case ArtifactKind::Ibv:
      return "ibv";
    case ArtifactKind::Gdscheck:
      return "gdscheck";
    case ArtifactKind::Gdsio:
      return "gdsio";
    case ArtifactKind::CufileLog:
      return "cufile-log";
    case ArtifactKind::Perftest:
      return "perftest";
    case ArtifactKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

bool parse_artifact_kind(const std::string& text, ArtifactKind* out) {
  for (ArtifactKind k : {ArtifactKind::NcclLog, ArtifactKind::NcclTests, ArtifactKind::TopoMatrix,
                         ArtifactKind::TopologyXml, ArtifactKind::Ibv, ArtifactKind::Gdscheck, ArtifactKind::Gdsio,
                         ArtifactKind::CufileLog, ArtifactKind::Perftest})
    if (text == artifact_kind_name(k)) {
      *out = k;
      return true;
    }
  return false;
}

ArtifactKind detect_artifact_kind(std::string_view head) {
  // nccl-tests output usually carries NCCL INFO lines too: test it first.
  if (looks_like_nccl_tests(head)) return ArtifactKind::NcclTests;
  if (looks_like_nccl_log(head)) return ArtifactKind::NcclLog;
  // Before gdscheck: cuFile's INFO lines print "nvidia_fs version:" too.
  if (looks_like_gdsio_output(head)) return ArtifactKind::Gdsio;
  if (looks_like_cufile_log(head)) return ArtifactKind::CufileLog;
  // Before ibv: a perftest paste may carry the ibstat output of its port.
  if (looks_like_perftest(head)) return ArtifactKind::Perftest;
  if (looks_like_gdscheck(head)) return ArtifactKind::Gdscheck;
  if (looks_like_smi_text(head)) return ArtifactKind::TopoMatrix;
  if (looks_like_hwloc_xml(head) || looks_like_nccl_xml(head)) return ArtifactKind::TopologyXml;
  if (looks_like_ibv_text(head)) return ArtifactKind::Ibv;
  return ArtifactKind::Unknown;
}

Artifact analyze_file(const std::string& path, std::optional<ArtifactKind> forced,
                      const BandwidthOverrides& bandwidth) {
  Artifact a;
  a.file = path;
  LineSource src(path);
  if (!src.ok()) {
    a.error = src.refusal();
    return a;
  }
  const std::string& head = src.head();
  if (!src.failure().empty()) {
    a.error = src.failure();
    return a;
  }
  if (src.looks_binary()) {
    a.error = head.empty() ? "only NUL bytes, not a log or tool output" : "binary data, not a log or tool output";
    return a;
  }
  if (head.empty()) {
    a.error = "empty";
    return a;
  }
  a.kind = forced ? *forced : detect_artifact_kind(head);
  try {
    switch (a.kind) {
      case ArtifactKind::NcclLog:
        stream_logs(src, a, false);
        judge_nccl_log(a, *a.nccl_log);
        break;
      case ArtifactKind::NcclTests:
        stream_logs(src, a, true);
        judge_nccl_tests(a, bandwidth);
        break;
      case ArtifactKind::TopoMatrix: {
        std::string text = src.whole();
        a.topology = read_smi_text(text, path);
        judge_topology(a);
        if (looks_like_ibv_text(text))
          a.notes.push_back("the paste also holds ibstat/ibv_devinfo output: gdrcheck analyze --kind ibv reads it");
        break;
      }
      case ArtifactKind::TopologyXml: {
        std::istringstream in(src.whole());
        a.topology = load_topology_stream(in, path, TopologyFileKind::Auto);
        judge_topology(a);
        break;
      }
      case ArtifactKind::Ibv:
        a.ibv = parse_ibv_text(src.whole());
        judge_ibv(a);
        break;
      case ArtifactKind::Gdscheck:
        a.gdscheck = parse_gdscheck(src.whole());
        judge_gdscheck(a);
        break;
      case ArtifactKind::Gdsio: {
        std::string text = src.whole();
        a.gdsio = parse_gdsio_output(text);
        judge_gdsio(a);
        if (looks_like_cufile_log(text))
          a.notes.push_back("the paste also holds cuFile log lines: gdrcheck analyze --kind cufile-log reads them");
        break;
      }
      case ArtifactKind::CufileLog: {
        // Read as a stream: libcufile lets its log grow to 32 MB by default.
        CufileLogParser parser;
        src.each_line([&](std::string_view line) { parser.feed(line); });
        a.cufile_log = parser.finish();
        judge_cufile_log(a);
        break;
      }
      case ArtifactKind::Perftest:
        try {
          a.perftest = read_perftest_paste(src.whole());
        } catch (const std::invalid_argument& e) {
          a.error = std::string("perftest --out_json file: ") + e.what();
          break;
        }
        judge_perftest(a, bandwidth);
        break;
      case ArtifactKind::Unknown:
        a.error =
            "of no known kind (expected an NCCL/RCCL debug log, nccl-tests output, nvidia-smi topo -m, "
            "ibstat/ibv_devinfo, gdscheck -p or gdsio output, a cufile.log or perftest output; --kind forces one)";
        break;
    }
  } catch (const InputError& e) {
    a.error = e.problem();
  }
  return read_to_the_end(std::move(a), src);
}

Status overall_status(const std::vector<Artifact>& artifacts) {
  Status s = Status::Ok;
  bool proven = false;
  for (const auto& a : artifacts) {
    if (!a.error.empty())
      s = worse(s, Status::Unknown);
    else if (a.status != Status::Unknown) {
      proven = true;
      s = worse(s, a.status);
    }
  }
  if (!proven && s == Status::Ok) return Status::Unknown;
  return s;
}

}  // namespace gdrcheck

#include "analyze/artifact.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>

#include "analyze/gds_artifacts.h"
#include "host/compressed_input.h"
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

constexpr std::size_t kHeadBytes = 64 * 1024;
constexpr std::size_t kMaxLine = 64 * 1024;       // longer lines are cut: no log line is near this
constexpr std::size_t kBlockBytes = 4u << 20;     // one read(2); several MB keep system calls rare
constexpr std::size_t kMaxWholeFile = 16u << 20;  // matrix, ibv and gdscheck text is small
// A compressed log is read to at most this many bytes: far above the
// largest NCCL log of a real job, and a bound on the time a decompression
// bomb costs.
constexpr std::uint64_t kMaxDecompressed = std::uint64_t{16} << 30;

bool binary(std::string_view head) {
  for (char c : head.substr(0, 4096))
    if (c == '\0') return true;
  return false;
}

// Streams a file line by line into `each`; the first kHeadBytes are also
// returned for detection before any line is consumed.
//
// Multi-GB logs are the case that matters: the file is read with read(2)
// in blocks of kBlockBytes, lines are found with memchr in place and handed
// on as views into the block. Only the tail of a block (the start of a
// line the next block ends) is moved to the front before the next read;
// a line longer than kMaxLine keeps its first kMaxLine bytes.
class LineSource {
 public:
  explicit LineSource(const std::string& path) {
    try {
      fd_ = open_user_input(path, "log or tool output");
      reader_ = std::make_unique<DecompressingReader>(fd_.get(), path, kMaxDecompressed);
    } catch (const InputError& e) {
      refusal_ = e.problem();
    }
  }

  bool ok() const { return reader_ != nullptr; }
  // Why the file was not opened: "a character device, not a log or tool output".
  const std::string& refusal() const { return refusal_; }
  // Why reading stopped before the end ("corrupt gzip stream (…)"); empty
  // when the whole content was read.
  const std::string& failure() const { return failure_; }
  Compression compression() const { return reader_ ? reader_->compression() : Compression::None; }
  const std::string& head() {
    if (!head_read_) {
      fill(kHeadBytes);
      head_.assign(buf_.get(), std::min(end_, kHeadBytes));
      head_read_ = true;
    }
    return head_;
  }
  template <class F>
  void each_line(F&& f) {
    head();
    std::size_t start = 0;
    bool cut = false;  // inside a line longer than kMaxLine, its start kept in long_line
    std::string long_line;
    while (true) {
      const char* data = buf_.get();
      while (const void* hit = std::memchr(data + start, '\n', end_ - start)) {
        std::size_t nl = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
        if (cut) {
          f(std::string_view(long_line));
          cut = false;
        } else {
          std::string_view line(data + start, nl - start);
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          f(line.substr(0, kMaxLine));
        }
        start = nl + 1;
      }
      if (!cut && end_ - start >= kMaxLine) {
        long_line.assign(data + start, kMaxLine);
        cut = true;
      }
      if (cut) start = end_;
      if (eof_) break;
      std::memmove(buf_.get(), data + start, end_ - start);
      end_ -= start;
      start = 0;
      fill(kBlockBytes);
    }
    if (cut)
      f(std::string_view(long_line));
    else if (end_ > start)
      f(std::string_view(buf_.get() + start, std::min(end_ - start, kMaxLine)));
  }
  std::string whole() {
    head();
    std::string text(buf_.get(), end_);
    while (!eof_ && text.size() < kMaxWholeFile) {
      end_ = 0;
      fill(kBlockBytes);
      text.append(buf_.get(), end_);
    }
    end_ = 0;
    if (text.size() > kMaxWholeFile) text.resize(kMaxWholeFile);
    return text;
  }

 private:
  // Reads until the buffer holds `want` bytes (at most kBlockBytes), or
  // the input ends; a read error or a bad compressed stream ends it too,
  // and is kept in failure_.
  void fill(std::size_t want) {
    if (!buf_) buf_ = std::make_unique_for_overwrite<char[]>(kBlockBytes);
    want = std::min(want, kBlockBytes);
    while (!eof_ && end_ < want) {
      std::size_t n = 0;
      try {
        n = reader_->read(buf_.get() + end_, kBlockBytes - end_);
      } catch (const InputError& e) {
        failure_ = e.problem();
      }
      if (n == 0) {
        eof_ = true;
        break;
      }
      end_ += n;
    }
  }

  std::string refusal_;
  std::string failure_;
  UniqueFd fd_;
  std::unique_ptr<DecompressingReader> reader_;
  std::unique_ptr<char[]> buf_;
  std::size_t end_ = 0;  // bytes in buf_
  bool eof_ = false;
  std::string head_;
  bool head_read_ = false;
};

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

void judge_topology(Artifact& a) {
  a.paths = compute_paths(*a.topology);
  const TopologyPaths& p = *a.paths;
  int direct = 0, total = 0;
  for (const auto& c : p.closest) {
    ++total;
    direct += c.nccl_code == "PIX" || c.nccl_code == "PXB";
  }
  if (total == 0 || a.topology->with_role(DeviceRole::Nic).empty()) {
    a.status = Status::Unknown;
    a.verdict = "no GPU-NIC pair in the matrix: nothing about GPUDirect RDMA can be told";
  } else if (direct == total) {
    a.status = Status::Ok;
    a.verdict = "every GPU has a NIC behind its PCIe switch (PIX/PXB): GPUDirect RDMA is possible by default";
  } else {
    a.status = direct ? Status::Warning : Status::Critical;
    a.verdict = std::to_string(total - direct) + " of " + std::to_string(total) +
                " GPUs have no NIC behind their PCIe switch: NCCL stages their traffic through host memory by default";
  }
}

void judge_ibv(Artifact& a) {
  int ports = 0, up = 0;
  for (const auto& d : a.ibv->devices)
    for (const auto& p : d.ports) {
      ++ports;
      up += p.state == "ACTIVE" || p.state == "Active";
    }
  if (ports == 0) {
    a.status = Status::Unknown;
    a.verdict = "no ports listed";
  } else if (up == ports) {
    a.status = Status::Ok;
    a.verdict = "all " + std::to_string(ports) + " ports ACTIVE";
  } else {
    a.status = Status::Warning;
    a.verdict = std::to_string(ports - up) + " of " + std::to_string(ports) + " ports not ACTIVE";
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
  src.each_line([&](std::string_view line) {
    log.feed(line);
    if (with_tests) tests.feed(line);
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
    case ArtifactKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

bool parse_artifact_kind(const std::string& text, ArtifactKind* out) {
  for (ArtifactKind k :
       {ArtifactKind::NcclLog, ArtifactKind::NcclTests, ArtifactKind::TopoMatrix, ArtifactKind::TopologyXml,
        ArtifactKind::Ibv, ArtifactKind::Gdscheck, ArtifactKind::Gdsio, ArtifactKind::CufileLog})
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
  if (head.empty()) {
    a.error = "empty";
    return a;
  }
  if (binary(head)) {
    a.error = "binary data, not a log or tool output";
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
      case ArtifactKind::TopoMatrix:
        a.topology = read_smi_text(src.whole(), path);
        judge_topology(a);
        break;
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
      case ArtifactKind::Unknown:
        a.error =
            "of no known kind (expected an NCCL/RCCL debug log, nccl-tests output, nvidia-smi topo -m, "
            "ibstat/ibv_devinfo, gdscheck -p or gdsio output, or a cufile.log; --kind forces one)";
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

#include "analyze/artifact.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "topology/input_error.h"
#include "topology/path_matrix.h"
#include "topology/smi_text_source.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;
constexpr std::size_t kMaxLine = 64 * 1024;       // longer lines are cut: no log line is near this
constexpr std::size_t kMaxWholeFile = 16u << 20;  // matrix, ibv and gdscheck text is small

bool binary(std::string_view head) {
  for (char c : head.substr(0, 4096))
    if (c == '\0') return true;
  return false;
}

// Streams a file line by line into `each`; the first kHeadBytes are also
// returned for detection before any line is consumed.
class LineSource {
 public:
  explicit LineSource(const std::string& path) : path_(path) {
    if (path == "-")
      in_ = &std::cin;
    else {
      file_.open(path, std::ios::binary);
      in_ = &file_;
    }
  }
  bool ok() const { return path_ == "-" || file_.is_open(); }
  const std::string& head() {
    if (!head_read_) {
      head_.resize(kHeadBytes);
      in_->read(head_.data(), static_cast<std::streamsize>(kHeadBytes));
      head_.resize(static_cast<std::size_t>(in_->gcount()));
      head_read_ = true;
    }
    return head_;
  }
  template <class F>
  void each_line(F&& f) {
    std::string carry;
    auto emit = [&](std::string_view text) {
      std::size_t start = 0;
      for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') {
          carry.append(text.substr(start, i - start));
          if (!carry.empty() && carry.back() == '\r') carry.pop_back();
          f(std::string_view(carry).substr(0, kMaxLine));
          carry.clear();
          start = i + 1;
        }
      if (carry.size() < kMaxLine) carry.append(text.substr(start, std::min(text.size() - start, kMaxLine)));
    };
    emit(head());
    std::string buf(1 << 20, '\0');
    while (*in_) {
      in_->read(buf.data(), static_cast<std::streamsize>(buf.size()));
      std::size_t n = static_cast<std::size_t>(in_->gcount());
      if (n == 0) break;
      emit(std::string_view(buf.data(), n));
    }
    if (!carry.empty()) f(carry);
  }
  std::string whole() {
    std::string text = head();
    std::string buf(1 << 16, '\0');
    while (*in_ && text.size() < kMaxWholeFile) {
      in_->read(buf.data(), static_cast<std::streamsize>(buf.size()));
      text.append(buf.data(), static_cast<std::size_t>(in_->gcount()));
    }
    return text;
  }

 private:
  std::string path_;
  std::ifstream file_;
  std::istream* in_ = nullptr;
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

void judge_nccl_tests(Artifact& a) {
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
}

void judge_topology(Artifact& a) {
  TopologyPaths p = compute_paths(*a.topology);
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

}  // namespace

const char* artifact_kind_name(ArtifactKind k) {
  switch (k) {
    case ArtifactKind::NcclLog:
      return "nccl-log";
    case ArtifactKind::NcclTests:
      return "nccl-tests";
    case ArtifactKind::TopoMatrix:
      return "topo-matrix";
    case ArtifactKind::Ibv:
      return "ibv";
    case ArtifactKind::Gdscheck:
      return "gdscheck";
    case ArtifactKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

bool parse_artifact_kind(const std::string& text, ArtifactKind* out) {
  for (ArtifactKind k : {ArtifactKind::NcclLog, ArtifactKind::NcclTests, ArtifactKind::TopoMatrix, ArtifactKind::Ibv,
                         ArtifactKind::Gdscheck})
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
  if (looks_like_gdscheck(head)) return ArtifactKind::Gdscheck;
  if (looks_like_smi_text(head)) return ArtifactKind::TopoMatrix;
  if (looks_like_ibv_text(head)) return ArtifactKind::Ibv;
  return ArtifactKind::Unknown;
}

Artifact analyze_file(const std::string& path, std::optional<ArtifactKind> forced) {
  Artifact a;
  a.file = path;
  LineSource src(path);
  if (!src.ok()) {
    a.error = "cannot be read (no such file, or permission denied)";
    return a;
  }
  const std::string& head = src.head();
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
        judge_nccl_tests(a);
        break;
      case ArtifactKind::TopoMatrix:
        a.topology = read_smi_text(src.whole(), path);
        judge_topology(a);
        break;
      case ArtifactKind::Ibv:
        a.ibv = parse_ibv_text(src.whole());
        judge_ibv(a);
        break;
      case ArtifactKind::Gdscheck:
        a.gdscheck = parse_gdscheck(src.whole());
        judge_gdscheck(a);
        break;
      case ArtifactKind::Unknown:
        a.error =
            "of no known kind (expected an NCCL/RCCL debug log, nccl-tests output, nvidia-smi topo -m, "
            "ibstat/ibv_devinfo or gdscheck -p output; --kind forces one)";
        break;
    }
  } catch (const InputError& e) {
    a.error = e.problem();
  }
  return a;
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

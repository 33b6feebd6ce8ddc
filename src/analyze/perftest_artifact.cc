#include "analyze/perftest_artifact.h"

#include "host/text_format.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

std::string gbits_text(double g) {
  return fixed(g, g < 10 ? 3 : 2) + " Gb/s";
}

std::string run_name(const PerftestRun& r) {
  std::string test = r.report.test.empty() ? (r.program.empty() ? "perftest" : r.program) : r.report.test;
  return printable(test) + (r.report.device.empty() ? "" : " on " + printable(r.report.device));
}

bool gpu_memory(const PerftestRun& r) {
  return r.report.gpu_buffer || r.command_cuda || r.command_rocm;
}

// The likely cause of the first failure, from what perftest's README and
// its users' reports say about each message.
std::string likely_cause(const PerftestRun& r, bool mr_failed, bool gpu) {
  if (mr_failed && gpu && (r.command_dmabuf || r.report.dmabuf))
    return "the NIC could not register the GPU buffer through DMA-BUF: the kernel, the NIC driver (MLNX_OFED/DOCA, "
           "rdma-core) or the GPU driver (open kernel modules) lacks DMA-BUF support; without --use_cuda_dmabuf "
           "perftest uses nvidia-peermem instead";
  if (mr_failed && gpu)
    return "the NIC could not register GPU memory: usually no peer-memory module is loaded (lsmod | grep "
           "nvidia_peermem; modprobe nvidia-peermem), or the driver stack is DMA-BUF only and needs "
           "--use_cuda_dmabuf; perftest's README also names MLX5_SCATTER_TO_CQE=0. gdrcheck node on the host checks "
           "the peer-memory module";
  if (mr_failed)
    return "registering host memory failed: most often the locked-memory limit (ulimit -l; in containers the "
           "runtime's RLIMIT_MEMLOCK) is below the buffer size";
  for (const auto& e : r.errors) {
    if (ascii::contains(e.text, "Parser function exited with Error"))
      return "perftest rejected its command line and ran nothing: the line before \"Parser function exited with "
             "Error\" names the option at fault (some options must follow others, e.g. --use_cuda_dmabuf after "
             "--use_cuda)";
    if (ascii::contains(e.text, "Completion with error") || ascii::contains(e.text, "Failed status"))
      return "a work request completed with an error: the path between the two ports dropped or refused the "
             "traffic (retry exceeded, remote access error); the status number says which";
    if (ascii::contains(e.text, "exchange data") || ascii::contains(e.text, "read remote address") ||
        ascii::contains(e.text, "Couldn't connect") || ascii::contains(e.text, "socket"))
      return "the two sides could not exchange their connection data over TCP: the other side failed, is not "
             "running, or a firewall blocks perftest's port (18515 by default)";
    if (ascii::contains(e.text, "No IB devices found") || ascii::contains(e.text, "not found"))
      return "no RDMA device visible to the process (driver not loaded, or not passed into the container)";
  }
  return "the run stopped before measuring; the first error line names the step that failed";
}

void judge_failed_run(PerftestRun& r) {
  bool mr_failed = false, rejected = false;
  for (const auto& e : r.errors) {
    mr_failed |= ascii::contains(e.text, "allocate MR") || ascii::contains(e.text, "create MR");
    rejected |= ascii::contains(e.text, "Parser function exited with Error");
  }
  // A rejected command line allocated nothing: GPU memory was only asked for.
  bool gpu = (gpu_memory(r) || r.cuda_started) && !rejected;
  r.status = mr_failed && gpu ? Status::Critical : Status::Warning;
  const PerftestLine& first = r.errors.front();
  r.verdict = run_name(r) + (gpu ? " with GPU memory" : "") + " failed (line " + std::to_string(first.line) + ": " +
              printable(first.text) + ")" +
              (mr_failed && gpu ? ": GPUDirect RDMA does not work on this host as run" : "");
  r.notes.push_back(likely_cause(r, mr_failed, gpu));
}

// The port rate this run can be compared with: an ibstat/ibv_devinfo -v
// rate for its device in the same paste; one rate when only one is pasted.
void find_port_rate(PerftestRun& r, const PerftestPaste& p) {
  std::optional<double> rate;
  std::string source;
  for (const auto& pr : p.port_rates)
    if (!r.report.device.empty() && pr.device == r.report.device) {
      rate = pr.rate_gbps;
      source =
          "ibstat/ibv_devinfo in the same paste (" + printable(pr.device) + " port " + std::to_string(pr.port) + ")";
      break;
    }
  if (!rate && p.port_rates.size() == 1 && r.report.device.empty()) {
    rate = p.port_rates.front().rate_gbps;
    source = "the one port rate in the same paste (" + printable(p.port_rates.front().device) + ")";
  }
  r.port_rate_gbps = rate;
  r.port_rate_source = source;
}

void judge_bandwidth(PerftestRun& r, const PerftestPaste& p, const BandwidthOverrides& bandwidth) {
  PerftestReport& rep = r.report;
  if (rep.unit == PerftestUnit::Unknown && !p.json && r.command_gbits) rep.unit = PerftestUnit::Gbits;
  r.average_gbits = rep.average_gbits();
  if (!r.average_gbits) {
    if (p.json)
      r.notes.push_back(
          "an --out_json file does not record its unit: BW_average is MB/s (2^20 bytes) by default and Gb/s with "
          "--report_gbits; the figure is not compared with any rate");
    return;
  }
  find_port_rate(r, p);
  bool bidir = rep.bidirectional || r.command_bidirectional;
  if (!r.port_rate_gbps) {
    std::string model;
    if (!p.nic_model.empty())
      model = " (the paste names a " + printable(p.nic_model) + ", which runs at up to " +
              gbits_text(p.nic_model_max_gbps) + " per port, but a port may be set or negotiated slower)";
    r.notes.push_back("the paste does not say the port's rate" + model +
                      ": ibstat on that host (Rate:) or gdrcheck node there decides whether " +
                      gbits_text(*r.average_gbits) + " is near line rate");
    return;
  }
  RdmaExpectation e = expect_rdma_pair(*r.port_rate_gbps,
                                       bidir ? RdmaDirection::Bidirectional : RdmaDirection::Unidirectional, bandwidth);
  r.vs_port = judge_rdma_pair(e, *r.average_gbits);
}

// The row perftest's figure is judged on: the largest message, as in
// PerftestReport::average_gbits.
const PerftestRow& largest_row(const PerftestReport& rep) {
  const PerftestRow* largest = &rep.rows.front();
  for (const auto& row : rep.rows)
    if (row.bytes >= largest->bytes) largest = &row;
  return *largest;
}

// A sweep (-a) is judged on its largest message; its best average, often
// at a mid size, is what a reader quotes as the plateau.
void note_sweep(PerftestRun& r) {
  const auto& rows = r.report.rows;
  if (rows.size() < 2) return;
  const PerftestRow* best = &rows.front();
  for (const auto& row : rows)
    if (row.bw_average > best->bw_average) best = &row;
  auto in_gbits = [&](double v) {
    auto g = to_gbits(v, r.report.unit);
    return g ? gbits_text(*g) : fixed(v, 2) + " (unit not recorded)";
  };
  r.notes.push_back("a sweep of " + std::to_string(rows.size()) + " message sizes, " + bytes_text(rows.front().bytes) +
                    " to " + bytes_text(largest_row(r.report).bytes) + ": the best average is " +
                    in_gbits(best->bw_average) + " at " + bytes_text(best->bytes) +
                    "; the largest message's is the one judged");
}

// The run proves nothing about GPUDirect RDMA: why, and what would decide.
void undecided(PerftestRun& r, const std::string& why, const std::string& what_decides) {
  r.status = Status::Unknown;
  r.verdict += " — " + why;
  r.notes.push_back(what_decides);
}

void judge_run(PerftestRun& r, const PerftestPaste& p, const BandwidthOverrides& bandwidth) {
  if (r.cpu_frequency_warning)
    r.notes.push_back("perftest warned that the CPU frequency is not at its maximum: its figures can read low");
  if (r.peak_not_measured)
    r.notes.push_back(
        "BW peak was not measured in this run (perftest prints 0.00 then, as in duration mode): only the average "
        "counts");
  if (!r.errors.empty()) {
    judge_failed_run(r);
    return;
  }
  if (r.latency) {
    r.status = Status::Unknown;
    r.verdict = run_name(r) + ": a latency test measures no bandwidth";
    if (gpu_memory(r)) r.notes.push_back("GPU memory was used");
    return;
  }
  judge_bandwidth(r, p, bandwidth);
  bool gpu = gpu_memory(r);
  std::string memory =
      r.report.gpu_buffer
          ? "GPU memory" + (r.report.gpu_name.empty() ? std::string() : " (" + printable(r.report.gpu_name) + ")")
      : r.command_rocm ? std::string("GPU memory (--use_rocm on the command line)")
      : r.command_cuda ? std::string("GPU memory (--use_cuda on the command line)")
      : p.json         ? std::string("memory not recorded")
      : !r.start_shown ? std::string("memory not shown")
                       : std::string("host memory");
  if (r.report.rows.empty()) {
    r.status = Status::Unknown;
    r.verdict = run_name(r) + (gpu ? ", " + memory : std::string()) +
                ": no result row in the paste (cut before the results, or the run did not finish)";
    if (r.report.gpu_buffer || r.cuda_started)
      r.notes.push_back("the GPU buffer was allocated; whether the NIC could use it, the result (or an error) decides");
    else if (gpu)
      r.notes.push_back("GPU memory was asked for, but the paste stops before perftest allocated it");
    if (r.interrupted) r.notes.push_back("the run was stopped by hand (^C) before it measured anything");
    return;
  }
  const PerftestRow& judged = largest_row(r.report);
  std::string figure =
      r.average_gbits ? gbits_text(*r.average_gbits) : fixed(judged.bw_average, 2) + " (unit not recorded)";
  r.verdict = run_name(r) + ", " + memory + ": average " + figure + " at " + bytes_text(judged.bytes);
  note_sweep(r);
  if (!gpu && p.json) {
    undecided(r,
              "the JSON names no GPU memory: host memory, or GPU memory with a perftest older than 24.10, which did "
              "not record it",
              "perftest 24.10 and later write \"cuda_device\" into --out_json for a --use_cuda run; or paste the "
              "text output from its first line");
  } else if (!gpu && !r.start_shown) {
    undecided(r,
              "the paste starts below the lines where perftest says whether it used GPU memory: this may test the "
              "RDMA link only",
              "paste the command line and perftest's output from its first line: --use_cuda (or its CUDA lines) "
              "decides whether GPUDirect RDMA was tested");
  } else if (gpu) {
    r.status = Status::Ok;
    r.verdict += " — the NIC read/wrote GPU memory directly: GPUDirect RDMA works on this side";
    r.notes.push_back("perftest prints one side: the other side's output says whether it used GPU memory too");
    if (r.report.gpu_buffer == false && (r.command_cuda || r.command_rocm))
      r.notes.push_back("the CUDA/ROCm lines are not in the paste: GPU memory is taken from the command line");
  } else {
    undecided(r, "host memory only: this tests the RDMA link, not GPUDirect RDMA",
              "rerun with --use_cuda=<GPU index> (and the GPU nearest the NIC) to test GPUDirect RDMA");
  }
  if (r.vs_port && r.vs_port->status == Status::Critical) {
    r.status = Status::Warning;
    r.verdict += "; below the port rate: " + r.vs_port->summary;
  } else if (r.vs_port && r.vs_port->status == Status::Ok) {
    r.verdict += "; near line rate (" + r.vs_port->summary + ")";
  }
}

}  // namespace

void judge_perftest(Artifact& a, const BandwidthOverrides& bandwidth) {
  PerftestPaste& p = *a.perftest;
  if (p.runs.empty()) {
    a.status = Status::Unknown;
    a.verdict = "no perftest run found";
    return;
  }
  // The run that proves the most decides: CRITICAL over WARNING over OK;
  // runs that prove nothing about GPUDirect RDMA (UNKNOWN) only if all are.
  auto rank = [](Status s) { return s == Status::Critical ? 3 : s == Status::Warning ? 2 : s == Status::Ok ? 1 : 0; };
  const PerftestRun* worst = nullptr;
  for (auto& r : p.runs) {
    judge_run(r, p, bandwidth);
    if (rank(r.status) > 0 && (!worst || rank(r.status) > rank(worst->status))) worst = &r;
  }
  Status proven = worst ? worst->status : Status::Unknown;
  a.status = worst ? proven : Status::Unknown;
  const PerftestRun& shown = worst ? *worst : p.runs.front();
  a.verdict = p.runs.size() == 1 ? shown.verdict
                                 : std::to_string(p.runs.size()) + " runs; line " + std::to_string(shown.first_line) +
                                       ": " + shown.verdict;
}

}  // namespace gdrcheck

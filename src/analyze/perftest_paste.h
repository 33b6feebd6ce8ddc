// What a user's pasted perftest output holds (ib_write_bw, ib_read_bw,
// ib_send_bw and their latency siblings): the runs in it, each parsed by the
// bench reader (bench/perftest_output.h), with what a paste adds around the
// output: the command line typed before it, error lines perftest prints in
// the middle of a line, and port rates when ibstat output was pasted too.
// Reading only; analyze/perftest_artifact.h judges.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/expected_bandwidth.h"
#include "bench/perftest_output.h"
#include "checks/finding.h"

namespace gdrcheck {

struct PerftestLine {
  std::size_t line = 0;  // 1-based, in the file
  std::string text;
};

struct PerftestRun {
  std::size_t first_line = 0;
  PerftestReport report;  // test, device, link type, CUDA lines, unit, rows
  std::string program;    // "ib_write_bw" from the command line; "" when none was pasted
  PerftestLine command;   // the command line pasted before the output
  bool latency = false;   // "... Latency Test": no bandwidth figure
  // From the command line: GPU memory asked for, DMA-BUF, units, direction.
  bool command_cuda = false, command_rocm = false, command_dmabuf = false, command_gbits = false;
  bool command_bidirectional = false;
  bool cuda_started = false;       // "initializing CUDA" or a CUDA context line
  bool peak_not_measured = false;  // the WARNING line, or rows with BW peak 0.00 and an average
  // The paste shows where perftest prints its CUDA lines (the command, the
  // server box, the CUDA lines or the test's banner); a paste that starts
  // below them cannot say whether the buffer was in GPU memory.
  bool start_shown = false;
  bool cpu_frequency_warning = false;  // "Conflicting CPU frequency values detected"
  bool interrupted = false;            // a "^C" line: stopped by hand
  std::vector<PerftestLine> errors;    // every line perftest prints on failure, in order

  // Filled by judge_perftest (analyze/perftest_artifact.h).
  Status status = Status::Unknown;
  std::string verdict;
  std::vector<std::string> notes;
  std::optional<double> average_gbits;  // of the largest message, unit normalised
  std::optional<double> port_rate_gbps;
  std::string port_rate_source;  // "ibstat in the same paste (mlx5_0 port 1)"
  std::optional<BandwidthJudgement> vs_port;
};

struct PerftestPaste {
  bool json = false;  // an --out_json file: one run, unit not recorded
  std::vector<PerftestRun> runs;
  std::size_t lines = 0;
  // Port rates of ibstat/ibv_devinfo -v text pasted alongside, by device.
  struct PortRate {
    std::string device;
    int port = 0;
    double rate_gbps = 0;
  };
  std::vector<PortRate> port_rates;
  // A NIC model the text names ("ConnectX-7", or a 15b3:xxxx PCI id): the
  // fastest rate the model supports, not the port's.
  std::string nic_model;
  double nic_model_max_gbps = 0;
};

// From the first bytes of a file: perftest's banner, table header, server
// box, CUDA buffer lines or its --out_json document.
bool looks_like_perftest(std::string_view head);

// Throws std::invalid_argument for a JSON document that is not perftest's.
PerftestPaste read_perftest_paste(std::string_view text);

}  // namespace gdrcheck

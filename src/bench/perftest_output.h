// Reader for perftest bandwidth output (ib_write_bw and its siblings): the
// text report as printed (server or client side, with or without CUDA
// lines, cut short) and the `--out_json` file. Only reports what the output
// says; judging it is for the expected-bandwidth model.
//
// Units: the text header names them ("BW average[Gb/sec]" with
// --report_gbits, else "[MB/sec]", where perftest's MB is 2^20 bytes). The
// JSON file does not say; the caller passes the unit its command asked for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

enum class PerftestUnit { Gbits, MBytes, Unknown };  // Gb/sec (1e9 bits) | MB/sec (2^20 bytes)

struct PerftestRow {
  unsigned long long bytes = 0;
  unsigned long long iterations = 0;
  double bw_peak = 0, bw_average = 0;  // in `unit`
  std::optional<double> msg_rate_mpps;
};

struct PerftestReport {
  std::string test;  // "RDMA_Write BW Test", "RDMA_Write Bidirectional BW Test"
  bool bidirectional = false;
  std::string device;     // "mlx5_0"
  std::string link_type;  // "IB", "Ethernet"
  std::optional<int> qps;
  // CUDA: the buffer was allocated in GPU memory ("cuMemAlloc() ... GPU
  // buffer", "allocated GPU buffer", DMA-BUF lines).
  // The JSON file: "cuda_device" (24.10+), ROCm or MUSA memory; a JSON
  // without them is host memory, or a CUDA run of a perftest older than
  // 24.10, which did not record it.
  bool gpu_buffer = false;
  bool dmabuf = false;
  std::string gpu_name;  // "NVIDIA A30" from "device name = [...]"
  PerftestUnit unit = PerftestUnit::Unknown;
  std::vector<PerftestRow> rows;
  std::vector<std::string> errors;  // "Couldn't ...", "Unable to ...", "ERROR ...", "No IB devices found"
  bool has_header = false;          // the "#bytes ... BW average" line was seen

  // Average bandwidth of the largest message in Gb/s; nullopt without a row
  // or a known unit.
  std::optional<double> average_gbits() const;
};

PerftestReport parse_perftest_text(std::string_view text);

// `--out_json` content, standard JSON or the unquoted form of perftest
// before 24.01 (perftest_loose_json.h). A latency test's has no rows.
// Throws std::invalid_argument naming the problem (not JSON, no "results"
// object, a missing or non-numeric figure).
PerftestReport parse_perftest_json(std::string_view text, PerftestUnit unit);

// Converts a figure in `unit` to Gb/s; nullopt for Unknown.
std::optional<double> to_gbits(double value, PerftestUnit unit);

}  // namespace gdrcheck

// Reader for pasted `gdsio` output (GPUDirect Storage's I/O benchmark):
// one result line per run, "IoType: READ XferType: GPUD Threads: 8
// DataSetSize: 8363008/8388608(KiB) IOSize: 1024(KiB) Throughput: 6.816723
// GiB/sec, Avg_Latency: 1138.933194 usecs ops: 8167 total_time 1.170003
// secs", from the 0.9 beta to GDS 1.15. The command line (`gdsio ... -x 0`)
// is read too, for pastes that keep only the throughput of a run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// How a transfer type moves data. Direct: storage and GPU memory through
// cuFile (GPUD, GPU_DIRECT_ASYNC, GPU_BATCH, GPU_BATCH_STREAM); gdsio prints
// GPUD even when libcufile fell back to compat mode, so Direct says which
// API was measured, not that the DMA bypassed host memory. CpuStaged: the
// data passes through host memory by design (CPUONLY, CPU_GPU,
// CPU_ASYNC_GPU, CPU_CACHED_GPU): such a run does not test GDS at all.
enum class GdsioXferClass { Direct, CpuStaged, Unknown };

GdsioXferClass gdsio_xfer_class(std::string_view xfer_type);
const char* gdsio_xfer_class_name(GdsioXferClass c);  // "direct", "cpu_staged", "unknown"
// "storage → GPU memory through cuFile (GPUDirect Storage)" etc.; "" when unknown.
const char* gdsio_xfer_meaning(std::string_view xfer_type);
// gdsio's -x number to the name it prints: 0 → "GPUD", 2 → "CPU_GPU"; "" out of range.
std::string gdsio_xfer_name(long x);

struct GdsioRun {
  std::size_t line = 0;   // 1-based line of the result (its first line when wrapped)
  std::string io_type;    // "READ", "WRITE", "RANDREAD", "RANDWRITE"; "" when not shown
  std::string xfer_type;  // as printed ("GPUD"), or from the command's -x
  bool xfer_from_command = false;
  std::optional<long> threads;
  std::optional<long> io_depth;                             // GPU_BATCH runs print "IoDepth: 8"
  std::optional<std::uint64_t> dataset_kib, requested_kib;  // "DataSetSize: done/requested(KiB)"
  std::string io_size;                                      // as printed, "1024(KiB)" or "16384-32768-4096(KiB)"
  std::optional<std::uint64_t> io_size_kib;                 // a single size only
  std::optional<double> throughput_gib_s;                   // normalised to GiB/s
  std::string throughput_unit;                              // as printed: "GiB/sec"
  std::optional<double> avg_latency_us;
  std::optional<std::uint64_t> ops;
  std::optional<double> total_time_s;
  std::string command;  // the gdsio command line that preceded it, if pasted
};

struct GdsioError {
  std::size_t line = 0;
  std::string text;
};

struct GdsioReport {
  std::vector<GdsioRun> runs;      // in file order, at most kMaxRuns
  std::vector<GdsioError> errors;  // "Error: IO failed stopping traffic ...", "failed to submit io ..."
  std::size_t commands = 0;        // gdsio command lines seen
  std::size_t lines = 0;
  std::vector<std::string> notes;  // cut lines, command/result disagreements
};

// True when the text holds a gdsio result line, a throughput/latency pair
// or gdsio's I/O error lines.
bool looks_like_gdsio_output(std::string_view head);

// Never throws; bounded (runs, errors and line lengths are capped).
GdsioReport parse_gdsio_output(std::string_view text);

}  // namespace gdrcheck

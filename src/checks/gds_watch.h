// `gds.watch`: what the nvidia-fs counters (/proc/driver/nvidia-fs/stats)
// read before and after a command prove about that command's GPUDirect
// Storage I/O. Pure: the caller runs the command and reads the files.
//
// What the counters can prove, from nvidia-fs's source (nvfs-stat.c,
// nvfs-core.c): nvidia-fs counts only the reads and writes it carried, and
// only while its rw_stats_enabled parameter is on ("IO stats: Enabled"; off
// by default since 2.7, when Reads and Writes print their error counters
// only). The counters are node-wide, so other processes' I/O in the same
// window counts too; they restart when the module is reloaded and when
// anything is written to the stats file. So reads or writes that completed
// through nvidia-fs prove that direct I/O happened; none prove nothing by
// themselves: the command's I/O went through compat mode (host memory), or
// took a direct route nvidia-fs does not carry (PCI-P2PDMA, user-space
// RDMA file systems), or it did no cuFile I/O at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/finding.h"
#include "evidence/nvfs_stats.h"
#include "host/host_state.h"
#include "host/process.h"

namespace gdrcheck {

// One reading of the stats file: parsed, or why it could not be read.
struct NvfsStatsReading {
  std::optional<NvfsStats> stats;
  std::string problem;  // "/proc/driver/nvidia-fs/stats: not found"
};

struct GdsWatchInput {
  std::vector<std::string> command;  // argv as run
  ProcessResult run;                 // how it ended
  NvfsStatsReading before, after;    // `after` is unread when the command did not start
  bool nvidia_fs_loaded = false;     // /sys/module/nvidia_fs exists
  Fact rw_stats_enabled;             // /sys/module/nvidia_fs/parameters/rw_stats_enabled
};

// After minus before, per counter; nullopt when it was not printed both
// times or was not a number.
struct GdsWatchCounts {
  std::optional<std::uint64_t> reads, reads_ok, read_mib;
  std::optional<std::uint64_t> writes, writes_ok, write_mib;
  std::optional<std::uint64_t> batches, mmaps, bar1_maps;
  std::vector<std::pair<std::string, std::uint64_t>> errors_rose;  // {"Writes io_state_err", 237}
  std::vector<std::string> went_down;                              // "Reads n 5 -> 0"
};

struct GdsWatch {
  std::vector<std::string> command;
  std::string outcome;  // "exit status 0", "killed by signal 9 (SIGKILL)", "could not start: ..."
  std::optional<int> exit_code, signal;
  std::optional<bool> io_stats;               // as the stats file said after the run
  std::optional<std::string> driver_version;  // likewise
  std::optional<GdsWatchCounts> counts;       // when both readings were nvidia-fs statistics
  std::vector<NvfsGpu> gpus;                  // the per-GPU lines after the run
  std::vector<Finding> findings;
};

GdsWatchCounts compare_nvfs_stats(const NvfsStats& before, const NvfsStats& after);

GdsWatch judge_gds_watch(const GdsWatchInput& in);

}  // namespace gdrcheck

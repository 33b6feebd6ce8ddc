// Reader for /proc/driver/nvidia-fs/stats, the counters the nvidia-fs kernel
// module keeps of the I/O it carried (platform-spec §5.1). The layout moved
// between releases: the 2.3 driver printed "NVFS Driver(version: 2:3:1)"
// and no "IO stats" line; 2.7 added "Mellanox PeerDirect Supported" and
// "IO stats: Enabled|Disabled"; with IO stats disabled the Reads and Writes
// lines carry only their error counters; 2.12 added "Batches" and
// "delay-frees"; old documentation shows "MB" where later releases print
// "MiB". So every "Label : key=value ..." line is kept with its keys as
// printed, and callers ask for the ones they need. Unknown lines are
// skipped; a number that is not a whole number or does not fit 64 bits is
// kept as unknown, never wrapped. Input is bounded (kMaxNvfsStatsBytes,
// lines, GPUs, keys), so a hostile file costs bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gdrcheck {

// The file is about 1 KiB plus one line per GPU; more is not nvidia-fs.
inline constexpr std::size_t kMaxNvfsStatsBytes = 256 * 1024;

// A counter as printed: nullopt when the text after '=' is not a whole
// number that fits (an overflow, "12.5", garbage).
using NvfsValue = std::optional<std::uint64_t>;
using NvfsValues = std::vector<std::pair<std::string, NvfsValue>>;

// "Reads : n=0 ok=0 err=0 readMiB=0 io_state_err=0" and its second line
// "Reads : Bandwidth(MiB/s)=0 Avg-Latency(usec)=0", merged under "Reads".
struct NvfsGroup {
  std::string name;  // "Reads", "Sparse Reads", "Writes", "Batches", "Mmap", "Bar1-map", "Error", "Ops"
  NvfsValues values;
};

// "GPU 0000:be:00.0  uuid:87e5c586-... : Registered_MiB=0 Cache_MiB=0
// max_pinned_MiB=8 cross_root_port(%)=0" (cross_root_port only when peer
// stats are enabled; old documentation prints pinned_MB / cache_MB).
struct NvfsGpu {
  std::string bdf;   // as printed
  std::string uuid;  // as printed, without "uuid:"
  NvfsValues values;
};

struct NvfsStats {
  std::optional<std::string> gds_version;     // "GDS Version: 1.10.0.4"
  std::optional<std::string> stats_version;   // "NVFS statistics(ver: 4.0)" → "4.0"
  std::optional<std::string> driver_version;  // "NVFS Driver(version: 2.20.5)" → "2.20.5" ("2:3:1" as printed)
  std::optional<bool> peerdirect;             // "Mellanox PeerDirect Supported: True"
  std::optional<bool> io_stats;               // "IO stats: Enabled, ..." (the rw_stats_enabled parameter)
  std::optional<bool> peer_io_stats;          // "..., peer IO stats: Enabled" (peer_stats_enabled)
  std::optional<std::string> logging_level;   // "Logging level: info"
  // "Active Shadow-Buffer (MiB): 0", "Active Process: 0": label as printed.
  NvfsValues scalars;
  std::vector<NvfsGroup> groups;  // in the order first seen
  std::vector<NvfsGpu> gpus;
  bool truncated = false;         // input, lines, GPUs or keys over their bounds
  std::size_t ignored_lines = 0;  // non-empty lines that were none of the above

  // Whether anything nvidia-fs prints was recognised.
  bool recognised() const;
  const NvfsGroup* group(std::string_view name) const;
  // The value of `key` in group `name`; nullptr when not printed, a null
  // optional when printed but not a number.
  const NvfsValue* value(std::string_view name, std::string_view key) const;
  const NvfsValue* scalar(std::string_view label) const;
  // The first of `keys` printed in group `name` ("readMiB", then the
  // "readmb" of old documentation).
  const NvfsValue* first_value(std::string_view name, std::initializer_list<std::string_view> keys) const;
};

NvfsStats parse_nvfs_stats(std::string_view text);

}  // namespace gdrcheck

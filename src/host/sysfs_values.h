// Parsers for the small text values sysfs and procfs hold. Each returns
// nullopt for text it does not understand, so callers can report UNKNOWN
// with the raw value instead of guessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

// "0x10de\n" → 0x10de. Hex with or without 0x.
std::optional<uint32_t> parse_sysfs_hex(std::string_view text);

// "-1\n" → -1; "16" → 16.
std::optional<long> parse_sysfs_int(std::string_view text);

// Per-lane PCIe rate in GT/s from current_link_speed/max_link_speed:
// "8.0 GT/s PCIe", "8 GT/s", "2.5 GT/s", "16.0 GT/s PCIe". "Unknown",
// "Unknown speed" and anything else → nullopt.
std::optional<double> parse_link_speed(std::string_view text);

// current_link_width / max_link_width: "16" → 16. 0 and 255 are "unknown".
std::optional<int> parse_link_width(std::string_view text);

// PCIe generation for a per-lane rate: 2.5→1, 5→2, 8→3, 16→4, 32→5, 64→6.
std::optional<int> pcie_generation(double gts);

// local_cpulist / cpulist text, normalised: "0-3,8,9-11\n" → "0-3,8-11".
// Empty input or garbage → nullopt.
std::optional<std::string> parse_cpulist(std::string_view text);

// local_cpus / cpumap hex mask ("ffffffff,00000000", commas between 32-bit
// words, most significant first) → cpulist "32-63". All-zero → "".
std::optional<std::string> cpumask_to_cpulist(std::string_view text);

// /sys/class/infiniband/*/ports/*/rate: "100 Gb/sec (4X EDR)" → 100.0;
// "56 Gb/sec (4X FDR)"; "2.5 Gb/sec (1X SDR)".
std::optional<double> parse_ib_rate_gbps(std::string_view text);

// "4: ACTIVE" → {4, "ACTIVE"}; "5: LinkUp" → {5, "LinkUp"}.
struct NumberedState {
  int number = 0;
  std::string name;
};
std::optional<NumberedState> parse_numbered_state(std::string_view text);

}  // namespace gdrcheck

// The site bandwidth file (`/etc/gdrcheck/bandwidth.json`,
// `--bandwidth-file FILE`): per-rate NIC ceilings, pass ratios and fixed
// expected figures per node type and collective. Schema
// "gdrcheck.bandwidth/1", documented in docs/bandwidth-model.md. The caller
// reads the file; this only parses its text.
#pragma once

#include <string>
#include <string_view>

#include "bench/expected_bandwidth.h"

namespace gdrcheck {

// Throws InputError(file, problem) for bad JSON, an unknown key, a wrong
// type, a negative or zero figure, a ceiling above the port's line rate
// (GB/s given where Gb/s was meant or the reverse), a ratio outside (0, 1],
// an unknown link layer or collective, or a duplicate entry.
BandwidthOverrides parse_bandwidth_overrides(std::string_view text, const std::string& file);

}  // namespace gdrcheck

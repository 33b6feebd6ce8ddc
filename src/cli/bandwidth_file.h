// The site bandwidth file (schema gdrcheck.bandwidth/1): --bandwidth-file,
// else /etc/gdrcheck/bandwidth.json when it exists, else the built-in model.
#pragma once

#include <string>

#include "bench/expected_bandwidth.h"

namespace gdrcheck {

inline constexpr const char* kSiteBandwidthFile = "/etc/gdrcheck/bandwidth.json";

// Throws InputError naming the file when it cannot be read or is invalid.
BandwidthOverrides load_bandwidth_file(const std::string& given);

}  // namespace gdrcheck

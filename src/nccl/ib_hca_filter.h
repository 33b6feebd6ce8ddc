// NCCL_IB_HCA as NCCL's IB transport applies it when it enumerates devices
// (src/transport/net_ib.cc:ncclIbInit@v2.12.12-1 …
// src/transport/net_ib/init.cc:ncclIbInitDevices@v2.30.7-1, with
// src/misc/utils.cc:parseStringList / matchIfList): a comma-separated list
// of "name[:port]" entries, matched by name prefix unless the list starts
// with '=' (exact), inverted by a leading '^'. Nothing is trimmed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nccl/nccl_version.h"

namespace gdrcheck {

struct HcaFilter {
  bool exclude = false, exact = false;
  // name, port: -1 = any port; 0 never matches (NCCL <= 2.30.4 reads an
  // empty port "mlx5_0:" with atoi, which gives 0 — no IB port is numbered 0).
  std::vector<std::pair<std::string, int>> entries;
};

HcaFilter parse_hca(std::string_view text, const NcclVersion& version = NcclVersion::newest());

// True when device/port passes the filter. An empty list matches every
// device, even after '^' (so "^" alone excludes everything, as in NCCL).
bool hca_matches(const HcaFilter& f, const std::string& device, int port);

// Convenience: parse then match (newest release's syntax unless given).
bool ib_hca_selects(const std::string& filter, const std::string& device, int port,
                    const NcclVersion& version = NcclVersion::newest());

// The classic pitfall: an entry naming one device exactly also
// prefix-matches others ("mlx5_1" selects mlx5_10..mlx5_19). Returns
// "'mlx5_1' also matches mlx5_10, mlx5_11" per such entry; empty when none.
std::vector<std::string> hca_prefix_pitfalls(const HcaFilter& f, const std::vector<std::string>& devices);

}  // namespace gdrcheck

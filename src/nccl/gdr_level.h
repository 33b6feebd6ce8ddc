// NCCL_NET_GDR_LEVEL: the farthest GPU↔NIC path over which NCCL uses
// GPUDirect RDMA, as each release parses it and defaults it
// (src/graph/paths.cc:ncclTopoCheckGdr, src/graph/topo.h path names).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/nccl_params.h"
#include "nccl/nccl_version.h"
#include "topology/path_class.h"

namespace gdrcheck {

// Parses NCCL_NET_GDR_LEVEL as the given version would (names valid in that
// version, matched exactly; legacy integers 0..4+, read from a leading
// digit). nullopt = unrecognised (NCCL keeps the default). For NCCL <= 2.5,
// an integer parameter with "distance >= level disables" on the scale PIX0
// PXB1 PHB2 NODE3 SYS4, the result is the equivalent inclusive level.
std::optional<NcclPath> parse_gdr_level(const std::string& value, const NcclVersion& version);

struct GdrLevel {
  NcclPath path = NcclPath::PXB;
  std::string text;                  // "level PXB (default)" / "level SYS, set by NCCL_...=SYS (from ...)"
  const NcclSetting* set = nullptr;  // the setting that decided, if any (points into the settings given)
  std::vector<std::string> rules;    // e.g. an unrecognised value
};

// The level in force: the setting when the release accepts it, else the
// release's default — PXB, and from 2.29 P2C while NCCL_NET_GDR_C2C is on
// (src/graph/paths.cc:ncclTopoCheckGdr@v2.29.2-1).
GdrLevel effective_gdr_level(const NcclSettings& settings, const NcclVersion& version);

}  // namespace gdrcheck

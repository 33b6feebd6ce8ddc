// Reads an NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE,
// <system version="1">) into a Switches-style Topology.
#pragma once

#include <string>
#include <string_view>

#include "topology/topology.h"

namespace gdrcheck {

bool looks_like_nccl_xml(std::string_view text);

// Throws InputError(source_name, problem) for text that is not NCCL
// topology XML (malformed XML, no <system>, wrong root).
Topology read_nccl_xml(std::string_view text, const std::string& source_name);

}  // namespace gdrcheck

// Path classes between two devices, in nvidia-smi's codes (PIX, PXB, PHB,
// NODE, SYS, NV#) and in NCCL's own path types. The nvidia-smi rule works on
// any tree style; NCCL's view is computed on an NCCL-grouped tree (see
// nccl_view.h).
#pragma once

#include <string>

#include "topology/topology.h"

namespace gdrcheck {

enum class SmiPath { Self, NVLink, PIX, PXB, PHB, NODE, SYS, Unknown };

struct SmiClass {
  SmiPath path = SmiPath::Unknown;
  int nvlinks = 0;  // for NVLink
  std::string why;  // the rule that decided it, in one line
  // "X", "NV12", "PIX", ... ; "?" for Unknown.
  std::string code() const;
};

// nvidia-smi rule (fixture README): LCA = the deepest bridge common to both
// bridge chains. None common: same root → PHB; different roots on one NUMA
// node → NODE; different NUMA nodes → SYS; locality unknown → Unknown.
// With a common bridge: PIX when both devices sit directly below it (one
// port below the upstream port in a Ports tree, directly under the switch
// in a Switches tree), otherwise PXB. Direct NVLinks (recorded in the
// source) win over PCIe for GPU pairs.
SmiClass smi_class(const Topology& t, const Endpoint& a, const Endpoint& b);

// Parses a printed code ("PIX", "NV18", "SOC", "X", ...). Unknown text →
// Unknown with nvlinks 0.
SmiClass parse_smi_code(const std::string& code);

// NCCL path types (graph/topo.h). Numbering differs per NCCL version; this
// enum is only an ordering (lower = closer), the names are what matter.
enum class NcclPath { LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET, DIS, Unknown };
const char* nccl_path_name(NcclPath p);  // "PIX", ...; "?" for Unknown

struct NcclClass {
  NcclPath path = NcclPath::Unknown;
  std::string why;
};

// NCCL's view of a printed nvidia-smi code: NODE → PHB (one NCCL CPU node
// per NUMA id), NV# → NVL, X → LOC, the rest unchanged (nccl-spec §1.5).
NcclClass nccl_from_smi(const SmiClass& smi);

}  // namespace gdrcheck

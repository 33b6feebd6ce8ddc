// Three-valued answers for conditions NCCL checks at run time that files
// may or may not show, and the four-valued outcome of one traffic direction.
#pragma once

#include <initializer_list>

namespace gdrcheck {

// A condition: known true, known false, or not decidable from the evidence.
enum class Tri { No, Yes, Unknown };
const char* tri_name(Tri t);  // "no", "yes", "unknown"

// Conjunction of conditions NCCL checks in turn: any No wins, then Unknown.
Tri tri_all(std::initializer_list<Tri> ts);

// Whether GPUDirect RDMA carries one direction's traffic (pairs[].gdr_send,
// gdr_recv): Yes = NCCL selects it and nothing known breaks it; No = NCCL
// stages through host memory; Fail = NCCL selects it but the host makes the
// transfer fail, hang or crawl (registration impossible, IOMMU translation,
// ACS redirect); Unknown = the evidence cannot decide.
enum class GdrUse { No, Yes, Fail, Unknown };
const char* gdr_use_name(GdrUse u);  // "no", "yes", "fail", "unknown"
GdrUse gdr_use_of(Tri nccl_selects);

}  // namespace gdrcheck

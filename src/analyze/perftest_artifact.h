// What a pasted perftest run proves: whether the NIC moved GPU memory
// (GPUDirect RDMA) or host memory only, whether the run failed and why it
// likely did, and its bandwidth against the port rate when the paste names
// that rate. The verdict of `gdrcheck analyze` for the perftest kind
// (docs/json.md, "perftest").
#pragma once

#include "analyze/artifact.h"

namespace gdrcheck {

// Per run, then for the artifact: CRITICAL when perftest could not register
// its GPU buffer with the NIC, WARNING for other failures and for a
// bandwidth below rdma_pass_ratio x the port rate, OK for a GPU-memory run
// without either, UNKNOWN for host-memory runs (they test the RDMA link, not
// GPUDirect RDMA) and for runs the paste shows no result of.
void judge_perftest(Artifact& a, const BandwidthOverrides& bandwidth);

}  // namespace gdrcheck

// What pasted gdsio output and cuFile logs prove about GPUDirect Storage:
// the verdict and notes of `gdrcheck analyze` for the gdsio and cufile-log
// kinds (docs/gds.md, "gdsio and cuFile logs in analyze").
#pragma once

#include "analyze/artifact.h"

namespace gdrcheck {

// From a.gdsio: OK when a GPU direct transfer type was measured without
// errors (with the caution that gdsio names the API, not the data path),
// CRITICAL on gdsio's I/O errors, UNKNOWN when only CPU-staged or untyped
// runs were pasted: those do not test GDS, for better or worse.
void judge_gdsio(Artifact& a);

// From a.cufile_log: CRITICAL for failures that leave cuFile unable to do
// direct I/O (initialisation, registration, files refused), WARNING for
// compat mode and the conditions that lead to it, OK when the log shows the
// direct path or a clean driver open, UNKNOWN when it shows nothing of it.
void judge_cufile_log(Artifact& a);

}  // namespace gdrcheck

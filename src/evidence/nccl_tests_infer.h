// The collective a run's table shows when the output never names its test
// (a paste that starts at the header or at the rows).
#pragma once

#include <string>

#include "evidence/nccl_tests.h"

namespace gdrcheck::nccltests {

// "all_reduce_perf", "all_gather_perf", ... from the row that moved most
// data, or "" when the shape fits more than one. *basis says what was used.
std::string infer_test_name(const NcclTestsRun& run, std::string* basis);

}  // namespace gdrcheck::nccltests

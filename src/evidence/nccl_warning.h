// What one NCCL WARN message says about the job: an IB completion error
// with its status, a protection error (ACS / IOMMU), a RoCE GID problem, a
// failed verbs call (the IB transport could not create a queue pair,
// completion queue or memory registration), or another network or NCCL
// warning. Pure: the log reader (nccl_log.h) counts what it returns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

struct NcclWarningReason {
  std::string code;  // "ib_completion_error", "acs_hint", "ib_verbs_failed", ...
  std::string key;   // what keeps reasons of one code apart ("12", "ibv_create_qp")
  std::string message;
};

// The reasons of one WARN message, in the order they should be reported.
// Quote marks a paste left around the message ("`", '"', curly quotes)
// are not part of it.
std::vector<NcclWarningReason> nccl_warning_reasons(std::string_view msg);

}  // namespace gdrcheck

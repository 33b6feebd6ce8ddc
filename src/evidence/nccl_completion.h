// IB work-completion errors in NCCL logs: "Got completion from peer P with
// status=12 ..." and what each status means for the job. Read from WARN
// records and from lines that lost their prefix (quoted in prose, carried
// onto the next line by a wrapping terminal).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

// The work-completion status of "Got completion from peer P with error N,
// ..." (<= 2.18), "with status=N ..." (2.19+) or "with status=NAME(N) ..."
// (2.30) anywhere in `text`; nullopt when it holds none.
std::optional<int> nccl_completion_status(std::string_view text);

// "IB completion error 12 (transport retry counter exceeded): ..." with the
// hint NCCL itself prints for the status.
std::string nccl_completion_meaning(int status);

}  // namespace gdrcheck

// NCCL messages whose "host:pid:tid [dev] NCCL INFO" prefix is gone.
//
// Documents, runbooks and tickets often quote only the message: people cut
// the prefix to make a line fit ("NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB
// ..."), or quote one line inside a sentence. Such a line has no record
// marker for NcclRecordScanner to find, yet it says what the job did. Only
// messages that start with a shape NCCL prints and prose rarely does are
// taken: "NET/<net> :", "Channel cc/k :", "Ring cc :", "Using network ",
// "GPU Direct RDMA ", and "NCCL_X set ..." echoes.
#pragma once

#include <optional>
#include <string_view>

namespace gdrcheck {

// The NCCL message a prefix-stripped line holds (Markdown quote marks and
// inline-code backquotes around it dropped); nullopt for any other line.
// Cheap for lines that are not: it looks at the first character first.
std::optional<std::string_view> stripped_nccl_message(std::string_view line);

// Whether the line alone shows an NCCL log (for detecting the input kind):
// a stripped connection line with its "via", a stripped "NET/... : Using
// [n]" list or GPU Direct RDMA statement (with or without a bare "NCCL
// INFO " before it), a WARN that still names its source line
// ("misc/ibvwrap.cc:288 NCCL WARN ..."), or an IB completion error quoted
// anywhere in the line.
bool looks_like_stripped_nccl_line(std::string_view line);

}  // namespace gdrcheck

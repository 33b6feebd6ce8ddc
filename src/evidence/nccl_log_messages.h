// What single NCCL log messages say, read without state: the version
// token, an environment echo, a GDR level's kind, the device names of a
// "NET/IB : Using" list, the net of a "NET/..." message, a "distance X > Y"
// clause. Shared by the log reader (nccl_log.h) and the rank map
// (nccl_rank_map.h). Views point into the message; nothing allocates
// except what is returned as std::string.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/log_scan.h"
#include "evidence/nccl_log.h"
#include "nccl/nccl_version.h"

namespace gdrcheck {

inline constexpr std::size_t kNcclMaxText = 160;  // quoted log text in messages
inline constexpr std::size_t kNcclMaxName = 64;   // a net / plugin / device name

// A character of a host name as log prefixes print it (NCCL cuts the
// host name at the first '.' and turns other specials into '-'). Inline:
// the record scanner asks it of every byte before a prefix's ':'.
inline bool is_host_char(char c) {
  return scan::is_alnum(c) || c == '-' || c == '_';
}
// Placeholders people type over their host names: "XXXXX", "xxx-xxx" (and
// no name at all).
inline bool is_masked_host(std::string_view h) {
  for (char c : h)
    if (c != 'x' && c != 'X' && c != '-') return false;
  return true;
}

// `s` cut to `n` bytes, "..." marking the cut.
std::string clip(std::string_view s, std::size_t n = kNcclMaxText);

// "2.21.5+cuda12.4" / "2.21.5-HEAD:9a0e6a1" after "NCCL version" or
// "RCCL version :". The numeric core must be a version.
std::optional<std::string> version_token(std::string_view s);
// The release of a printed version token ("2.21.5+cuda12.4" → 2.21.5).
std::optional<NcclVersion> version_core(std::string_view printed);

// "NCCL_IB_HCA set to mlx5", "NCCL_IB_DISABLE set by environment to 0.".
std::optional<NcclEnvEcho> parse_env_echo(std::string_view msg);

// NCCL_NET_GDR_LEVEL as ncclGetLevel reads it (nccl-spec §2.3): a
// path-type name or a legacy integer (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4+ SYS).
enum class GdrLevelKind { Disables, Widens, Limits };
GdrLevelKind gdr_level_kind(std::string_view v);

// "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ..." and the 2.21-2.23 merged
// form "[0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB}": the names after "[n]".
std::vector<std::string_view> device_names(std::string_view list);

// "NET/IB : ..." → "IB"; "" when the message does not start with NET/.
std::string_view net_of_message(std::string_view msg);
// The whole name before the colon, for messages that quote the net: "NET/NCCL
// RDMA Plugin v10 : ..." → "NCCL RDMA Plugin v10"; else net_of_message.
std::string_view net_label_of_message(std::string_view msg);

// "(distance 6 > 4)", "(distance 3 >= 2)", "(distance 8 > 5, read ...)".
struct Distance {
  int value = 0, limit = 0;
  std::string op;
};
std::optional<Distance> parse_distance(std::string_view s);

}  // namespace gdrcheck

// An NCCL release version ("2.21.5"), for the rules that changed between
// releases (path-type numbering, GDR read default, peer-memory files, ...).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

struct NcclVersion {
  int major = 2, minor = 30, patch = 7;

  // "2.21.5", "2.21.5-1", "2.18.3+cuda12.2", "2.30" (patch 0). nullopt otherwise.
  static std::optional<NcclVersion> parse(std::string_view text);
  // The newest release whose rules gdrcheck knows (nccl-spec.md: v2.30.7-1).
  static NcclVersion newest() { return {2, 30, 7}; }
  std::string str() const;  // "2.30.7"
  auto operator<=>(const NcclVersion&) const = default;
};

}  // namespace gdrcheck

// Which NCCL release the prediction follows. The running release decides
// which peer-memory files NCCL tests (2.9.8, 2.22.3, 2.23.4), the read rule
// (2.19.1), DMA-BUF (2.13.4), the default level (2.29.2) and more, so
// gdrcheck predicts for the release a node has: the one given on the
// command line, else the NCCL found in the root (a system library first,
// then a wheel, a conda package, a header), else the newest it knows.
// Releases it has no rules for are refused (before 2.4) or followed with
// the nearest rules it has, and said so. Pure: the caller finds the installs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nccl/nccl_version.h"

namespace gdrcheck {

// One NCCL install found in the root.
struct NcclFound {
  NcclVersion version;
  std::string origin;  // "library /usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5"
  int preference = 0;  // lower wins: library 0, wheel 1, conda 2, header 3
};

struct NcclVersionChoice {
  NcclVersion found;          // the release named or found
  NcclVersion rules;          // the release whose rules are applied
  std::string origin;         // "--nccl-version", "library /usr/lib/...", "no NCCL found in the root"
  bool approximated = false;  // rules != found: newer than gdrcheck knows

  // "2.21.5 (library /usr/lib/...)" / "2.31.1 (…), predicted with 2.30.7's rules"
  std::string describe() const;
};

// nullopt when gdrcheck has no rules for the release at all (major other
// than 2, or older than 2.4).
std::optional<NcclVersionChoice> version_with_rules(const NcclVersion& v, const std::string& origin);

// The oldest release version_with_rules accepts (asked of it, so the range
// stays in one place with the rule that refuses older ones).
NcclVersion oldest_version_with_rules();

// The release to predict for, and the other releases found (each once).
struct NcclVersionPlan {
  NcclVersionChoice primary;
  std::vector<NcclVersionChoice> others;
  std::vector<std::string> notes;  // installs gdrcheck cannot follow ("NCCL 1.3.4 at ...: no rules")
};

NcclVersionPlan plan_nccl_versions(const std::optional<NcclVersion>& explicit_version,
                                   const std::vector<NcclFound>& found);

}  // namespace gdrcheck

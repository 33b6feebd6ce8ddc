#include "cli/nccl_version_option.h"

#include <CLI/CLI.hpp>

#include "nccl/version_choice.h"

namespace gdrcheck {

namespace {

std::string known_range() {
  return "(" + oldest_version_with_rules().str() + " - " + NcclVersion::newest().str() + ")";
}

}  // namespace

// The release --nccl-version names, refused when nothing can be predicted
// for it. A newer 2.x release is kept: it is predicted with the newest
// rules and the report says so (nccl-model.md).
NcclVersion nccl_version_option(const std::string& text) {
  auto v = NcclVersion::parse(text);
  if (!v)
    throw CLI::ValidationError(
        "--nccl-version",
        "'" + text + "' is not an NCCL version like 2.21.5; the rules this build has are " + known_range());
  // NCCL_VERSION_CODE is major*10000 + minor*100 + patch: no release has a
  // three-digit minor or patch, so 2.210.5 is a typo, not a future release.
  if (v->minor > 99 || v->patch > 99)
    throw CLI::ValidationError("--nccl-version",
                               "'" + text + "' is not an NCCL release (minor and patch are below 100)");
  if (v->major > 2)
    throw CLI::ValidationError("--nccl-version", "NCCL " + v->str() + " is newer than the rules this build has " +
                                                     known_range() + ": a new major release may change any of them");
  if (!version_with_rules(*v, "--nccl-version"))
    throw CLI::ValidationError("--nccl-version",
                               "NCCL " + v->str() + " is older than the rules this build has " + known_range());
  return *v;
}

}  // namespace gdrcheck

// gdrcheck-snapshot.json, the first entry of every snapshot: what was
// captured, what could not be and why, by whom and when. A path on the
// capture list that is not in the tarball is in `missing` with a reason,
// so an absence is never silent.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "snapshot/root_capture.h"

namespace gdrcheck {

inline constexpr const char* kSnapshotManifestName = "gdrcheck-snapshot.json";
inline constexpr const char* kSnapshotSchema = "gdrcheck.snapshot/1";

// {"schema", "generated_at", "gdrcheck_version", "host", "uid", "root",
//  "captured": [paths], "name_only": [paths], "missing": [{path, why}]}.
nlohmann::json snapshot_manifest(const RootCapture& capture, std::chrono::system_clock::time_point now,
                                 const std::optional<std::string>& host, uid_t uid, const std::string& root);

}  // namespace gdrcheck

// The fields every JSON document of gdrcheck carries at the top level, so a
// report read later, on another machine, says when it was made, by which
// gdrcheck, by which NCCL rules and about which host (docs/json.md,
// "Fields every document carries").
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gdrcheck {

// "2024-03-05T22:15:33Z": UTC, whole seconds, always this shape.
std::string utc_timestamp(std::chrono::system_clock::time_point t);

// The NCCL releases this build has rules for, "2.4.0-2.30.7": what a
// document without a prediction was judged by.
std::string modelled_nccl_rules();

// {"generated_at", "gdrcheck_version", "rules", "host"}. `rules` is the
// release whose rules a prediction followed, else modelled_nccl_rules();
// `host` is null when the document is not about one node. The time is
// passed in so that tests can fix it.
nlohmann::json report_meta(std::chrono::system_clock::time_point now, const std::string& rules,
                           const std::optional<std::string>& host);

// Adds report_meta's fields to a document; the document's own fields win
// (a field is never renamed or dropped).
void add_report_meta(nlohmann::json& document, const nlohmann::json& meta);

}  // namespace gdrcheck

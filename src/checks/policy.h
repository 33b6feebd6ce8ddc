// Site policy: the operator's decisions about findings, applied after the
// checks. A site that runs nv_peer_mem on purpose wants its WARNING to read
// OK, one that does not care about link speed wants `link` ignored, and
// neither wants to lose the finding: an overridden finding keeps its
// subject, summary, evidence and fix, gets the new status, and its first
// evidence line says what the policy did ("OK by site policy
// (/etc/gdrcheck/policy.json): site uses nv_peer_mem; was WARNING"), in
// text and JSON alike. The file format is in docs/output.md; reading it is
// cli/policy_file.h.
//
// An UNKNOWN finding means the evidence could not be read. A rule written
// for a WARNING must not also pass a node whose evidence is missing, so a
// rule applies to UNKNOWN findings only when it names them ("from":
// "UNKNOWN"); even then the override is shown like every other.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/finding.h"

namespace gdrcheck {

struct PolicyOverride {
  std::string check;                   // a check id (checks/check_catalog.h)
  std::optional<std::string> subject;  // only this subject; all when unset
  std::optional<Status> from;          // only findings with this status; unset: any but UNKNOWN
  std::optional<Status> status;        // the new status; unset: ignore (OK, and said so)
  std::string why;                     // shown with every finding it changes
};

struct Policy {
  std::string file;  // where it came from, named in every note
  std::vector<PolicyOverride> overrides;
};

// `findings` with the policy applied. For each finding the first matching
// override wins, one naming the subject before one that does not; an
// override that would not change the status leaves the finding as it is.
void apply_policy(std::vector<Finding>& findings, const Policy& policy);

// The note apply_policy() put first in a finding's evidence, or "" when the
// policy did not change the finding.
std::string_view policy_note(const Finding& f);

// "OK", "WARNING", "CRITICAL", "UNKNOWN" → the status; nullopt otherwise.
std::optional<Status> status_from_name(std::string_view name);

}  // namespace gdrcheck

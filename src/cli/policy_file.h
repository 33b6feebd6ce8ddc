// The site policy file (checks/policy.h): /etc/gdrcheck/policy.json, or
// the file --policy names. Format in docs/output.md:
//   {"schema": "gdrcheck.policy/1",
//    "overrides": [{"check": "peermem", "subject": "nv_peer_mem", "status": "OK",
//                   "why": "site uses nv_peer_mem"},
//                  {"check": "link", "status": "ignore", "why": "..."}]}
// A policy can pass failing checks, so it is never half-used: a file that
// is there but cannot be read, is not valid, or could have been written by
// another user is an error naming the file, never ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "checks/policy.h"

namespace gdrcheck {

inline constexpr const char* kDefaultPolicyFile = "/etc/gdrcheck/policy.json";

// The policy to apply: `option` when --policy gave one (it must exist),
// else the default file when there is one, else nullopt (no policy).
// Throws InputError(file, problem) for a file that cannot be used.
std::optional<Policy> load_policy(const std::string& option, const std::string& default_file = kDefaultPolicyFile);

// The policy in `text`, read from `file`. Throws InputError(file, problem)
// naming the key: not JSON, too deep, a key twice, an unknown key, a wrong
// type, an unknown check id or status, a missing "why", two overrides for
// the same findings.
Policy parse_policy(std::string_view text, const std::string& file);

}  // namespace gdrcheck

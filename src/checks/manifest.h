// A site's expected node ("manifest"): GPU and NIC counts and models, port
// rates and link layers, each GPU's NIC and path class, firmware and driver
// versions. `gdrcheck node --write-manifest` writes one from a good node;
// `--manifest FILE` turns every difference into a finding (check
// "manifest"). Schema "gdrcheck.manifest/1", documented in docs/json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "checks/finding.h"
#include "checks/node_report.h"
#include "host/host_state.h"

namespace gdrcheck {

nlohmann::json make_manifest(const NodeReport& r, const HostState& h);

// Throws InputError(source, problem) when the manifest is not a valid
// gdrcheck.manifest/1 document: another schema, an unknown key, a value of
// the wrong type or range (named with its place and the expected type:
// "\"gpus.count\" must be a whole number from 0 to 1000000, not a
// string"), or no expectations at all (an empty manifest checks nothing).
void validate_manifest(const nlohmann::json& manifest, const std::string& source);

// The first thing wrong with manifest-shaped facts (a manifest, or the
// "inventory" of a node report): an unknown key or a value of the wrong
// type; "" when there is none. Does not require "schema" or expectations.
std::string manifest_shape_problem(const nlohmann::json& facts);

// A manifest file's text, parsed as untrusted JSON and validated. Throws
// InputError(source, problem).
nlohmann::json parse_manifest(std::string_view text, const std::string& source);

std::vector<Finding> check_manifest(const NodeReport& r, const HostState& h, const nlohmann::json& manifest);

}  // namespace gdrcheck

// A site's expected node ("manifest"): GPU and NIC counts and models, port
// rates and link layers, each GPU's NIC and path class, firmware and driver
// versions. `gdrcheck node --write-manifest` writes one from a good node;
// `--manifest FILE` turns every difference into a finding (check
// "manifest"). Schema "gdrcheck.manifest/1", documented in docs/json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/node_report.h"
#include "host/host_state.h"

namespace gdrcheck {

nlohmann::json make_manifest(const NodeReport& r, const HostState& h);

// Throws InputError(source, problem) when the manifest is not a valid
// gdrcheck.manifest/1 document.
void validate_manifest(const nlohmann::json& manifest, const std::string& source);

std::vector<Finding> check_manifest(const NodeReport& r, const HostState& h, const nlohmann::json& manifest);

}  // namespace gdrcheck

// The site manifest named by --manifest (gdrcheck.manifest/1), read and
// validated the same way by `node` and `cluster`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gdrcheck {

// Throws InputError naming `path` when it cannot be read, is not JSON
// (or is too deep, or repeats a key), or is not a valid manifest.
nlohmann::json load_manifest_file(const std::string& path);

}  // namespace gdrcheck

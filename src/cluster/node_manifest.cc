#include "cluster/node_manifest.h"

#include <string>

namespace gdrcheck {
namespace {

using nlohmann::json;

constexpr const char* kManifestFix =
    "bring the node back to the site's expected configuration, or update the manifest if the change is intended";

// Found values come from another machine: everything beyond printable
// ASCII is escaped rather than reaching a terminal.
std::string ascii_json_text(const json& v) {
  return v.dump(-1, ' ', true, json::error_handler_t::replace);
}

void compare_key(std::vector<ReportFinding>& out, const json& want, const json& got, const std::string& key,
                 const std::string& subject, const std::string& what) {
  if (!want.contains(key)) return;
  json found = got.is_object() && got.contains(key) ? got.at(key) : json(nullptr);
  if (want.at(key) == found) return;
  out.push_back({"manifest", subject,
                 what + " differs from the manifest: expected " + ascii_json_text(want.at(key)) + ", found " +
                     ascii_json_text(found),
                 kManifestFix, Status::Critical});
}

}  // namespace

std::vector<ReportFinding> compare_with_manifest(const json& inventory, const json& want) {
  if (!inventory.is_object())
    return {{"manifest", "host", "the report has no inventory to compare with the manifest (gdrcheck too old)",
             "run a gdrcheck that writes \"inventory\" in its node report", Status::Unknown}};
  std::vector<ReportFinding> out;
  for (const char* section : {"gpus", "nics", "ports"}) {
    if (!want.contains(section) || !want.at(section).is_object()) continue;
    const json& w = want.at(section);
    const json got = inventory.contains(section) ? inventory.at(section) : json(nullptr);
    for (auto it = w.begin(); it != w.end(); ++it)
      compare_key(out, w, got, it.key(), section, std::string(section) + " " + it.key());
  }
  if (want.contains("pairs") && want.at("pairs").is_object()) {
    const json got = inventory.contains("pairs") ? inventory.at("pairs") : json(nullptr);
    for (auto it = want.at("pairs").begin(); it != want.at("pairs").end(); ++it)
      compare_key(out, want.at("pairs"), got, it.key(), it.key(), it.key() + "'s NIC and path");
  }
  compare_key(out, want, inventory, "driver", "driver", "NVIDIA driver version");
  if (out.empty()) out.push_back({"manifest", "host", "matches the manifest", "", Status::Ok});
  return out;
}

}  // namespace gdrcheck

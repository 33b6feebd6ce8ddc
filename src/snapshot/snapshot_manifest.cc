#include "snapshot/snapshot_manifest.h"

#include "report/report_meta.h"

namespace gdrcheck {

nlohmann::json snapshot_manifest(const RootCapture& capture, std::chrono::system_clock::time_point now,
                                 const std::optional<std::string>& host, uid_t uid, const std::string& root) {
  nlohmann::json m;
  m["schema"] = kSnapshotSchema;
  m["generated_at"] = utc_timestamp(now);
  m["gdrcheck_version"] = GDRCHECK_VERSION;
  m["host"] = host ? nlohmann::json(*host) : nlohmann::json(nullptr);
  // Run as another user than root, sysfs hides most of the PCI config
  // space: whoever reads the snapshot needs to know.
  m["uid"] = uid;
  m["root"] = root;
  m["captured"] = nlohmann::json::array();
  m["name_only"] = nlohmann::json::array();
  for (const auto& e : capture.entries) {
    m["captured"].push_back("/" + e.path);
    if (e.name_only) m["name_only"].push_back("/" + e.path);
  }
  m["missing"] = nlohmann::json::array();
  for (const auto& miss : capture.missing) m["missing"].push_back({{"path", miss.path}, {"why", miss.why}});
  return m;
}

}  // namespace gdrcheck

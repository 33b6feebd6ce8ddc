#include "report/report_meta.h"

#include <cstdint>

#include "cluster/report_age.h"
#include "nccl/version_choice.h"

namespace gdrcheck {

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  auto secs = std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
  // Years outside 0000-9999 do not fit the fixed shape; the epoch is an
  // honest "clock not set" rather than a malformed field. Pure arithmetic
  // (cluster/report_age.h): no gmtime, which loads the time-zone database.
  constexpr std::int64_t kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  constexpr std::int64_t kYear0 = -62167219200;      // 0000-01-01T00:00:00Z
  return format_utc_time(secs >= kYear0 && secs < kYear10000 ? secs : 0);
}

std::string modelled_nccl_rules() {
  return oldest_version_with_rules().str() + "-" + NcclVersion::newest().str();
}

nlohmann::json report_meta(std::chrono::system_clock::time_point now, const std::string& rules,
                           const std::optional<std::string>& host) {
  return {{"generated_at", utc_timestamp(now)},
          {"gdrcheck_version", GDRCHECK_VERSION},
          {"rules", rules},
          {"host", host ? nlohmann::json(*host) : nlohmann::json(nullptr)}};
}

void add_report_meta(nlohmann::json& document, const nlohmann::json& meta) {
  for (const auto& [key, value] : meta.items())
    if (!document.contains(key)) document[key] = value;
}

}  // namespace gdrcheck

#include "nccl/version_choice.h"

#include <algorithm>

namespace gdrcheck {

std::string NcclVersionChoice::describe() const {
  std::string s = found.str() + " (" + origin + ")";
  if (approximated) s += ", predicted with " + rules.str() + "'s rules, the newest gdrcheck knows";
  return s;
}

NcclVersion oldest_version_with_rules() {
  NcclVersion oldest = NcclVersion::newest();
  for (int minor = oldest.minor; minor >= 0; --minor)
    if (version_with_rules({2, minor, 0}, "range")) oldest = {2, minor, 0};
  return oldest;
}

std::optional<NcclVersionChoice> version_with_rules(const NcclVersion& v, const std::string& origin) {
  if (v.major != 2 || v < NcclVersion{2, 4, 0}) return std::nullopt;
  NcclVersionChoice c{v, v, origin, false};
  if (v > NcclVersion::newest()) {
    c.rules = NcclVersion::newest();
    c.approximated = true;
  }
  return c;
}

NcclVersionPlan plan_nccl_versions(const std::optional<NcclVersion>& explicit_version,
                                   const std::vector<NcclFound>& found) {
  NcclVersionPlan plan;
  std::vector<NcclFound> usable;
  for (const auto& f : found) {
    if (version_with_rules(f.version, f.origin))
      usable.push_back(f);
    else
      plan.notes.push_back("NCCL " + f.version.str() + " (" + f.origin + "): gdrcheck has no rules for it");
  }
  // Preferred kind first, then the newest release of that kind.
  std::stable_sort(usable.begin(), usable.end(), [](const NcclFound& a, const NcclFound& b) {
    return a.preference != b.preference ? a.preference < b.preference : a.version > b.version;
  });
  if (explicit_version)
    plan.primary = *version_with_rules(*explicit_version, "--nccl-version");
  else if (!usable.empty())
    plan.primary = *version_with_rules(usable.front().version, usable.front().origin);
  else
    plan.primary = {NcclVersion::newest(), NcclVersion::newest(),
                    "no NCCL found in the root, a job may bring its own: the newest rules gdrcheck knows", false};
  std::vector<NcclVersion> seen{plan.primary.found};
  for (const auto& f : usable) {
    if (std::find(seen.begin(), seen.end(), f.version) != seen.end()) continue;
    seen.push_back(f.version);
    plan.others.push_back(*version_with_rules(f.version, f.origin));
  }
  return plan;
}

}  // namespace gdrcheck

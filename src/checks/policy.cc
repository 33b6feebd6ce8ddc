#include "checks/policy.h"

namespace gdrcheck {
namespace {

constexpr std::string_view kBySitePolicy = " by site policy (";

bool matches(const PolicyOverride& o, const Finding& f) {
  if (o.check != f.check) return false;
  if (o.subject && *o.subject != f.subject) return false;
  return o.from ? *o.from == f.status : f.status != Status::Unknown;
}

const PolicyOverride* rule_for(const Finding& f, const Policy& p) {
  for (bool by_subject : {true, false})
    for (const auto& o : p.overrides)
      if (o.subject.has_value() == by_subject && matches(o, f)) return &o;
  return nullptr;
}

std::string note(const PolicyOverride& o, Status was, const std::string& file) {
  std::string what = o.status ? status_name(*o.status) : "ignored";
  return what + std::string(kBySitePolicy) + file + "): " + o.why + "; was " + status_name(was);
}

}  // namespace

void apply_policy(std::vector<Finding>& findings, const Policy& policy) {
  for (auto& f : findings) {
    const PolicyOverride* o = rule_for(f, policy);
    if (!o) continue;
    Status to = o->status.value_or(Status::Ok);
    if (to == f.status) continue;
    // The fix stays: it is still what would clear the original finding.
    f.evidence.insert(f.evidence.begin(), note(*o, f.status, policy.file));
    f.status = to;
  }
}

std::string_view policy_note(const Finding& f) {
  if (f.evidence.empty()) return {};
  std::string_view first = f.evidence.front();
  std::size_t by = first.find(kBySitePolicy);
  if (by == std::string_view::npos) return {};
  std::string_view what = first.substr(0, by);
  if (what != "ignored" && !status_from_name(what)) return {};
  return first;
}

std::optional<Status> status_from_name(std::string_view name) {
  for (Status s : {Status::Ok, Status::Warning, Status::Critical, Status::Unknown})
    if (name == status_name(s)) return s;
  return std::nullopt;
}

}  // namespace gdrcheck

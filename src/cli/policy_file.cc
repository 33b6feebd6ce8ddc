#include "cli/policy_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <set>
#include <tuple>

#include "checks/check_catalog.h"
#include "host/untrusted_json.h"
#include "host/user_file.h"

namespace gdrcheck {
namespace {

using json = nlohmann::json;

// A policy is a few dozen lines; anything near this is not one.
constexpr std::size_t kMaxPolicyBytes = 1u << 20;
constexpr std::size_t kMaxWhy = 500;

[[noreturn]] void refuse(const std::string& file, const std::string& problem) {
  throw InputError(file, problem);
}

void only_keys(const json& o, const std::string& where, const std::set<std::string>& allowed, const std::string& file) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (allowed.count(it.key())) continue;
    std::string names;
    for (const auto& k : allowed) names += (names.empty() ? "" : ", ") + k;
    refuse(file,
           "unknown key " + json_shown(it.key()) + (where.empty() ? "" : " in " + where) + " (allowed: " + names + ")");
  }
}

std::string text_at(const json& o, const std::string& key, const std::string& where, const std::string& file) {
  const json& v = o.at(key);
  if (!v.is_string() || v.get_ref<const std::string&>().empty())
    refuse(file, where + "." + key + " must be a non-empty string, not " + json_value_description(v));
  return v.get<std::string>();
}

Status status_at(const json& o, const std::string& key, const std::string& where, const std::string& file) {
  std::string name = text_at(o, key, where, file);
  if (auto s = status_from_name(name)) return *s;
  refuse(file, where + "." + key + " must be OK, WARNING, CRITICAL or UNKNOWN, not " + json_shown(name));
}

PolicyOverride override_at(const json& o, const std::string& where, const std::string& file) {
  if (!o.is_object()) refuse(file, where + " must be an object, not " + json_value_description(o));
  only_keys(o, where, {"check", "subject", "status", "from", "why"}, file);
  for (const char* required : {"check", "status", "why"})
    if (!o.contains(required)) refuse(file, where + " has no \"" + required + "\"");
  PolicyOverride p;
  p.check = text_at(o, "check", where, file);
  if (!find_check(p.check))
    refuse(file, where + ".check " + json_shown(p.check) + " is not a check (checks: " + check_ids_text() + ")");
  if (o.contains("subject")) p.subject = text_at(o, "subject", where, file);
  if (o.contains("from")) p.from = status_at(o, "from", where, file);
  std::string status = text_at(o, "status", where, file);
  if (status != "ignore") {
    p.status = status_from_name(status);
    if (!p.status)
      refuse(file, where + ".status must be OK, WARNING, CRITICAL, UNKNOWN or ignore, not " + json_shown(status));
  }
  p.why = text_at(o, "why", where, file);
  if (p.why.size() > kMaxWhy) refuse(file, where + ".why is longer than " + std::to_string(kMaxWhy) + " bytes");
  // The reason is printed with every finding it changes: one line of text.
  for (unsigned char c : p.why)
    if (c < 0x20 || c == 0x7f) refuse(file, where + ".why contains a control character (a line break, tab or escape)");
  return p;
}

// A policy file another user could have written would let them pass any
// finding on a node checked as root.
void refuse_foreign_writers(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return;  // read_user_file names the problem
  if (st.st_mode & S_IWOTH) refuse(file, "writable by every user; a site policy must be writable only by its owner");
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    refuse(file, "owned by uid " + std::to_string(st.st_uid) + ", not by root or the user running gdrcheck");
}

}  // namespace

Policy parse_policy(std::string_view text, const std::string& file) {
  json doc = parse_untrusted_json(text, file, "site policy");
  if (!doc.is_object()) refuse(file, "not a JSON object");
  only_keys(doc, "", {"schema", "overrides"}, file);
  if (!doc.contains("schema") || doc.at("schema") != "gdrcheck.policy/1")
    refuse(file, "\"schema\" must be \"gdrcheck.policy/1\"");
  if (!doc.contains("overrides")) refuse(file, "has no \"overrides\"");
  const json& list = doc.at("overrides");
  if (!list.is_array()) refuse(file, "\"overrides\" must be an array, not " + json_value_description(list));
  Policy p;
  p.file = file;
  std::map<std::tuple<std::string, std::string, int>, std::size_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = "overrides[" + std::to_string(i) + "]";
    PolicyOverride o = override_at(list[i], where, file);
    // Two overrides for the same findings: which one the author meant is
    // not for gdrcheck to guess.
    auto key = std::make_tuple(o.check, o.subject.value_or(""), o.from ? static_cast<int>(*o.from) : -1);
    if (auto [it, fresh] = seen.emplace(key, i); !fresh)
      refuse(file, where + " overrides the same findings as overrides[" + std::to_string(it->second) + "]");
    p.overrides.push_back(std::move(o));
  }
  return p;
}

std::optional<Policy> load_policy(const std::string& option, const std::string& default_file) {
  std::string file = option.empty() ? default_file : option;
  struct stat st {};
  // Only a default file that is not there at all means "no policy"; a
  // dangling link or an unreadable directory is someone's policy gone wrong.
  if (option.empty() && ::lstat(file.c_str(), &st) != 0 && errno == ENOENT) return std::nullopt;
  refuse_foreign_writers(file);
  return parse_policy(read_user_file(file, kMaxPolicyBytes, "site policy"), file);
}

}  // namespace gdrcheck

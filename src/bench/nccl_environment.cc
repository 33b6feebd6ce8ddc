#include "bench/nccl_environment.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace gdrcheck {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

const std::string* find(const Env& env, const std::string& name) {
  for (const auto& kv : env)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

void put(Env& env, const std::string& name, const std::string& value) {
  for (auto& kv : env)
    if (kv.first == name) {
      kv.second = value;
      return;
    }
  env.emplace_back(name, value);
}

// NCCL_DEBUG_SUBSYS with INIT and NET added when missing ("ALL" covers
// them; a leading '^' inverts the list, so it is replaced).
std::string debug_subsystems(const std::string* user, std::vector<std::string>& notes) {
  if (!user || user->empty()) return "INIT,NET";
  if ((*user)[0] == '^') {
    notes.push_back("NCCL_DEBUG_SUBSYS=" + *user +
                    " excludes subsystems; replaced by INIT,NET so the log shows the data path");
    return "INIT,NET";
  }
  std::vector<std::string> parts;
  std::stringstream in(*user);
  for (std::string p; std::getline(in, p, ',');) {
    std::string upper = p;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    parts.push_back(upper);
  }
  if (std::find(parts.begin(), parts.end(), "ALL") != parts.end()) return *user;
  std::string out = *user;
  for (const char* need : {"INIT", "NET"})
    if (std::find(parts.begin(), parts.end(), need) == parts.end()) out += std::string(",") + need;
  if (out != *user) notes.push_back("NCCL_DEBUG_SUBSYS=" + *user + " extended to " + out);
  return out;
}

}  // namespace

NcclRunEnvironment nccl_run_environment(const NcclEnvironmentRequest& r) {
  NcclRunEnvironment e;
  for (const auto& kv : r.user)
    if (kv.first.rfind("NCCL_", 0) == 0 && kv.first != "NCCL_DEBUG_FILE") e.set.push_back(kv);

  if (const std::string* file = find(r.user, "NCCL_DEBUG_FILE")) {
    e.unset.push_back("NCCL_DEBUG_FILE");
    e.notes.push_back("NCCL_DEBUG_FILE=" + *file + " ignored: the log must reach the output this run reads");
  }
  const std::string* level = find(r.user, "NCCL_DEBUG");
  if (level && *level != "INFO" && *level != "TRACE")
    e.notes.push_back("NCCL_DEBUG=" + *level + " raised to INFO: the log proves the data path");
  if (!level || (*level != "INFO" && *level != "TRACE")) put(e.set, "NCCL_DEBUG", "INFO");
  put(e.set, "NCCL_DEBUG_SUBSYS", debug_subsystems(find(r.user, "NCCL_DEBUG_SUBSYS"), e.notes));

  if (r.nodes == 2) {
    const std::string* algo = find(r.user, "NCCL_ALGO");
    if (!algo) {
      put(e.set, "NCCL_ALGO", "RING");
      e.notes.push_back("NCCL_ALGO=RING on two nodes: tree busbw can exceed what the NICs carry");
    } else if (*algo != "RING" && *algo != "Ring" && *algo != "ring") {
      e.notes.push_back("NCCL_ALGO=" + *algo +
                        " kept as set: the expected figure is a ring figure, not a floor for it");
    }
  }
  if (r.gdr_off) {
    if (const std::string* user_level = find(r.user, "NCCL_NET_GDR_LEVEL"))
      e.notes.push_back("NCCL_NET_GDR_LEVEL=" + *user_level + " replaced by LOC for the GDR-off run");
    put(e.set, "NCCL_NET_GDR_LEVEL", "LOC");
  }
  return e;
}

std::vector<std::pair<std::string, std::string>> nccl_variables(const std::vector<std::string>& environment) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : environment) {
    auto eq = kv.find('=');
    if (kv.rfind("NCCL_", 0) == 0 && eq != std::string::npos) out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

}  // namespace gdrcheck

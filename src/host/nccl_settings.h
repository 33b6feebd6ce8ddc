// NCCL_* settings as NCCL would see them: the environment (or --env), then
// ~/.nccl.conf (or the NCCL_CONF_FILE file instead), then /etc/nccl.conf,
// which NCCL always reads last (misc/param.cc:initEnvFunc). Each value
// remembers where it came from so findings can cite it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

struct NcclSetting {
  std::string name;
  std::string value;
  std::string origin;  // "environment", "--env", "/etc/nccl.conf:3", "/root/.nccl.conf:1"
  // The conf line ended in CR (a CRLF file). `value` is without it; releases
  // that keep the CR see it again through settings_seen_by().
  bool carriage_return = false;

  // "NAME=VALUE (from ORIGIN)", for rules and evidence.
  std::string cite() const;
};

struct NcclSettings {
  std::map<std::string, NcclSetting> values;
  // Lines of conf files that are not NAME=VALUE ("/etc/nccl.conf:7: ...").
  std::vector<std::string> problems;

  const NcclSetting* find(const std::string& name) const;
};

// Parses one nccl.conf text as NCCL does: NAME=VALUE per line, split at the
// first '='; lines starting with '#' and blank lines are skipped. NCCL trims
// nothing, so the value is kept exactly (spaces, "# ..." included) and a
// name with spaces ("NCCL_X = 1", "export NCCL_X=1") sets nothing useful:
// such lines, lines without '=', and values with spaces at their ends or a
// '#' are reported in `problems` as "<origin>:<line>: ...". A trailing CR
// is dropped (NCCL 2.30 does). `origin` is the file path.
std::vector<NcclSetting> parse_nccl_conf(std::string_view text, const std::string& origin,
                                         std::vector<std::string>* problems);

// Merges in NCCL's precedence: an earlier layer wins over later ones, so
// pass {environment, --env...} before conf files; within a layer the first
// occurrence wins (NCCL's setenv never overwrites). Only NCCL_* names are
// kept; `problems` is left empty for the caller to fill.
NcclSettings merge_nccl_settings(const std::vector<std::vector<NcclSetting>>& layers_first_wins);

}  // namespace gdrcheck

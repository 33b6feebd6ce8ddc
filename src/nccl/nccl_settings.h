// NCCL_* settings as NCCL would see them: the environment (or --env), then
// /etc/nccl.conf and ~/.nccl.conf (NCCL_CONF_FILE replaces both), each
// value remembering where it came from so findings can cite it.
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
};

struct NcclSettings {
  std::map<std::string, NcclSetting> values;
  // Lines of conf files that are not NAME=VALUE ("/etc/nccl.conf:7: ...").
  std::vector<std::string> problems;

  const NcclSetting* find(const std::string& name) const;
};

// Parses one nccl.conf text: NAME=VALUE per line, '#' comments, blank
// lines, surrounding whitespace ignored. `origin` is the file path.
std::vector<NcclSetting> parse_nccl_conf(std::string_view text, const std::string& origin,
                                         std::vector<std::string>* problems);

// Merges in NCCL's precedence: an earlier layer wins over later ones, so
// pass {environment, --env...} before conf files. Only NCCL_* names are kept.
NcclSettings merge_nccl_settings(const std::vector<std::vector<NcclSetting>>& layers_first_wins);

}  // namespace gdrcheck

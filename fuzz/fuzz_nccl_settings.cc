// libFuzzer entry point for NCCL settings: the input up to its first NUL is
// an nccl.conf, the lines after it are --env NAME=VALUE arguments (split at
// the first '=' as `node` does). The settings are merged as NCCL would and
// read by the consumers of their values (GDR level, integer parameters,
// NCCL_IB_HCA) for an old and the newest release. Nothing may throw, and
// what comes out must keep the promises of nccl_settings.h: names without
// '=' or line ends, the first setting of a name wins, a CR is never left at
// the end of a value, and a citation never carries a control byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/gdr_level.h"
#include "nccl/ib_hca_filter.h"
#include "nccl/nccl_params.h"
#include "nccl/nccl_version.h"

namespace {

using gdrcheck::NcclSetting;

std::vector<NcclSetting> env_values(std::string_view text) {
  std::vector<NcclSetting> out;
  while (!text.empty()) {
    std::string_view line = text.substr(0, text.find('\n'));
    text.remove_prefix(line.size() == text.size() ? text.size() : line.size() + 1);
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;  // `node` refuses these
    out.push_back({std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)), "--env"});
  }
  return out;
}

bool has_control(const std::string& s) {
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

void check_conf(const std::vector<NcclSetting>& conf) {
  for (const auto& s : conf) {
    if (s.name.empty() || s.name.find('=') != std::string::npos || s.name.find('\n') != std::string::npos)
      __builtin_trap();
    // One CR of a CRLF line is taken off (and flagged); a second one is the
    // value's own, as NCCL reads it.
    if (s.value.find('\n') != std::string::npos) __builtin_trap();
    if (!s.value.empty() && s.value.back() == '\r' && !s.carriage_return) __builtin_trap();
  }
}

void read_values(const gdrcheck::NcclSettings& merged, const gdrcheck::NcclVersion& version) {
  auto seen = gdrcheck::settings_seen_by(merged, version);
  auto level = gdrcheck::effective_gdr_level(seen, version);
  if (level.set && level.set != seen.find(level.set->name)) __builtin_trap();
  (void)gdrcheck::nccl_int_param(seen, "NCCL_IB_DISABLE", 0);
  (void)gdrcheck::nccl_int_param(seen, "NCCL_NET_GDR_READ", 1);
  if (const auto* hca = seen.find("NCCL_IB_HCA")) {
    auto filter = gdrcheck::parse_hca(hca->value, version);
    (void)gdrcheck::hca_matches(filter, "mlx5_0", 1);
    (void)gdrcheck::hca_prefix_pitfalls(filter, {"mlx5_0", "mlx5_1", "mlx5_10"});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t nul = text.find('\0');
  std::string_view conf_text = text.substr(0, nul);
  std::string_view env_text = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);

  std::vector<std::string> problems;
  auto conf = gdrcheck::parse_nccl_conf(conf_text, "/etc/nccl.conf", &problems);
  check_conf(conf);
  auto env = env_values(env_text);
  auto merged = gdrcheck::merge_nccl_settings({env, conf});
  for (const auto& [name, s] : merged.values) {
    if (name != s.name || name.rfind("NCCL_", 0) != 0) __builtin_trap();
    if (has_control(s.cite())) __builtin_trap();
    // Precedence: the first occurrence over all layers wins.
    for (const auto* layer : {&env, &conf}) {
      const NcclSetting* first = nullptr;
      for (const auto& candidate : *layer)
        if (candidate.name == name) {
          first = &candidate;
          break;
        }
      if (first) {
        if (first->value != s.value || first->origin != s.origin) __builtin_trap();
        break;
      }
    }
  }
  read_values(merged, gdrcheck::NcclVersion{2, 18, 6});
  read_values(merged, gdrcheck::NcclVersion::newest());
  return 0;
}

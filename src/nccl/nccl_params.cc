#include "nccl/nccl_params.h"

#include <cerrno>
#include <cstdlib>

namespace gdrcheck {

NcclSettings settings_seen_by(const NcclSettings& s, const NcclVersion& version) {
  if (version >= NcclVersion{2, 30, 3}) return s;
  NcclSettings out = s;
  for (auto& [name, setting] : out.values)
    if (setting.carriage_return) setting.value += '\r';
  return out;
}

long long nccl_int_param(const NcclSettings& s, const char* name, long long default_value) {
  const NcclSetting* v = s.find(name);
  if (!v || v->value.empty()) return default_value;
  errno = 0;
  long long n = std::strtoll(v->value.c_str(), nullptr, 0);
  return errno ? default_value : n;
}

}  // namespace gdrcheck

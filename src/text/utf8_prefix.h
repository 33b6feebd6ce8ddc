// Cutting text to a byte budget without splitting a UTF-8 character: the
// Prometheus label values and the Slurm drain reason are both bounded so,
// and must stay valid UTF-8 when cut.
#pragma once

#include <cstddef>
#include <string_view>

namespace gdrcheck {

// The longest prefix of `s` of at most `n` bytes that ends on a UTF-8
// character boundary.
inline std::string_view utf8_prefix(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace gdrcheck

// Whether a text given to a reader of nvidia-smi output (`topo -m`,
// `nvlink --status`) is a binary file instead: both readers refuse one by
// this same rule, so a file is text to both or to neither.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace gdrcheck {

// NUL bytes or many control bytes in the first 64 KiB: a binary file, not
// captured or pasted text.
inline bool looks_binary(std::string_view text) {
  std::size_t control = 0, n = std::min<std::size_t>(text.size(), 65536);
  for (std::size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) return true;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b) || c == 0x7f) ++control;
  }
  return n > 0 && control * 20 > n;  // more than 5 %
}

}  // namespace gdrcheck

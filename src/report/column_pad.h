// A table cell padded to its column's width in bytes, with at least one
// space after it so a long value (a cpulist, an escaped name) never runs
// into the next column: the check list and the topology tables line up
// their columns alike.
#pragma once

#include <cstddef>
#include <string>

namespace gdrcheck {

inline std::string pad_column(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

}  // namespace gdrcheck

// A '/' path cut into its components, empty ones (from "//", a leading or a
// trailing '/') dropped: how the capture rules and the sysfs path readers
// both compare paths component by component.
#pragma once

#include <string_view>
#include <vector>

namespace gdrcheck {

// Views into `path`, which must outlive them.
inline std::vector<std::string_view> path_components(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace gdrcheck

#include "host/capture_extent.h"

namespace gdrcheck {

const std::vector<std::string>& capture_areas() {
  static const std::vector<std::string> areas = {"/proc/driver",          "/proc/modules",    "/sys/module",
                                                 "/sys/class/infiniband", "/sys/class/iommu", "/sys/kernel/mm",
                                                 "/proc/cmdline"};
  return areas;
}

std::vector<std::string> uncaptured_areas(const Root& root) {
  std::vector<std::string> out;
  if (root.is_live()) return out;
  for (const auto& a : capture_areas())
    if (!root.exists(a)) out.push_back(a);
  return out;
}

std::optional<std::string> uncaptured_area(const std::vector<std::string>& uncaptured, std::string_view path) {
  for (const auto& a : uncaptured)
    if (path == a || (path.size() > a.size() && path.substr(0, a.size()) == a && path[a.size()] == '/')) return a;
  return std::nullopt;
}

std::string not_captured_evidence(const std::string& area) {
  return area + ": not captured (the root has no " + area + ")";
}

std::string copy_advice(const std::vector<std::string>& areas) {
  std::string list;
  for (const auto& a : areas) list += (list.empty() ? "" : " and ") + a;
  return "copy " + list +
         " from the node into the root (paths and contents as on the node), or run gdrcheck on "
         "the node itself";
}

}  // namespace gdrcheck

#include "host/rdma_core_version.h"

#include <charconv>

#include "host/nccl_install.h"
#include "host/root_search.h"

namespace gdrcheck {
namespace {

constexpr std::string_view kPrefix = "libibverbs.so.1.";

std::optional<int> number(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int> rdma_core_release_of(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  // <abi>.<release>.0
  auto dot = name.find('.');
  if (dot == std::string_view::npos || !number(name.substr(0, dot))) return std::nullopt;
  name.remove_prefix(dot + 1);
  dot = name.find('.');
  auto release = number(name.substr(0, dot));
  if (!release || *release <= 0 || *release > 100000) return std::nullopt;
  return release;
}

std::optional<RdmaCoreLibrary> find_rdma_core(const Root& root) {
  std::optional<RdmaCoreLibrary> best;
  for (const auto& folder : distinct_folders(root, nccl_library_folder_patterns()))
    for (const auto& name : list_bounded(root, folder.path)) {
      auto release = rdma_core_release_of(name);
      if (!release || (best && best->release >= *release)) continue;
      std::string path = child_path(folder.path, name);
      if (is_regular_file(root, path)) best = RdmaCoreLibrary{path, *release};
    }
  return best;
}

}  // namespace gdrcheck

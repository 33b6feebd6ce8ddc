#include "host/root_search.h"

#include <sys/stat.h>

#include <set>

namespace gdrcheck {
namespace {

std::vector<std::string> split_components(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

// One step of a pattern: each folder so far, extended by a literal
// component or by the entries matching a '*' component.
std::vector<std::string> extend(const Root& root, const std::vector<std::string>& folders, const std::string& component,
                                std::size_t max_matches) {
  std::vector<std::string> next;
  bool wildcard = component.find('*') != std::string::npos;
  // Matching names cost a stat each; a hostile folder full of files named
  // like the pattern must not cost one per file.
  std::size_t stat_budget = 4 * max_matches;
  for (const auto& folder : folders) {
    if (!wildcard) {
      next.push_back(child_path(folder, component));
      continue;
    }
    for (const auto& name : list_bounded(root, folder)) {
      if (next.size() >= max_matches || stat_budget == 0) return next;
      if (!matches_component(name, component)) continue;
      --stat_budget;
      if (root.is_dir(child_path(folder, name))) next.push_back(child_path(folder, name));
    }
  }
  return next;
}

}  // namespace

std::vector<std::string> list_bounded(const Root& root, std::string_view folder, std::size_t max_names) {
  std::vector<std::string> names = root.list(folder);
  if (names.size() > max_names) names.resize(max_names);
  return names;
}

bool matches_component(std::string_view name, std::string_view pattern) {
  std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return name == pattern;
  std::string_view prefix = pattern.substr(0, star), suffix = pattern.substr(star + 1);
  if (suffix.find('*') != std::string_view::npos) return false;  // one '*' per component
  return name.size() >= prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix);
}

std::vector<FoundFolder> expand_folder_pattern(const Root& root, std::string_view pattern, std::size_t max_matches) {
  if (pattern.empty() || pattern[0] != '/') return {};
  std::vector<std::string> folders{"/"};
  for (const auto& component : split_components(pattern)) {
    if (component == "." || component == "..") return {};  // patterns name folders plainly
    folders = extend(root, folders, component, max_matches);
    if (folders.empty()) return {};
  }
  std::vector<FoundFolder> found;
  for (const auto& folder : folders) {
    if (!root.is_dir(folder)) continue;
    auto canonical = root.resolve(folder);
    if (canonical) found.push_back({folder, *canonical});
  }
  return found;
}

std::vector<FoundFolder> distinct_folders(const Root& root, const std::vector<std::string>& patterns) {
  std::vector<FoundFolder> out;
  std::set<std::string> seen;
  for (const auto& pattern : patterns)
    for (auto& folder : expand_folder_pattern(root, pattern))
      if (seen.insert(folder.canonical).second) out.push_back(std::move(folder));
  return out;
}

bool is_regular_file(const Root& root, std::string_view path) {
  // resolve() keeps every step inside the root; lstat of the result then
  // sees the final object itself, which is no longer a symlink.
  auto resolved = root.resolve(path);
  if (!resolved) return false;
  struct stat st {};
  return ::lstat(root.host_path(*resolved).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string child_path(const std::string& folder, std::string_view name) {
  return folder == "/" ? "/" + std::string(name) : folder + "/" + std::string(name);
}

std::string_view file_name_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace gdrcheck

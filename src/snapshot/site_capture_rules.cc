#include "snapshot/site_capture_rules.h"

#include <algorithm>
#include <utility>

#include "host/ld_so_conf.h"
#include "host/nccl_settings.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kPluginBytes = 4u << 20;    // what the plugin readers look at
constexpr std::size_t kTopologyBytes = 4u << 20;  // what read_topology_file reads

bool on_fixed_list(const std::string& pattern_path) {
  return standard_capture_list().rule_for(pattern_path) != nullptr;
}

bool is_default_folder(const std::string& folder) {
  const auto& defaults = default_loader_folders();
  return std::find(defaults.begin(), defaults.end(), folder) != defaults.end();
}

void add_loader_folders(const Root& root, std::vector<CaptureRule>& out) {
  for (const auto& folder : loader_folders(root)) {
    if (is_default_folder(folder)) continue;  // the fixed list's business
    std::string base = literal_pattern(folder);
    // A folder the fixed list already searches (the loader's defaults).
    if (base.empty() || on_fixed_list(folder.substr(1) + "/libnccl.so.2")) continue;
    CaptureRule libs{base + "/libnccl.so*", CaptureAs::NameOnly, 0, false};
    CaptureRule plugin{base + "/libnccl-net.so", CaptureAs::Content, kPluginBytes, false};
    CaptureRule plugins{base + "/libnccl-net-*.so", CaptureAs::Content, kPluginBytes, false};
    out.insert(out.end(), {libs, plugin, plugins});
  }
}

void add_topology_file(const Root& root, std::vector<CaptureRule>& out) {
  FileRead conf = root.read("/etc/nccl.conf", 64 * 1024);
  if (!conf.ok()) return;
  std::vector<std::string> problems;
  for (const auto& s : parse_nccl_conf(conf.content, "/etc/nccl.conf", &problems)) {
    if (s.name != "NCCL_TOPO_FILE") continue;
    // Only an absolute path means the same file on the node; the first
    // setting is the one NCCL uses.
    if (s.value.empty() || s.value[0] != '/' || on_fixed_list(s.value.substr(1))) return;
    CaptureRule file{literal_pattern(s.value), CaptureAs::Content, kTopologyBytes, true};
    file.xml_only = true;
    out.push_back(file);
    return;
  }
}

}  // namespace

std::string literal_pattern(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::string out;
  for (char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<CaptureRule> site_capture_rules(const Root& root) {
  std::vector<CaptureRule> out;
  add_loader_folders(root, out);
  add_topology_file(root, out);
  return out;
}

CaptureList host_capture_list(const Root& root) {
  std::vector<CaptureRule> rules = capture_rules();
  for (auto& rule : site_capture_rules(root)) rules.push_back(std::move(rule));
  return CaptureList(std::move(rules));
}

}  // namespace gdrcheck

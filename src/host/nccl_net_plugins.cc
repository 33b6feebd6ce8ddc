#include "host/nccl_net_plugins.h"

#include <cctype>
#include <set>
#include <string_view>

#include "host/ld_so_conf.h"
#include "host/nccl_install.h"
#include "host/root_search.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxFilesPerFolder = 32;
constexpr std::size_t kMaxPluginChecksPerFolder = 128;  // plugin-like names checked on disk in one folder
constexpr std::size_t kMaxFiles = 64;
constexpr std::size_t kMaxScannedFiles = 16;
constexpr std::size_t kScanBytes = 4u << 20;  // a plugin's strings lie in its first MiB or two
// NCCL keeps at most 14 names of the list: NCCL_NET_MAX_PLUGINS (16) less its IB and Socket.
constexpr std::size_t kMaxSettingNames = 14;

// Install folders of the known plugins, searched before the loader's
// folders: a job that uses one names it in LD_LIBRARY_PATH, which the loader
// searches first.
const std::vector<std::string>& plugin_folder_patterns() {
  static const std::vector<std::string> patterns = {"/opt/amazon/ofi-nccl/lib",
                                                    "/opt/amazon/ofi-nccl/lib64",
                                                    "/opt/aws-ofi-nccl/lib",
                                                    "/opt/aws-ofi-nccl/lib64",
                                                    "/opt/hpcx*/nccl_rdma_sharp_plugin/lib",
                                                    "/usr/local/gib/lib64",
                                                    "/usr/local/nvidia/lib64"};
  return patterns;
}

struct Clue {
  std::string_view text;
  const char* plugin;
};

// A folder fragment that names the plugin installed in it.
const std::vector<Clue>& folder_clues() {
  static const std::vector<Clue> clues = {{"/ofi-nccl/", "aws-ofi-nccl"},
                                          {"/aws-ofi-nccl/", "aws-ofi-nccl"},
                                          {"/nccl_rdma_sharp_plugin/", "nccl-rdma-sharp-plugins"},
                                          {"/usr/local/gib/", "gib"}};
  return clues;
}

// Strings a plugin's binary holds: its net name ("AWS Libfabric", "IBext",
// "IBext_v8", "SHARP" for the CollNet), package name, log prefixes or the
// library it needs. A heuristic: a rebuilt or renamed plugin may hold none
// of them, so the first match decides and no match means "unknown". gIB is
// looked for first, so that IB strings it may share with the HPC-X plugin do
// not decide.
const std::vector<Clue>& marker_clues() {
  static const std::vector<Clue> clues = {{"NET/gIB", "gib"},
                                          {std::string_view("\0gIB\0", 5), "gib"},
                                          {"AWS Libfabric", "aws-ofi-nccl"},
                                          {"aws-ofi-nccl", "aws-ofi-nccl"},
                                          {"NET/OFI", "aws-ofi-nccl"},
                                          {"libfabric", "aws-ofi-nccl"},
                                          {"IBext", "nccl-rdma-sharp-plugins"},
                                          {"SHARP", "nccl-rdma-sharp-plugins"}};
  return clues;
}

bool is_plugin_file_name(std::string_view name) {
  if (name == "libnccl-net.so") return true;
  constexpr std::string_view prefix = "libnccl-net-", suffix = ".so";
  return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix);
}

std::string marker_text(std::string_view marker) {
  std::string out;
  for (char c : marker) out += c == '\0' ? std::string("\\0") : std::string(1, c);
  return out;
}

bool identify_by_folder(const FoundFolder& folder, NetPluginFile& f) {
  for (const auto& clue : folder_clues())
    for (const std::string& path : {folder.path + "/", folder.canonical + "/"})
      if (path.find(clue.text) != std::string::npos) {
        f.plugin = clue.plugin;
        f.identified_by = "folder " + folder.path;
        return true;
      }
  return false;
}

bool identify_by_name(NetPluginFile& f) {
  if (f.file_name != "libnccl-net-ofi.so") return false;  // the name aws-ofi-nccl installs for NCCL_NET_PLUGIN=ofi
  f.plugin = "aws-ofi-nccl";
  f.identified_by = "file name " + f.file_name;
  return true;
}

void identify_by_markers(const Root& root, NetPluginFile& f) {
  f.plugin = "unknown";
  if (!is_regular_file(root, f.path)) {
    f.identified_by = "not identified: not a regular file";
    return;
  }
  FileRead r = root.read(f.path, kScanBytes);
  if (!r.ok()) {
    f.identified_by = "not identified: " + r.problem();
    return;
  }
  for (const auto& clue : marker_clues())
    if (r.content.find(clue.text) != std::string::npos) {
      f.plugin = clue.plugin;
      f.identified_by = "marker \"" + marker_text(clue.text) + "\" in the first 4 MiB (heuristic)";
      return;
    }
  f.identified_by = "not identified: no known folder, name or marker";
}

// Folders in the assumed loader order, each canonical folder once; `loader`
// tells which of them the loader searches by itself.
std::vector<FoundFolder> search_folders(const Root& root, std::set<std::string>& loader) {
  std::vector<std::string> loader_listed = loader_folders(root);
  for (const auto& folder : distinct_folders(root, loader_listed)) loader.insert(folder.canonical);
  std::vector<std::string> patterns = plugin_folder_patterns();
  patterns.insert(patterns.end(), loader_listed.begin(), loader_listed.end());
  for (const auto& folder : nccl_library_folder_patterns()) patterns.push_back(folder);
  return distinct_folders(root, patterns);
}

// What a name in NCCL_NET_PLUGIN makes NCCL try, in order: the name as
// given, then libnccl-net-NAME.so unless it is a path or already a full
// library name.
std::vector<std::string> names_tried(const std::string& name) {
  std::vector<std::string> tried{name};
  bool full_name = name.starts_with("lib") && name.ends_with(".so");
  if (name.find('/') == std::string::npos && !full_name) tried.push_back("libnccl-net-" + name + ".so");
  return tried;
}

std::vector<std::string> split_setting(const std::string& setting) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= setting.size() && names.size() < kMaxSettingNames) {
    std::size_t comma = setting.find(',', start);
    if (comma == std::string::npos) comma = setting.size();
    if (comma > start)
      names.push_back(setting.substr(start, comma - start));  // empty items are skipped, as strtok does
    start = comma + 1;
  }
  return names;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

const NetPluginFile* first_named(const std::vector<NetPluginFile>& files, const std::string& name) {
  bool is_path = name.find('/') != std::string::npos;
  for (const auto& f : files)
    if (is_path ? f.path == name : f.file_name == name) return &f;
  return nullptr;
}

}  // namespace

std::vector<NetPluginFile> find_net_plugins(const Root& root) {
  std::vector<NetPluginFile> out;
  std::set<std::string> loader;
  std::size_t scanned = 0;
  for (const auto& folder : search_folders(root, loader)) {
    std::size_t in_folder = 0, checked = 0;
    for (const auto& name : list_bounded(root, folder.canonical)) {
      if (!is_plugin_file_name(name)) continue;
      if (in_folder >= kMaxFilesPerFolder || checked++ >= kMaxPluginChecksPerFolder || out.size() >= kMaxFiles) break;
      NetPluginFile f{child_path(folder.canonical, name), name, "unknown", "", loader.count(folder.canonical) > 0};
      if (!root.exists(f.path) || root.is_dir(f.path)) continue;  // a dangling link loads nothing
      ++in_folder;
      if (!identify_by_folder(folder, f) && !identify_by_name(f)) {
        if (scanned++ < kMaxScannedFiles)
          identify_by_markers(root, f);
        else
          f.identified_by = "not identified: more plugin files than are scanned";
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

const NetPluginFile* plugin_nccl_loads(const std::vector<NetPluginFile>& files,
                                       const std::string& nccl_net_plugin_setting) {
  if (nccl_net_plugin_setting.empty()) return first_named(files, "libnccl-net.so");
  if (equals_ignoring_case(nccl_net_plugin_setting, "none")) return nullptr;
  for (const auto& name : split_setting(nccl_net_plugin_setting))
    for (const auto& tried : names_tried(name))
      if (const NetPluginFile* f = first_named(files, tried)) return f;
  return nullptr;
}

}  // namespace gdrcheck

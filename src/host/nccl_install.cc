#include "host/nccl_install.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "host/root_search.h"
#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxFindingsPerFolder = 32;     // no real folder holds more than a few NCCLs
constexpr std::size_t kMaxChecksPerFolder = 128;      // names that look like NCCL, checked on disk
constexpr std::size_t kMaxHeaderBytes = 256 * 1024;   // nccl.h is tens of KiB; the defines are at the top
constexpr std::size_t kMaxMetadataBytes = 64 * 1024;  // only the headers of METADATA are needed
constexpr int kMaxDefineDigits = 6;                   // NCCL_VERSION_CODE 23007 has five

const std::vector<std::string>& header_folder_patterns() {
  static const std::vector<std::string> patterns = {"/usr/include",
                                                    "/usr/local/include",
                                                    "/usr/local/cuda/include",
                                                    "/usr/local/cuda-*/include",
                                                    "/usr/local/cuda/targets/*/include",
                                                    "/opt/nccl*/include",
                                                    "/opt/conda/include",
                                                    "/opt/conda/envs/*/include"};
  return patterns;
}

// pip installs into site-packages; Debian's Python (and NGC containers,
// which are Ubuntu) into dist-packages. A CUDA folder assembled from NVIDIA's
// wheels (pip --target) keeps their dist-info folders in its own dist-info/.
const std::vector<std::string>& python_package_folder_patterns() {
  static const std::vector<std::string> patterns = {"/usr/lib/python3*/site-packages",
                                                    "/usr/lib/python3*/dist-packages",
                                                    "/usr/lib64/python3*/site-packages",
                                                    "/usr/local/lib/python3*/site-packages",
                                                    "/usr/local/lib/python3*/dist-packages",
                                                    "/usr/local/lib64/python3*/site-packages",
                                                    "/opt/conda/lib/python3*/site-packages",
                                                    "/opt/conda/envs/*/lib/python3*/site-packages",
                                                    "/usr/local/cuda/dist-info",
                                                    "/usr/local/cuda-*/dist-info"};
  return patterns;
}

const std::vector<std::string>& conda_meta_folder_patterns() {
  static const std::vector<std::string> patterns = {"/opt/conda/conda-meta", "/opt/conda/envs/*/conda-meta"};
  return patterns;
}

// "2.21.5" → 2.21.5; with `allow_build` also "2.21.5.1", conda-forge's
// form with its own build number. Only digits and dots: names on disk carry no other forms.
std::optional<NcclVersion> dotted_release(std::string_view text, bool allow_build) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (parts.size() < 5) {
    std::size_t dot = text.find('.', i);
    parts.push_back(text.substr(i, dot == std::string_view::npos ? std::string_view::npos : dot - i));
    if (dot == std::string_view::npos) break;
    i = dot + 1;
  }
  if (parts.size() != 3 && !(allow_build && parts.size() == 4)) return std::nullopt;
  if (!std::all_of(parts.begin(), parts.end(), ascii::all_digits)) return std::nullopt;
  return NcclVersion::parse(std::string(parts[0]) + "." + std::string(parts[1]) + "." + std::string(parts[2]));
}

// "libnccl.so.2.21.5" → 2.21.5.
std::optional<NcclVersion> library_file_version(std::string_view name) {
  constexpr std::string_view prefix = "libnccl.so.";
  if (!name.starts_with(prefix)) return std::nullopt;
  return dotted_release(name.substr(prefix.size()), false);
}

// A wheel's version: "2.21.5", also a post release ("2.26.2.post1"), which
// repackages the same NCCL source.
std::optional<NcclVersion> wheel_version(std::string_view text) {
  if (std::size_t post = text.find(".post"); post != std::string_view::npos && ascii::all_digits(text.substr(post + 5)))
    text = text.substr(0, post);
  return NcclVersion::parse(text);
}

// "Version: 2.21.5" among the METADATA headers (which end at a blank line).
std::optional<NcclVersion> metadata_version(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (line.starts_with("Version:")) {
      line.remove_prefix(8);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      return wheel_version(line);
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

// The findings, with a budget per folder: a hostile folder full of names
// that look like NCCL costs a bounded number of checks on disk and adds a
// bounded number of findings.
class Collector {
 public:
  explicit Collector(std::vector<InstalledNccl>& out) : out_(out) {}
  void next_folder() { found_ = checked_ = 0; }
  // Whether one more candidate of this folder may be checked; counts it.
  bool may_check() { return found_ < kMaxFindingsPerFolder && checked_++ < kMaxChecksPerFolder; }
  void add(NcclVersion v, std::string path, NcclInstallKind kind) {
    ++found_;
    out_.push_back({v, std::move(path), kind});
  }

 private:
  std::vector<InstalledNccl>& out_;
  std::size_t found_ = 0, checked_ = 0;
};

// A file a library symlink leads to, when its name carries a version.
void add_link_target(const Root& root, const std::string& link, Collector& c) {
  auto target = root.resolve(link);
  if (!target || *target == link) return;  // not a link
  auto v = library_file_version(file_name_of(*target));
  if (v && root.exists(*target) && !root.is_dir(*target)) c.add(*v, *target, NcclInstallKind::Library);
}

void find_libraries(const Root& root, Collector& c) {
  for (const auto& folder : distinct_folders(root, nccl_library_folder_patterns())) {
    c.next_folder();
    for (const auto& name : list_bounded(root, folder.canonical)) {
      auto v = library_file_version(name);
      if (!v && name != "libnccl.so.2" && name != "libnccl.so") continue;
      if (!c.may_check()) break;
      std::string path = child_path(folder.canonical, name);
      if (!v)
        add_link_target(root, path, c);
      else if (root.exists(path) && !root.is_dir(path))  // a dangling link names a library that is not there
        c.add(*v, path, NcclInstallKind::Library);
    }
  }
}

void find_headers(const Root& root, Collector& c) {
  for (const auto& folder : distinct_folders(root, header_folder_patterns())) {
    std::string path = child_path(folder.canonical, "nccl.h");
    if (!is_regular_file(root, path)) continue;
    FileRead r = root.read(path, kMaxHeaderBytes);
    if (!r.ok()) continue;
    c.next_folder();
    if (auto v = parse_nccl_header(r.content)) c.add(*v, path, NcclInstallKind::Header);
  }
}

// "nvidia_nccl_cu12-2.21.5.dist-info" → "2.21.5"; empty for other names.
std::string_view dist_info_version_text(std::string_view name) {
  constexpr std::string_view prefix = "nvidia_nccl_cu", suffix = ".dist-info";
  if (name.size() < prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) return {};
  std::string_view rest = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  std::size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash > 3 || !ascii::all_digits(rest.substr(0, dash))) return {};
  return rest.substr(dash + 1);
}

std::optional<NcclVersion> wheel_dist_info_version(const Root& root, const std::string& dist_info,
                                                   std::string_view version_text) {
  if (auto v = wheel_version(version_text)) return v;
  std::string metadata = dist_info + "/METADATA";
  if (!is_regular_file(root, metadata)) return std::nullopt;
  FileRead r = root.read(metadata, kMaxMetadataBytes);
  return r.ok() ? metadata_version(r.content) : std::nullopt;
}

void find_wheels(const Root& root, Collector& c) {
  for (const auto& folder : distinct_folders(root, python_package_folder_patterns())) {
    c.next_folder();
    std::string library = child_path(folder.canonical, "nvidia/nccl/lib/libnccl.so.2");
    auto resolved_library = root.exists(library) ? root.resolve(library) : std::nullopt;
    for (const auto& name : list_bounded(root, folder.canonical)) {
      std::string_view version_text = dist_info_version_text(name);
      if (version_text.empty()) continue;
      if (!c.may_check()) break;
      std::string dist_info = child_path(folder.canonical, name);
      if (!root.is_dir(dist_info)) continue;
      if (auto v = wheel_dist_info_version(root, dist_info, version_text))
        c.add(*v, resolved_library ? *resolved_library : dist_info, NcclInstallKind::Wheel);
    }
  }
}

// "nccl-2.21.5.1-h6103f9b_0.json" → 2.21.5 (conda-forge appends a build
// number to NCCL's version).
std::optional<NcclVersion> conda_record_version(std::string_view name) {
  constexpr std::string_view prefix = "nccl-", suffix = ".json";
  if (name.size() < prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
    return std::nullopt;
  std::string_view rest = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  std::size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash + 1 >= rest.size()) return std::nullopt;  // needs a build string
  return dotted_release(rest.substr(0, dash), true);
}

void find_conda_packages(const Root& root, Collector& c) {
  for (const auto& folder : distinct_folders(root, conda_meta_folder_patterns())) {
    c.next_folder();
    for (const auto& name : list_bounded(root, folder.canonical)) {
      auto v = conda_record_version(name);
      if (!v) continue;
      if (!c.may_check()) break;
      c.add(*v, child_path(folder.canonical, name), NcclInstallKind::Conda);
    }
  }
}

// "#define NCCL_MINOR 21" → ("NCCL_MINOR", 21). Spaces may surround the '#';
// a comment may follow the number.
std::optional<std::pair<std::string_view, int>> numeric_define(std::string_view line) {
  auto skip_blanks = [&line] {
    std::size_t n = 0;
    while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
    line.remove_prefix(n);
    return n;
  };
  auto take_while = [&line](auto pred) {
    std::size_t n = 0;
    while (n < line.size() && pred(static_cast<unsigned char>(line[n]))) ++n;
    std::string_view taken = line.substr(0, n);
    line.remove_prefix(n);
    return taken;
  };
  skip_blanks();
  if (!line.starts_with('#')) return std::nullopt;
  line.remove_prefix(1);
  skip_blanks();
  if (!line.starts_with("define")) return std::nullopt;
  line.remove_prefix(6);
  if (skip_blanks() == 0) return std::nullopt;
  std::string_view name = take_while([](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
  if (name.empty() || skip_blanks() == 0) return std::nullopt;
  std::string_view digits = take_while([](unsigned char ch) { return std::isdigit(ch); });
  if (digits.empty() || digits.size() > kMaxDefineDigits) return std::nullopt;
  skip_blanks();
  if (!line.empty() && line != "\r" && !line.starts_with("//") && !line.starts_with("/*")) return std::nullopt;
  auto value = whole_number<int>(digits);
  if (!value) return std::nullopt;
  return std::pair{name, *value};
}

// NCCL_VERSION(X,Y,Z) as nccl.h defines it.
int version_code(int x, int y, int z) {
  return (x <= 2 && y <= 8) ? x * 1000 + y * 100 + z : x * 10000 + y * 100 + z;
}

std::optional<NcclVersion> version_from_code(int code) {
  int x = code >= 10000 ? code / 10000 : code / 1000;
  int y = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  int z = code % 100;
  if (version_code(x, y, z) != code) return std::nullopt;  // e.g. 2904: no release encodes to it
  return NcclVersion::parse(std::to_string(x) + "." + std::to_string(y) + "." + std::to_string(z));
}

}  // namespace

const char* nccl_install_kind_name(NcclInstallKind k) {
  switch (k) {
    case NcclInstallKind::Library:
      return "library";
    case NcclInstallKind::Header:
      return "header";
    case NcclInstallKind::Wheel:
      return "wheel";
    case NcclInstallKind::Conda:
      return "conda";
  }
  return "unknown";
}

const std::vector<std::string>& nccl_library_folder_patterns() {
  static const std::vector<std::string> patterns = {"/usr/lib/x86_64-linux-gnu",
                                                    "/usr/lib/aarch64-linux-gnu",
                                                    "/usr/lib64",
                                                    "/usr/lib",
                                                    "/usr/local/lib",
                                                    "/usr/local/cuda/lib64",
                                                    "/usr/local/cuda/targets/*/lib",
                                                    "/usr/local/cuda-*/lib64",
                                                    "/opt/nccl*/lib",
                                                    "/opt/conda/lib",
                                                    "/opt/conda/envs/*/lib",
                                                    "/opt/hpcx/nccl*/lib"};
  return patterns;
}

std::optional<NcclVersion> parse_nccl_header(std::string_view text) {
  std::optional<int> major, minor, patch, code;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (auto define = numeric_define(line)) {
      auto& [name, value] = *define;
      // The first definition counts, as for the preprocessor's first #define.
      std::optional<int>* slot = name == "NCCL_MAJOR"          ? &major
                                 : name == "NCCL_MINOR"        ? &minor
                                 : name == "NCCL_PATCH"        ? &patch
                                 : name == "NCCL_VERSION_CODE" ? &code
                                                               : nullptr;
      if (slot && !*slot) *slot = value;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (major && minor && patch) {
    if (code && version_code(*major, *minor, *patch) != *code) return std::nullopt;
    return NcclVersion::parse(std::to_string(*major) + "." + std::to_string(*minor) + "." + std::to_string(*patch));
  }
  return code ? version_from_code(*code) : std::nullopt;
}

std::vector<InstalledNccl> find_installed_nccl(const Root& root) {
  std::vector<InstalledNccl> found;
  Collector c(found);
  find_libraries(root, c);
  find_headers(root, c);
  find_wheels(root, c);
  find_conda_packages(root, c);
  auto key = [](const InstalledNccl& i) { return std::tie(i.kind, i.path, i.version); };
  std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

std::vector<NcclVersion> installed_nccl_versions(const std::vector<InstalledNccl>& found) {
  std::vector<NcclVersion> versions;
  for (const auto& i : found) versions.push_back(i.version);
  std::sort(versions.begin(), versions.end());
  versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
  return versions;
}

}  // namespace gdrcheck

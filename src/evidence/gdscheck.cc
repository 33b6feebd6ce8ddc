// Reader for pasted `gdscheck -p` output.
//
// Nearly every line is "key : value" with padding around the colon; the
// section titles ("DRIVER CONFIGURATION:") and the "====" rules carry no
// data. The layout moved between releases (the 0.9 beta had no sections,
// 1.16 prints route tokens instead of Supported), so each line is read by
// what its key is, wherever it sits.
#include "evidence/gdscheck.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxEntries = 256;
constexpr std::size_t kMaxGdscheckLine = 4096;

const char* const kCaution =
    "gdscheck -p reports what is installed and configured: \"Supported\" does not prove that any I/O takes the "
    "direct path (compat mode falls back silently); the nvidia-fs read/write counters or gdsio with -x 0 do";

// Blanks and the Markdown marks ('*', '`') a pasted report wraps around a
// key or a value.
std::string_view trim_markdown(std::string_view s) {
  return ascii::trim(s, " \t\n\v\f\r*`");
}

// "true"/"1"/"enabled"/"supported" and their opposites; nullopt otherwise.
std::optional<bool> to_bool(std::string_view v) {
  std::string l = ascii::lower(trim_markdown(v));
  if (l == "true" || l == "1" || l == "enabled" || l == "supported" || l == "yes") return true;
  if (l == "false" || l == "0" || l == "disabled" || l == "unsupported" || l == "no") return false;
  return std::nullopt;
}

// The word after `key` up to the next space: "nvidia_fs version:  2.17 ..."
std::string word_after(std::string_view line, std::string_view key) {
  std::size_t at = line.find(key);
  if (at == std::string_view::npos) return "";
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && ascii::is_space(rest.front())) rest.remove_prefix(1);
  std::size_t end = 0;
  while (end < rest.size() && !ascii::is_space(rest[end])) ++end;
  return std::string(rest.substr(0, end));
}

// Route tokens of GDS 1.16 ("nvfs, compat"); Supported/Unsupported before.
enum class RouteValue { Supported, CompatOnly, Unsupported, NotARoute };

RouteValue classify_route(std::string_view value) {
  std::string v = ascii::lower(value);
  if (v == "supported") return RouteValue::Supported;
  if (v == "unsupported") return RouteValue::Unsupported;
  bool any = false, direct = false;
  std::size_t i = 0;
  while (i <= v.size()) {
    std::size_t j = std::min(v.find(',', i), v.size());
    std::string t(trim_markdown(std::string_view(v).substr(i, j - i)));
    i = j + 1;
    if (t.empty()) continue;
    if (t == "nvfs" || t == "dmabuf" || t == "p2pdma" || t == "c2c" || t == "nvidia_peermem" || t == "peermem")
      direct = true;
    else if (t != "compat")
      return RouteValue::NotARoute;
    any = true;
  }
  if (!any) return RouteValue::NotARoute;
  return direct ? RouteValue::Supported : RouteValue::CompatOnly;
}

// "GPU index 0 NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled"
// "GPU 0 Quadro K1200 does not have supported architecture, has 5 requires >= 6"
std::optional<GdscheckGpu> parse_gpu(std::string_view line) {
  std::string_view rest;
  if (line.starts_with("GPU index "))
    rest = line.substr(10);
  else if (line.starts_with("GPU ") && line.size() > 4 && std::isdigit(static_cast<unsigned char>(line[4])))
    rest = line.substr(4);
  else
    return std::nullopt;
  auto index = leading_number<long>(rest);
  if (!index || *index < 0 || *index > 4096) return std::nullopt;
  GdscheckGpu g;
  g.index = static_cast<int>(*index);
  std::size_t name_start = rest.find(' ');
  if (name_start == std::string_view::npos) return g;
  rest = rest.substr(name_start + 1);
  std::size_t name_end =
      std::min({rest.find(" bar:"), rest.find(" does not"), rest.find(" supports GDS"), rest.size()});
  g.name = std::string(trim_markdown(rest.substr(0, name_end)));
  std::string_view tail = rest.substr(name_end);
  if (auto at = tail.find("(MiB):"); at != std::string_view::npos)
    g.bar1_mib = leading_number<long>(tail.substr(at + 6));
  g.supports_gds = ascii::contains(tail, "supports GDS") && !ascii::contains(tail, "not support");
  g.iommu_state = word_after(tail, "IOMMU State:");
  if (!g.supports_gds) g.detail = std::string(trim_markdown(tail));
  return g;
}

class GdscheckReader {
 public:
  void line(std::string_view raw);
  GdscheckReport finish();

 private:
  bool versions(std::string_view line);
  bool platform_lines(std::string_view line);
  void key_value(const std::string& key, const std::string& value);
  void transport(const std::string& key, const std::string& value, RouteValue route);
  void push(std::vector<std::pair<std::string, std::string>>& to, const std::string& k, const std::string& v);

  GdscheckReport r_;
  bool in_environment_ = false;
};

void GdscheckReader::push(std::vector<std::pair<std::string, std::string>>& to, const std::string& k,
                          const std::string& v) {
  if (to.size() < kMaxEntries) to.emplace_back(k, v);
}

// "GDS release version: 1.0.0.82", "GDS release version (beta): 0.9.1.5",
// "nvidia_fs version:  2.7 libcufile version: 2.4",
// "nvidia_fs version:  2.27 nvidia_fs minimum version: 2.12".
bool GdscheckReader::versions(std::string_view line) {
  if (line.starts_with("GDS release version")) {
    r_.beta = ascii::contains(line, "(beta)");
    r_.gds_version = word_after(line, ":");
    return true;
  }
  if (!ascii::contains(line, "nvidia_fs version:") && !ascii::contains(line, "libcufile version:") &&
      !ascii::contains(line, "nvidia_fs minimum version:"))
    return false;
  if (std::string v = word_after(line, "nvidia_fs version:"); !v.empty()) r_.nvidia_fs_version = v;
  if (std::string v = word_after(line, "minimum version:"); !v.empty()) r_.nvidia_fs_min_version = v;
  if (std::string v = word_after(line, "libcufile version:"); !v.empty()) r_.libcufile_version = v;
  return true;
}

bool GdscheckReader::platform_lines(std::string_view line) {
  std::string l = ascii::lower(line);
  if (l.starts_with("platform verification")) {
    if (ascii::contains(l, "succeeded")) r_.platform_verified = true;
    if (ascii::contains(l, "failed") || ascii::contains(l, "error")) r_.platform_verified = false;
    return true;
  }
  if (ascii::contains(l, "acs") && (ascii::contains(l, "switch") || ascii::contains(l, "enabled"))) {
    if (r_.acs.size() < kMaxEntries) r_.acs.emplace_back(line);
    return true;
  }
  if (ascii::contains(l, "initialization failed") || ascii::contains(l, "not supported on current platform") ||
      ascii::contains(l, "platform is not supported") || ascii::contains(l, "does not have any supported gpu")) {
    if (r_.errors.size() < kMaxEntries) r_.errors.emplace_back(line);
    return true;
  }
  return false;
}

void GdscheckReader::transport(const std::string& key, const std::string& value, RouteValue route) {
  if (r_.transports.size() >= kMaxEntries) return;
  r_.transports.emplace_back(key, value);
  auto& list = route == RouteValue::Supported    ? r_.supported
               : route == RouteValue::CompatOnly ? r_.compat_only
                                                 : r_.unsupported;
  list.push_back(key);
}

void GdscheckReader::key_value(const std::string& key, const std::string& value) {
  std::string k = ascii::lower(key);
  if (key.starts_with("--")) {
    std::string name(trim_markdown(std::string_view(key).substr(2)));
    push(r_.driver_config, name, value);
    if (ascii::contains(k, "peerdirect") || ascii::contains(k, "peer direct")) r_.peerdirect = to_bool(value);
    return;
  }
  if (ascii::contains(k, "peerdirect") ||
      ascii::contains(k, "peer direct")) {  // nvidia-fs stats: "Mellanox PeerDirect Supported: True"
    r_.peerdirect = to_bool(value);
    return;
  }
  if (k == "iommu") {
    r_.iommu = value;
    r_.iommu_enabled = to_bool(value);
    return;
  }
  if (k.starts_with("nvidia driver info status")) return void(r_.nvidia_driver_info = value);
  if (k.starts_with("cuda driver version")) return void(r_.cuda_driver_version = value);
  if (k == "platform") return void(r_.platform = value);
  if (k.starts_with("properties.") || k.starts_with("fs.") || k.starts_with("profile.") ||
      k.starts_with("miscellaneous.") || k.starts_with("execution.") || k.starts_with("logging.")) {
    push(r_.cufile_config, key, value);
    if (k == "properties.allow_compat_mode" || (k == "properties.use_compat_mode" && !r_.compat_mode))
      r_.compat_mode = to_bool(value);
    if (k == "properties.force_compat_mode") r_.force_compat_mode = to_bool(value);
    if (k == "properties.use_pci_p2pdma") r_.use_pci_p2pdma = to_bool(value);
    return;
  }
  if (RouteValue route = classify_route(value); route != RouteValue::NotARoute) return transport(key, value, route);
  if (in_environment_) push(r_.environment, key, value);
}

void GdscheckReader::line(std::string_view raw) {
  if (raw.size() > kMaxGdscheckLine) raw = raw.substr(0, kMaxGdscheckLine);
  std::string_view line = trim_markdown(raw);
  if (line.empty() || line.front() == '=') return;
  if (line.back() == ':' && line.find(':') == line.size() - 1) {  // section title
    in_environment_ = ascii::lower(line) == "environment:";
    return;
  }
  if (versions(line) || platform_lines(line)) return;
  if (auto gpu = parse_gpu(line)) {
    if (r_.gpus.size() < kMaxEntries) r_.gpus.push_back(std::move(*gpu));
    return;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string key(trim_markdown(line.substr(0, colon))), value(trim_markdown(line.substr(colon + 1)));
  if (key.empty() || key.size() > 80) return;
  key_value(key, value);
}

GdscheckReport GdscheckReader::finish() {
  r_.notes.insert(r_.notes.begin(), kCaution);
  if (r_.gds_version.empty() && r_.transports.empty() && r_.gpus.empty() && !r_.platform_verified)
    r_.notes.push_back("no gdscheck -p output found");
  else if (r_.gds_version.empty())
    r_.notes.push_back("no \"GDS release version\" line: the paste starts after it");
  if (!r_.gds_version.empty() && r_.nvidia_fs_version.empty())
    r_.notes.push_back("no nvidia_fs version: the nvidia-fs module is probably not loaded");
  if (!r_.platform_verified)
    r_.notes.push_back("no platform verification line: the paste is cut or gdscheck stopped early");
  if (r_.compat_mode == true && !r_.compat_only.empty())
    r_.notes.push_back(
        "compat mode is allowed and some transports are compat-only: their I/O is bounced through host "
        "memory without an error");
  return std::move(r_);
}

}  // namespace

GdscheckReport parse_gdscheck(std::string_view text) {
  GdscheckReader reader;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    reader.line(text.substr(start, end - start));
    start = end + 1;
  }
  return reader.finish();
}

bool looks_like_gdscheck(std::string_view head) {
  if (ascii::contains(head, "GDS release version") || ascii::contains(head, "DRIVER CONFIGURATION") ||
      ascii::contains(head, "cuFile CONFIGURATION") || ascii::contains(head, "CUFILE CONFIGURATION") ||
      ascii::contains(head, "nvidia_fs version:"))
    return true;
  GdscheckReport r = parse_gdscheck(head.substr(0, std::min<std::size_t>(head.size(), 64 * 1024)));
  return r.transports.size() >= 3;
}

}  // namespace gdrcheck

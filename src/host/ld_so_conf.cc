#include "host/ld_so_conf.h"

#include <algorithm>
#include <set>

#include "host/root_search.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxConfFiles = 64;
constexpr std::size_t kMaxConfBytes = 64 * 1024;
constexpr std::size_t kMaxListedFolders = 128;

// "include" and "hwcap" are keywords only when a blank follows them.
bool is_keyword_line(std::string_view line) {
  for (std::string_view keyword : {"include", "hwcap"})
    if (line.size() > keyword.size() && line.starts_with(keyword) &&
        (line[keyword.size()] == ' ' || line[keyword.size()] == '\t'))
      return true;
  return false;
}

bool usable_folder(std::string_view entry) {
  if (entry.empty() || entry[0] != '/') return false;
  // '*' would make the folder a pattern for the folder search; control
  // characters (a NUL above all) have no place in a path read from a file.
  return std::none_of(entry.begin(), entry.end(),
                      [](char c) { return c == '*' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

void read_ld_so_conf_file(const Root& root, const std::string& path, std::vector<std::string>& out) {
  if (!is_regular_file(root, path)) return;
  FileRead r = root.read(path, kMaxConfBytes);
  if (!r.ok()) return;
  for (auto& folder : parse_ld_so_conf(r.content)) {
    if (out.size() >= kMaxListedFolders) return;
    out.push_back(std::move(folder));
  }
}

}  // namespace

std::vector<std::string> parse_ld_so_conf(std::string_view text) {
  std::vector<std::string> folders;
  std::size_t start = 0;
  while (start < text.size() && folders.size() < kMaxListedFolders) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = ascii::trim(line, " \t\r");
    if (is_keyword_line(line)) continue;
    while (line.size() > 1 && line.back() == '/') line.remove_suffix(1);
    if (usable_folder(line)) folders.emplace_back(line);
  }
  return folders;
}

std::vector<std::string> loader_folders(const Root& root) {
  std::vector<std::string> listed;
  std::size_t files = 0;
  for (const auto& name : list_bounded(root, "/etc/ld.so.conf.d")) {
    if (!name.ends_with(".conf") || name.starts_with(".")) continue;
    if (++files > kMaxConfFiles) break;
    read_ld_so_conf_file(root, "/etc/ld.so.conf.d/" + name, listed);
  }
  read_ld_so_conf_file(root, "/etc/ld.so.conf", listed);
  listed.insert(listed.end(), default_loader_folders().begin(), default_loader_folders().end());
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& folder : listed)
    if (seen.insert(folder).second) out.push_back(std::move(folder));
  return out;
}

const std::vector<std::string>& default_loader_folders() {
  static const std::vector<std::string> folders = {"/lib/x86_64-linux-gnu",
                                                   "/usr/lib/x86_64-linux-gnu",
                                                   "/lib/aarch64-linux-gnu",
                                                   "/usr/lib/aarch64-linux-gnu",
                                                   "/lib64",
                                                   "/usr/lib64",
                                                   "/lib",
                                                   "/usr/lib"};
  return folders;
}

}  // namespace gdrcheck

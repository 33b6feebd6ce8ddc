#include "host/gds_state.h"

#include <sstream>

#include "host/capture_extent.h"
#include "host/sysfs_values.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxCufileBytes = 1 << 20;  // the shipped file is 11 KiB
constexpr std::size_t kMaxGdsStateLines = 4096;

std::vector<std::string> nonblank_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && out.size() < kMaxGdsStateLines;)
    if (std::string t(ascii::trim(line, " \t\r")); !t.empty()) out.push_back(t);
  return out;
}

void read_cufile(const Root& root, const GdsReadOptions& o, GdsState& g) {
  std::vector<std::pair<std::string, std::string>> places;  // path, why it is looked at
  if (o.cufile_env_path && !o.cufile_env_path->empty()) places.push_back({*o.cufile_env_path, "CUFILE_ENV_PATH_JSON"});
  places.push_back({"/etc/cufile.json", ""});
  places.push_back({"/usr/local/cuda/gds/cufile.json", ""});
  for (const auto& [path, why] : places) {
    FileRead r = root.read(path, kMaxCufileBytes);
    std::string label = why.empty() ? path : why + "=" + path;
    if (r.status == FileRead::Status::Missing) {
      g.cufile_searched.push_back(label + ": not found");
      continue;
    }
    g.cufile_searched.push_back(label + (r.ok() ? "" : ": " + r.problem()));
    g.cufile_path = path;
    if (r.ok())
      g.cufile_text = r.content;
    else
      g.cufile_problem = r.problem();
    return;
  }
}

std::optional<int> count_nvidia_gpus(const Root& root) {
  if (!root.is_dir("/sys/bus/pci/devices")) return std::nullopt;
  int gpus = 0;
  for (const auto& d : root.list("/sys/bus/pci/devices")) {
    std::string base = "/sys/bus/pci/devices/" + d;
    auto vendor = parse_sysfs_hex(root.read(base + "/vendor", 64).trimmed());
    auto cls = parse_sysfs_hex(root.read(base + "/class", 64).trimmed());
    gpus += vendor == 0x10deu && cls && (*cls >> 16) == 0x03;
  }
  return gpus;
}

// A node has hundreds of mounts (containers add overlays); the block
// devices behind them are few. Past this many, the rest are not read.
constexpr std::size_t kMaxBlockStacks = 256;

void read_mounts(const Root& root, const GdsReadOptions& o, GdsState& g) {
  FileRead r = root.read("/proc/mounts", 8u << 20);
  if (r.status == FileRead::Status::Missing && root.exists("/proc/self/mounts"))
    r = root.read("/proc/self/mounts", 8u << 20);
  if (!r.ok()) {
    g.mounts_problem = r.reason();
    return;
  }
  g.mounts = parse_mounts(r.content);
  for (const auto& m : g.mounts->mounts) {
    if (g.block_stacks.count(m.device) || g.block_stacks.size() >= kMaxBlockStacks) continue;
    if (auto name = block_device_name(root, m.device)) g.block_stacks[m.device] = read_block_device(root, *name);
  }
  if (!o.path.empty()) g.path = root.resolve(o.path).value_or(o.path);
}

}  // namespace

std::vector<NvidiaFsBackend> parse_nvidia_fs_modules(const std::string& text) {
  std::vector<NvidiaFsBackend> out;
  for (const auto& line : nonblank_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    out.push_back({std::string(ascii::trim(line.substr(0, colon), " \t\r")),
                   std::string(ascii::trim(line.substr(colon + 1), " \t\r"))});
  }
  return out;
}

GdsState read_gds_state(const Root& root, const GdsReadOptions& options) {
  GdsState g;
  g.root = root.dir();
  g.uncaptured = uncaptured_areas(root);
  g.nvidia_gpus = count_nvidia_gpus(root);
  g.nvidia_fs_loaded = root.is_dir("/sys/module/nvidia_fs");
  g.module_version = read_fact(root, "/sys/module/nvidia_fs/version");
  g.proc_version = read_fact(root, "/proc/driver/nvidia-fs/version");
  FileRead modules = root.read("/proc/driver/nvidia-fs/modules", 64 * 1024);
  if (modules.ok())
    g.backends = parse_nvidia_fs_modules(modules.content);
  else
    g.backends_problem = modules.reason();
  if (FileRead bridges = root.read("/proc/driver/nvidia-fs/bridges", 64 * 1024); bridges.ok())
    g.acs_bridges = nonblank_lines(bridges.content);
  read_cufile(root, options, g);
  read_mounts(root, options, g);
  g.peermem_loaded = root.is_dir("/sys/module/nvidia_peermem");
  g.nvme_class_readable = root.is_dir("/sys/class");
  g.nvme_controllers = read_nvme_controllers(root);
  g.p2pdma = read_p2pdma_state(root);
  g.addresses = read_interface_addresses(root);
  g.lnet = read_lnet_state(root);
  return g;
}

}  // namespace gdrcheck

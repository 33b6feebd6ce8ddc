#include "host/block_stack.h"

#include "host/basename_of.h"
#include "host/nvme_controllers.h"

#include <regex>
#include <set>

namespace gdrcheck {
namespace {

constexpr int kMaxStackDepth = 8;      // partition on dm on md on nvme is four
constexpr std::size_t kMaxBelow = 64;  // members of one md or dm device

std::string dirname_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

std::string read_value(const Root& root, const std::string& path, std::vector<std::string>& evidence) {
  FileRead r = root.read(path, 4096);
  if (!r.ok()) return "";
  std::string v = r.trimmed();
  evidence.push_back(path + " = " + v);
  return v;
}

bool is_nvme_namespace(const std::string& name) {
  static const std::regex re("nvme[0-9]+(c[0-9]+)?n[0-9]+");
  return std::regex_match(name, re);
}

BlockDevice::Kind kind_of(const Root& root, const std::string& name) {
  const std::string base = "/sys/class/block/" + name;
  if (root.exists(base + "/partition")) return BlockDevice::Kind::Partition;
  if (is_nvme_namespace(name)) return BlockDevice::Kind::NvmeNamespace;
  if (root.is_dir(base + "/md")) return BlockDevice::Kind::Md;
  if (root.is_dir(base + "/dm")) return BlockDevice::Kind::DeviceMapper;
  if (name.rfind("loop", 0) == 0) return BlockDevice::Kind::Loop;
  if (name.rfind("sd", 0) == 0) return BlockDevice::Kind::Scsi;
  if (name.rfind("vd", 0) == 0) return BlockDevice::Kind::Virtio;
  return BlockDevice::Kind::Other;
}

// dm uuids start with the target's owner: "LVM-…", "CRYPT-LUKS2-…", "mpath-…", "part1-mpath-…".
std::string dm_kind_of(const std::string& uuid) {
  for (const char* prefix : {"LVM", "CRYPT", "mpath"})
    if (uuid.rfind(std::string(prefix) + "-", 0) == 0) return prefix;
  if (uuid.rfind("part", 0) == 0) return "part";
  return "";
}

void read_nvme(const Root& root, BlockDevice& d) {
  const std::string base = "/sys/class/block/" + d.name;
  auto controller = root.resolve(base + "/device");
  std::string ctrl = controller ? basename_of(*controller) : "";
  static const std::regex ctrl_re("nvme[0-9]+");
  if (!std::regex_match(ctrl, ctrl_re)) {
    // A multipath head namespace's device is its subsystem; its paths are
    // nvmeXcYnZ. The first controller of the subsystem stands for it.
    std::string subsys = ctrl.rfind("nvme-subsys", 0) == 0 ? ctrl : "";
    if (!subsys.empty())
      for (const auto& e : root.list("/sys/class/nvme-subsystem/" + subsys))
        if (std::regex_match(e, ctrl_re)) {
          ctrl = e;
          d.evidence.push_back(base + "/device -> " + subsys + " (multipath); first path " + e);
          break;
        }
    if (!std::regex_match(ctrl, ctrl_re)) {
      d.problem = base + "/device: no NVMe controller found";
      return;
    }
  }
  NvmeController c = read_nvme_controller(root, ctrl);
  d.controller = c.name;
  d.transport = c.transport;
  d.pci = c.pci;
  if (d.transport.empty()) {
    d.problem = "/sys/class/nvme/" + ctrl + "/transport: not readable";
    return;
  }
  d.evidence.insert(d.evidence.end(), c.evidence.begin(), c.evidence.end());
}

BlockDevice read_at(const Root& root, const std::string& name, int depth, std::set<std::string>& seen);

void read_members(const Root& root, BlockDevice& d, int depth, std::set<std::string>& seen) {
  auto slaves = root.list("/sys/class/block/" + d.name + "/slaves");
  if (slaves.size() > kMaxBelow) slaves.resize(kMaxBelow);
  for (const auto& s : slaves) d.below.push_back(read_at(root, s, depth + 1, seen));
  if (slaves.empty()) d.problem = "/sys/class/block/" + d.name + "/slaves: no member devices found";
}

BlockDevice read_at(const Root& root, const std::string& name, int depth,
                    std::set<std::string>& seen) {  // seen: the devices above this one
  BlockDevice d;
  d.name = name;
  const std::string base = "/sys/class/block/" + name;
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." || !root.exists(base)) {
    d.problem = base + ": not found";
    return d;
  }
  if (depth > kMaxStackDepth || !seen.insert(name).second) {
    d.problem = base + ": stacked deeper than " + std::to_string(kMaxStackDepth) + " or in a cycle";
    return d;
  }
  d.kind = kind_of(root, name);
  switch (d.kind) {
    case BlockDevice::Kind::Partition: {
      // A partition's directory sits inside its disk's: .../nvme0n1/nvme0n1p1.
      auto where = root.resolve(base);
      std::string disk = where ? basename_of(dirname_of(*where)) : "";
      if (disk.empty() || disk == "block" || !root.exists("/sys/class/block/" + disk)) {
        d.problem = base + ": the disk it is a partition of is not found";
        break;
      }
      d.evidence.push_back(base + ": partition of " + disk);
      d.below.push_back(read_at(root, disk, depth + 1, seen));
      break;
    }
    case BlockDevice::Kind::NvmeNamespace:
      read_nvme(root, d);
      break;
    case BlockDevice::Kind::Md:
      d.level = read_value(root, base + "/md/level", d.evidence);
      if (d.level.empty()) d.problem = base + "/md/level: not readable";
      read_members(root, d, depth, seen);
      break;
    case BlockDevice::Kind::DeviceMapper:
      d.dm_name = read_value(root, base + "/dm/name", d.evidence);
      d.dm_kind = dm_kind_of(read_value(root, base + "/dm/uuid", d.evidence));
      read_members(root, d, depth, seen);
      break;
    case BlockDevice::Kind::Loop:
      d.backing_file = read_value(root, base + "/loop/backing_file", d.evidence);
      break;
    default:
      break;
  }
  seen.erase(name);  // ancestors only: two partitions of one disk under one md are not a cycle
  return d;
}

}  // namespace

const char* block_kind_name(BlockDevice::Kind k) {
  switch (k) {
    case BlockDevice::Kind::NvmeNamespace:
      return "NVMe namespace";
    case BlockDevice::Kind::Partition:
      return "partition";
    case BlockDevice::Kind::Md:
      return "md RAID";
    case BlockDevice::Kind::DeviceMapper:
      return "device-mapper";
    case BlockDevice::Kind::Loop:
      return "loop device";
    case BlockDevice::Kind::Scsi:
      return "SCSI/SATA disk";
    case BlockDevice::Kind::Virtio:
      return "virtio disk";
    case BlockDevice::Kind::Other:
      return "block device";
  }
  return "block device";
}

std::optional<std::string> block_device_name(const Root& root, const std::string& device_field) {
  if (device_field.rfind("/dev/", 0) != 0 || device_field.find("/../") != std::string::npos) return std::nullopt;
  if (device_field.rfind("/dev/mapper/", 0) == 0) {
    const std::string wanted = device_field.substr(12);
    for (const auto& e : root.list("/sys/class/block")) {
      if (e.rfind("dm-", 0) != 0) continue;
      FileRead n = root.read("/sys/class/block/" + e + "/dm/name", 4096);
      if (n.ok() && n.trimmed() == wanted) return e;
    }
    return std::nullopt;
  }
  std::string name = device_field.substr(5);
  if (name.find('/') != std::string::npos) {  // /dev/md/data, /dev/disk/by-uuid/…: links the root may hold
    auto target = root.resolve(device_field);
    if (!target || target->rfind("/dev/", 0) != 0) return std::nullopt;
    name = target->substr(5);
    if (name.find('/') != std::string::npos) return std::nullopt;
  }
  if (name.empty() || !root.exists("/sys/class/block/" + name)) return std::nullopt;
  return name;
}

BlockDevice read_block_device(const Root& root, const std::string& name) {
  std::set<std::string> seen;
  return read_at(root, name, 0, seen);
}

}  // namespace gdrcheck

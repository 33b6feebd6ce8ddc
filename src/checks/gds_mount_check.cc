// `gds.mount`: whether GPUDirect Storage can go direct on the file systems
// that hold data (platform-spec §5.4): the file system type and its mount
// options, the block stack below it (NVMe over PCIe or RDMA, md RAID0 of
// NVMe; LVM, dm-crypt, multipath, other md levels, loop devices and
// non-NVMe disks break the direct path), and whether the route it needs is
// there (nvidia-fs with the right storage driver registered, or cuFile's
// PCI-P2PDMA route, or peer memory for user-space RDMA file systems).
#include <algorithm>

#include "checks/gds_checks.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

// How cuFile I/O on one mount can go direct, or why it cannot.
struct Route {
  enum class Kind { Direct, Compat, Unknown } kind = Kind::Unknown;
  std::string what;          // "xfs on nvme0n1 (NVMe over PCIe, 0000:5e:00.0)"
  std::string nvfs_backend;  // the storage driver nvidia-fs needs registered ("nvme"); "" when none
  std::string p2pdma_key;    // cufile.json route key for PCI-P2PDMA ("block.nvme"); "" when none
  bool user_rdma = false;    // WekaFS, GPFS: user-space RDMA, needs peer memory or DMA-BUF
  std::string why_not;       // Compat / Unknown: the reason
  std::vector<std::string> evidence;
};

Route compat_route(std::string what, std::string why) {
  Route r;
  r.kind = Route::Kind::Compat;
  r.what = std::move(what);
  r.why_not = std::move(why);
  return r;
}

Route direct_route(std::string what, std::string backend, std::string p2pdma) {
  Route r;
  r.kind = Route::Kind::Direct;
  r.what = std::move(what);
  r.nvfs_backend = std::move(backend);
  r.p2pdma_key = std::move(p2pdma);
  return r;
}

Route unknown_route(std::string what, std::string why) {
  Route r = compat_route(std::move(what), std::move(why));
  r.kind = Route::Kind::Unknown;
  return r;
}

std::string describe_device(const BlockDevice& d) {
  std::string s = printable(d.name) + " (" + block_kind_name(d.kind);
  if (d.kind == BlockDevice::Kind::NvmeNamespace && !d.transport.empty()) {
    s += " over " + printable(d.transport == "pcie" ? std::string("PCIe") : d.transport);
    if (d.pci) s += ", " + d.pci->str();
  }
  if (d.kind == BlockDevice::Kind::Md && !d.level.empty()) s += " " + printable(d.level);
  if (d.kind == BlockDevice::Kind::DeviceMapper && !d.dm_kind.empty()) s += " " + printable(d.dm_kind);
  return s + ")";
}

void add_evidence(const BlockDevice& d, std::vector<std::string>& ev) {
  for (const auto& e : d.evidence) ev.push_back(printable(e));
  if (!d.problem.empty()) ev.push_back(printable(d.problem));
  for (const auto& b : d.below) add_evidence(b, ev);
}

// The block stack under a local file system (xfs, ext4).
Route block_route(const BlockDevice& d) {
  const std::string what = describe_device(d);
  switch (d.kind) {
    case BlockDevice::Kind::Partition:
      if (d.below.empty()) return unknown_route(what, printable(d.problem));
      return block_route(d.below.front());
    case BlockDevice::Kind::NvmeNamespace:
      if (d.transport == "pcie") return direct_route(what, "nvme", "block.nvme");
      if (d.transport == "rdma") return direct_route(what, "nvme_rdma", "block.nvmeof");
      if (d.transport.empty())
        return unknown_route(what, "the NVMe transport could not be read: " + printable(d.problem));
      return compat_route(
          what, "NVMe over " + printable(d.transport) + ": GDS goes direct on NVMe over PCIe and over RDMA only");
    case BlockDevice::Kind::Md: {
      if (d.level.empty()) return unknown_route(what, "the md RAID level could not be read");
      if (d.level != "raid0")
        return compat_route(what, "md " + printable(d.level) + ": GDS goes direct on md RAID0 only");
      for (const auto& m : d.below) {
        Route r = block_route(m);
        if (r.kind != Route::Kind::Direct) {
          r.what = what + " of " + r.what;
          return r;
        }
        if (r.nvfs_backend != "nvme") return compat_route(what, "md RAID0 member " + r.what + " is not local NVMe");
      }
      if (d.below.empty()) return unknown_route(what, printable(d.problem));
      return direct_route(what, "nvme", "block.raid");
    }
    case BlockDevice::Kind::DeviceMapper: {
      std::string kind = d.dm_kind == "LVM"     ? "an LVM logical volume"
                         : d.dm_kind == "CRYPT" ? "dm-crypt"
                         : d.dm_kind == "mpath" ? "dm-multipath"
                                                : "a device-mapper device";
      return compat_route(what, kind + ": the direct path does not go through device-mapper");
    }
    case BlockDevice::Kind::Loop:
      return compat_route(what, "a loop device (file " + printable(d.backing_file) + "): no direct path");
    case BlockDevice::Kind::Scsi:
    case BlockDevice::Kind::Virtio:
    case BlockDevice::Kind::Other:
      if (!d.problem.empty()) return unknown_route(what, printable(d.problem));
      return compat_route(what, "not an NVMe device");
  }
  return unknown_route(what, "");
}

// What GDS can do on one mount, from its type, options and block stack.
Route mount_route(const Mount& m, const GdsState& g) {
  const std::string fs = m.fstype;
  const std::string on = printable(fs) + " on " + printable(m.device);
  if (fs == "xfs" || fs == "ext4") {
    auto it = g.block_stacks.find(m.device);
    if (it == g.block_stacks.end())
      return unknown_route(on, printable(m.device) + " is not a block device this root shows under /sys/class/block");
    Route r = block_route(it->second);
    r.what = printable(fs) + " on " + r.what;
    add_evidence(it->second, r.evidence);
    if (fs == "ext4" && r.kind == Route::Kind::Direct && !m.has_option("data=ordered")) {
      auto mode = m.option("data");
      r.kind = Route::Kind::Compat;
      r.why_not = mode ? "ext4 with data=" + printable(*mode) + ": GDS supports ext4 in ordered mode only"
                       : "ext4 without data=ordered in its mount options: GDS supports ext4 in ordered mode and "
                         "takes it as such only when the mount says so";
    }
    return r;
  }
  if (fs == "lustre") return direct_route(on + " (Lustre over LNet)", "lnet", "");
  if (fs == "nfs" || fs == "nfs4") {
    auto proto = m.option("proto");
    if (proto == "rdma") return direct_route(on + " (NFS over RDMA)", "rpcrdma", "");
    return compat_route(
        on, "NFS over " + printable(proto.value_or("tcp")) + ": GDS goes direct on NFS over RDMA only (proto=rdma)");
  }
  if (fs == "beegfs" || fs == "fhgfs") return direct_route(on + " (BeeGFS)", "beegfs", "");
  if (fs == "wekafs" || fs == "gpfs") {
    Route r = direct_route(on + (fs == "gpfs" ? " (IBM Storage Scale, user-space RDMA)" : " (WekaFS, user-space RDMA)"),
                           "", "");
    r.user_rdma = true;
    return r;
  }
  if (fs == "virtiofs") return direct_route(on + " (virtiofs)", "", "fs.virtiofs");
  return compat_route(on, printable(fs) + " has no GDS route: cuFile reads and writes it through host memory");
}

bool is_listed(const std::vector<std::string>& list, const std::string& x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

bool backend_registered(const GdsState& g, const std::string& backend) {
  if (!g.nvidia_fs_loaded || !g.backends) return false;
  return std::any_of(g.backends->begin(), g.backends->end(),
                     [&](const NvidiaFsBackend& b) { return b.name == backend; });
}

// Whether the route a direct-capable mount needs is there; "" when it is,
// else what is missing. `unknown` when the evidence cannot say.
std::string missing_route(const Route& r, const GdsState& g, const std::optional<CufileConfig>& c, bool& unknown,
                          std::vector<std::string>& ev) {
  if (c && c->use_pci_p2pdma == true && !r.p2pdma_key.empty() && is_listed(c->p2pdma_routes, r.p2pdma_key)) {
    ev.push_back(c->file + ": use_pci_p2pdma and " + r.p2pdma_key + ".use_pci_p2pdma are true");
    return "";
  }
  if (r.user_rdma) {
    bool dmabuf = c && c->rdma_peer_type == "dmabuf";
    ev.push_back(std::string("/sys/module/nvidia_peermem: ") + (g.peermem_loaded ? "loaded" : "not found"));
    if (dmabuf) ev.push_back(c->file + ": rdma_peer_type \"dmabuf\"");
    if (g.peermem_loaded || dmabuf) return "";
    return "user-space RDMA needs nvidia-peermem loaded or rdma_peer_type \"dmabuf\" in cufile.json";
  }
  if (r.nvfs_backend.empty())
    return "cufile.json does not turn on the PCI-P2PDMA route (properties.use_pci_p2pdma and " + r.p2pdma_key +
           ".use_pci_p2pdma)";
  if (g.nvidia_fs_loaded && !g.backends) {
    unknown = true;
    return "which storage drivers registered with nvidia-fs is unknown (" + printable(g.backends_problem) + ")";
  }
  if (backend_registered(g, r.nvfs_backend)) {
    ev.push_back("/proc/driver/nvidia-fs/modules: " + r.nvfs_backend + " registered");
    return "";
  }
  return g.nvidia_fs_loaded ? "nvidia-fs is loaded but " + r.nvfs_backend + " did not register with it"
                            : "nvidia-fs is not loaded (its " + r.nvfs_backend + " route is needed here)";
}

std::string denylist_reason(const Mount& m, const std::optional<CufileConfig>& c) {
  if (!c) return "";
  auto in = [&](const char* list, const std::string& x) {
    auto it = c->denylist.find(list);
    return it != c->denylist.end() && is_listed(it->second, x);
  };
  if (in("mounts", m.mountpoint)) return c->file + ": denylist.mounts lists " + printable(m.mountpoint);
  if (in("filesystems", m.fstype)) return c->file + ": denylist.filesystems lists " + printable(m.fstype);
  return "";
}

Finding judge_mount(const Mount& m, const GdsState& g, const std::optional<CufileConfig>& c, bool named) {
  Route r = mount_route(m, g);
  const std::string subject = printable(m.mountpoint);
  std::vector<std::string> ev{"/proc/mounts line " + std::to_string(m.line) + ": " + printable(m.device) + " " +
                              subject + " " + printable(m.fstype) + " " + printable(join(m.options, ","))};
  ev.insert(ev.end(), r.evidence.begin(), r.evidence.end());
  if (r.kind == Route::Kind::Unknown)
    return problem("gds.mount", subject, Status::Unknown,
                   "whether GDS can go direct on " + r.what + " is unknown: " + r.why_not, ev,
                   "capture /sys/class/block, /sys/block and /sys/class/nvme with the root (gdrcheck snapshot)");
  bool compat_off = c && c->allow_compat_mode == false;
  if (r.kind == Route::Kind::Direct) {
    if (std::string d = denylist_reason(m, c); !d.empty()) {
      r.kind = Route::Kind::Compat;
      r.why_not = "cuFile is told not to use GDS here (" + d + ")";
    }
  }
  if (r.kind == Route::Kind::Direct) {
    bool unknown = false;
    std::string missing = missing_route(r, g, c, unknown, ev);
    if (missing.empty()) return ok("gds.mount", subject, "GDS can go direct: " + r.what, ev);
    if (unknown)
      return problem("gds.mount", subject, Status::Unknown, r.what + " can go direct, but " + missing, ev,
                     "read /proc/driver/nvidia-fs/modules as root");
    return problem("gds.mount", subject, named && compat_off ? Status::Critical : Status::Warning,
                   r.what + " can go direct, but " + missing +
                       (named && compat_off ? ": cuFile I/O here fails (compat mode is off)"
                                            : ": cuFile I/O here goes through host memory (compat mode)"),
                   ev, "see gds.driver; or turn on the PCI-P2PDMA route where the platform has it (docs/gds.md)");
  }
  std::string fix = r.why_not.find("data=") != std::string::npos
                        ? "remount with -o data=ordered (and put data=ordered in /etc/fstab)"
                        : "keep the data GPUs read with cuFile on xfs or ext4 (data=ordered) directly on NVMe or md "
                          "RAID0 of NVMe, or on a GDS file system (Lustre, NFS over RDMA, WekaFS, BeeGFS, GPFS)";
  return problem(
      "gds.mount", subject, named && compat_off ? Status::Critical : Status::Warning,
      (named && compat_off ? "cuFile I/O fails on " : "cuFile I/O goes through host memory (compat mode) on ") +
          r.what + ": " + r.why_not,
      ev, fix);
}

// Mount points of the system itself: not where training data is read from
// unless --path says so.
bool system_mountpoint(const std::string& p) {
  for (const char* exact : {"/", "/boot", "/usr", "/var", "/home", "/tmp"})
    if (p == exact) return true;
  for (const char* prefix : {"/boot/", "/var/", "/snap/", "/run/", "/proc/", "/sys/", "/dev/", "/usr/"})
    if (p.rfind(prefix, 0) == 0) return true;
  return false;
}

// File systems that hold data at all (not proc, cgroup, tmpfs, overlay...).
bool data_fstype(const std::string& fs) {
  for (const char* t :
       {"xfs",   "ext4",   "ext3", "ext2",     "btrfs", "zfs",  "f2fs", "lustre",         "nfs", "nfs4", "beegfs",
        "fhgfs", "wekafs", "gpfs", "virtiofs", "cifs",  "smb3", "ceph", "fuse.ceph-fuse", "vfat"})
    if (fs == t) return true;
  return false;
}

bool has_nvme(const BlockDevice& d) {
  if (d.kind == BlockDevice::Kind::NvmeNamespace) return true;
  return std::any_of(d.below.begin(), d.below.end(), [](const BlockDevice& b) { return has_nvme(b); });
}

// Storage GDS could serve, so that a broken route on it is worth a
// WARNING: a GDS file system, NFS over RDMA, or anything with NVMe below it.
// A local file system whose device the root does not show is judged too
// (UNKNOWN): "no route" is not claimed without seeing the device.
bool gds_storage(const Mount& m, const GdsState& g) {
  for (const char* t : {"lustre", "beegfs", "fhgfs", "wekafs", "gpfs", "virtiofs"})
    if (m.fstype == t) return true;
  if (m.fstype == "nfs" || m.fstype == "nfs4") return m.option("proto") == "rdma";
  if (m.device.rfind("/dev/", 0) != 0) return false;
  auto it = g.block_stacks.find(m.device);
  return it == g.block_stacks.end() ? (m.fstype == "xfs" || m.fstype == "ext4") : has_nvme(it->second);
}

}  // namespace

std::vector<Finding> check_gds_mounts(const GdsState& g, const std::optional<CufileConfig>& config) {
  if (!g.mounts)
    return {problem("gds.mount", "mounts", Status::Unknown, "the mount table could not be read",
                    {printable(g.mounts_problem)}, "capture /proc/mounts with the root (gdrcheck snapshot)")};
  if (!g.path.empty()) {
    const Mount* m = mount_holding(*g.mounts, g.path);
    if (!m)
      return {problem("gds.mount", printable(g.path), Status::Unknown,
                      "no mount in /proc/mounts holds " + printable(g.path),
                      {"/proc/mounts: " + std::to_string(g.mounts->mounts.size()) + " mounts"},
                      "check the path, or capture /proc/mounts again")};
    Finding f = judge_mount(*m, g, config, true);
    f.summary = printable(g.path) + ": " + f.summary;
    return {f};
  }
  std::vector<Finding> out;
  std::vector<std::string> others;
  for (const auto& m : g.mounts->mounts) {
    if (!data_fstype(m.fstype)) continue;
    if (system_mountpoint(m.mountpoint) || !gds_storage(m, g)) {
      others.push_back(printable(m.mountpoint) + " (" + printable(m.fstype) + ")");
      continue;
    }
    out.push_back(judge_mount(m, g, config, false));
  }
  if (!others.empty())
    out.push_back(ok("gds.mount", "other mounts",
                     std::to_string(others.size()) +
                         " mount(s) of the system or on storage without a GDS route, not judged (cuFile uses compat "
                         "mode there): " +
                         join(others, ", "),
                     {"gdrcheck gds --path DIR judges the mount that holds DIR"}));
  if (out.empty() && others.empty())
    out.push_back(
        ok("gds.mount", "mounts", "no data file system is mounted; gdrcheck gds --path DIR judges one",
           {"/proc/mounts: " + std::to_string(g.mounts->mounts.size()) + " mounts, none of a data file system"}));
  return out;
}

}  // namespace gdrcheck

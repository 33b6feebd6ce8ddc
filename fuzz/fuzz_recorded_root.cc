// libFuzzer entry point for the whole `gdrcheck node --root DIR` pipeline on
// a recorded root built from the input. The input is a list of operations,
// each materialised in an empty directory (in /dev/shm, else /tmp) that is
// removed after the run (what it made, in reverse order):
//   op byte % 3 == 0: mkdir PATH
//   op byte % 3 == 1: write PATH, then a 2-byte little-endian length and
//                     that many bytes of content
//   op byte % 3 == 2: symlink PATH -> UP TARGET: UP levels of "../" (at most
//                     back to the root) followed by a path
// A path is a count byte (1 + n % 8 components) and one byte per component,
// an index into a fixed vocabulary of sysfs/procfs names, so the fuzzer
// spends its time on names the readers look for. Nothing is created under
// a symlink, so every link stays inside the directory even when resolved
// through other links; links may still loop or point at nothing.
// Then the root is read as `node` reads it (topology, host state, report)
// and rendered as text, JSON and a manifest. The only exception allowed is
// an InputError; the JSON must parse back and the text must carry no
// control bytes from the files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include "checks/manifest.h"
#include "checks/node_report.h"
#include "host/host_state.h"
#include "host/pci_names.h"
#include "host/root.h"
#include "host/root_audit.h"
#include "hwloc_allocation_cap.h"
#include "kept_probe_child.h"
#include "output_checks.h"
#include "report/json_text.h"
#include "report/node_json.h"
#include "report/node_text.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxOps = 512;
constexpr std::size_t kMaxComponents = 8;

const char* const kNames[] = {
    ".gdrcheck",
    ".gdrcheck-fixture",
    "0",
    "0000:17",
    "0000:17:00.0",
    "0000:17:02.0",
    "0000:17:04.0",
    "0000:18",
    "0000:18:00.0",
    "0000:19",
    "0000:19:00.0",
    "0000:1a:00.0",
    "1",
    "2",
    "3",
    "abi_version",
    "acs",
    "address",
    "board_id",
    "bus",
    "cap_mask",
    "carrier",
    "class",
    "cmdline",
    "commands",
    "config",
    "core_cpus",
    "core_cpus_list",
    "core_id",
    "core_siblings",
    "core_siblings_list",
    "counters",
    "cpu",
    "cpu0",
    "cpu1",
    "cpuaffinity",
    "cpuinfo",
    "cpulist",
    "cpulistaffinity",
    "cpumap",
    "current_link_speed",
    "current_link_width",
    "dev_port",
    "device",
    "devices",
    "die_cpus",
    "die_cpus_list",
    "die_id",
    "distance",
    "dmar0",
    "driver",
    "drivers",
    "enable",
    "enabled",
    "enp25s0np0",
    "etc",
    "excessive_buffer_overrun_errors",
    "fw_ver",
    "gid_attrs",
    "gids",
    "gpus",
    "has_cpu",
    "has_memory",
    "has_normal_memory",
    "hca_type",
    "holders",
    "hostname",
    "hw_rev",
    "ib_core",
    "ib_uverbs",
    "ibdev",
    "ifindex",
    "include",
    "infiniband",
    "infiniband_verbs",
    "information",
    "initstate",
    "intel-iommu",
    "iommu",
    "iommu_group",
    "iommu_groups",
    "irq",
    "kernel",
    "kernel_max",
    "ld.so.conf",
    "ld.so.conf.d",
    "lib",
    "libnccl.so.2",
    "libnccl.so.2.21.5",
    "lid",
    "lid_mask_count",
    "link_downed",
    "link_error_recovery",
    "link_layer",
    "local_cpulist",
    "local_cpus",
    "local_link_integrity_errors",
    "max_link_speed",
    "max_link_width",
    "meminfo",
    "memory_peers",
    "mlx5_0",
    "mlx5_1",
    "mlx5_core",
    "mlx5_ib",
    "mm",
    "modalias",
    "module",
    "modules",
    "mounts",
    "mtu",
    "nccl.conf",
    "nccl.h",
    "ndevs",
    "net",
    "node",
    "node0",
    "node_desc",
    "node_guid",
    "node_type",
    "numa_node",
    "nv_mem",
    "nv_peer_mem",
    "nvidia",
    "nvidia-peermem",
    "nvidia-smi-nvlink-status.txt",
    "nvidia-smi-topo-m.txt",
    "nvidia_modeset",
    "nvidia_peermem",
    "nvidia_uvm",
    "nvlink",
    "online",
    "operstate",
    "opt",
    "osrelease",
    "package_cpus",
    "package_cpus_list",
    "params",
    "pci",
    "pci0000:17",
    "pci_bus",
    "pcieport",
    "phys_state",
    "physical_package_id",
    "pkeys",
    "port_rcv_data",
    "port_rcv_errors",
    "port_xmit_data",
    "port_xmit_discards",
    "port_xmit_wait",
    "ports",
    "possible",
    "present",
    "proc",
    "rate",
    "rdma_ucm",
    "refcnt",
    "reserved_regions",
    "resource",
    "revision",
    "secondary_bus_number",
    "sm_lid",
    "sm_sl",
    "state",
    "subordinate_bus_number",
    "subsystem",
    "subsystem_device",
    "subsystem_vendor",
    "symbol_error",
    "sys",
    "sys_image_guid",
    "system",
    "taint",
    "thread_siblings",
    "thread_siblings_list",
    "topology",
    "transparent_hugepage",
    "type",
    "types",
    "uevent",
    "usr",
    "uverbs0",
    "vendor",
    "version",
    "virtual",
    "x86_64-linux-gnu",
};
constexpr std::size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

// The per-run root is made at the same path every run (g_root, inside a
// private directory of this process): the loader sets HWLOC_FSROOT to it,
// and glibc's setenv keeps a copy of every distinct value it was given, so
// a fresh name per run was one allocation never freed per run, which made
// libFuzzer scan the whole heap for leaks after every input (half the
// target's time).
std::string g_private;
std::string g_root;

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string_view bytes(std::size_t n) {
    n = std::min(n, size_ - pos_);
    std::string_view out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  std::vector<std::string> path(std::size_t count) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(kNames[byte() % kNameCount]);
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::string join(const std::vector<std::string>& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

// Creates the directories of parts[0..n) under root; false when one of them
// exists as something else or is a symlink (nothing is made through links).
// `known` holds the directories this run already found or made: nothing is
// ever removed during a run, so they stay directories, and a deep tree
// costs one lstat per directory instead of one per component per
// operation (syscalls are most of what building a root costs).
// What one run made under the root, in the order it was made: every
// entry's parent comes before it, so removing them in reverse order empties
// each directory before its own removal. This replaces std::filesystem's
// remove_all, which lists every directory again (an opendir buffer, a
// getdents and an lstat per entry: a sixth of the target's time).
class MadeEntries {
 public:
  void made(std::string path, bool directory) { entries_.push_back({std::move(path), directory}); }
  // True when the root itself is gone; false when something this run did
  // not make is left in it (then the caller falls back to remove_all).
  bool remove_all_made(const std::string& root) {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (it->directory) {
        ::rmdir(it->path.c_str());
      } else {
        ::unlink(it->path.c_str());  // a file written twice is named twice: ENOENT
      }
    entries_.clear();
    return ::rmdir(root.c_str()) == 0;
  }

 private:
  struct Entry {
    std::string path;
    bool directory;
  };
  std::vector<Entry> entries_;
};

bool make_dirs(const std::string& root, const std::vector<std::string>& parts, std::size_t n,
               std::unordered_set<std::string>& known, MadeEntries& made) {
  std::string dir = root;
  for (std::size_t i = 0; i < n; ++i) {
    dir += "/" + parts[i];
    if (known.count(dir)) continue;
    struct stat st;
    if (::lstat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return false;
    } else if (::mkdir(dir.c_str(), 0755) != 0) {
      return false;
    } else {
      made.made(dir, true);
    }
    known.insert(dir);
  }
  return true;
}

void write_file(const std::string& path, std::string_view content, MadeEntries& made) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  made.made(path, false);
  if (::write(fd, content.data(), content.size()) < 0) {
  }
  ::close(fd);
}

void materialise(const std::string& root, Input& in, MadeEntries& made) {
  std::unordered_set<std::string> known;
  for (std::size_t op = 0; op < kMaxOps && !in.empty(); ++op) {
    uint8_t kind = in.byte() % 3;
    std::vector<std::string> parts = in.path(1 + in.byte() % kMaxComponents);
    std::size_t depth = parts.size();
    std::string path = root + "/" + join(parts, depth);
    if (kind == 0) {
      make_dirs(root, parts, depth, known, made);
    } else if (kind == 1) {
      std::size_t length = in.byte();
      length |= static_cast<std::size_t>(in.byte()) << 8;
      std::string_view content = in.bytes(length);
      if (make_dirs(root, parts, depth - 1, known, made)) write_file(path, content, made);
    } else {
      std::size_t up = in.byte() % depth;  // the link's directory is depth - 1 deep
      std::vector<std::string> target = in.path(in.byte() % kMaxComponents);
      std::string text;
      for (std::size_t i = 0; i < up; ++i) text += "../";
      text += join(target, target.size());
      if (text.empty()) text = ".";
      if (make_dirs(root, parts, depth - 1, known, made) && ::symlink(text.c_str(), path.c_str()) == 0)
        made.made(path, false);
    }
  }
}

fuzz_probe::KeptProbeChild& probe() {
  static fuzz_probe::KeptProbeChild child(
      [](const std::string& dir) { gdrcheck::load_sysfs_topology_unprobed(gdrcheck::Root(dir)); },
      gdrcheck::kHwlocProbeLimit);
  return child;
}

// read_sysfs_topology's steps, with the probe in the kept copy: a root that
// crashes or hangs hwloc there, or that the load refuses there, is refused,
// as the product refuses it.
std::optional<gdrcheck::Topology> load_topology(const std::string& root) {
  gdrcheck::audit_root_for_hwloc(gdrcheck::Root(root));
  fuzz_probe::End end = probe().run(root);
  if (end != fuzz_probe::End::Finished && end != fuzz_probe::End::Failed) return std::nullopt;
  return gdrcheck::load_sysfs_topology_unprobed(gdrcheck::Root(root));
}

void run_node(const std::string& root) {
  try {
    std::optional<gdrcheck::Topology> loaded = load_topology(root);
    if (!loaded) return;
    gdrcheck::Topology t = std::move(*loaded);
    gdrcheck::HostState h = gdrcheck::read_host_state(gdrcheck::Root(root), gdrcheck::pci_functions(t), {});
    gdrcheck::NodeReport r = gdrcheck::build_node_report(std::move(t), h, {});
    fuzz_checks::text_is_clean(gdrcheck::render_node_text(r, {false, false, true}));
    fuzz_checks::text_is_clean(gdrcheck::render_node_text(r, {true, true, false}));
    fuzz_checks::json_parses_back(gdrcheck::json_text(gdrcheck::node_json(r, h)));
    fuzz_checks::json_parses_back(gdrcheck::json_text(gdrcheck::make_manifest(r, h)));
  } catch (const gdrcheck::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* dir : {"/dev/shm", "/tmp"}) {
    if (::access(dir, W_OK) != 0) continue;
    g_private = std::string(dir) + "/fuzz-root-XXXXXX";
    if (!::mkdtemp(g_private.data())) continue;
    g_root = g_private + "/root";
    std::atexit([] { ::rmdir(g_private.c_str()); });
    // pci.ids read once, before the copies are forked (see fuzz_hwloc_xml.cc).
    gdrcheck::pci_device_name(0x10de, 0x2330);
    probe();  // forks the process that makes the copies, while this one is small
    return 0;
  }
  std::abort();  // nowhere to build a root: the target cannot run
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (::mkdir(g_root.c_str(), 0700) != 0) std::abort();
  Input in(data, size);
  MadeEntries made;
  materialise(g_root, in, made);
  run_node(g_root);
  if (made.remove_all_made(g_root)) return 0;
  std::error_code ec;
  fs::remove_all(g_root, ec);  // never follows the links inside
  if (ec) std::abort();
  return 0;
}

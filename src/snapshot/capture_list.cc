#include "snapshot/capture_list.h"

#include <fnmatch.h>

#include <initializer_list>
#include <utility>

#include "host/host_state.h"
#include "text/path_components.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kSmall = 64 * 1024;  // sysfs attributes, version files, ld.so.conf pieces
constexpr std::size_t kLarge = 4u << 20;   // cpuinfo of a big node, topology XML, nvidia-smi text

// Rules for several names in one folder: "<folder>/<name>" each.
void add_names(std::vector<CaptureRule>& rules, const std::string& folder, std::initializer_list<const char*> names,
               std::size_t max_bytes = kSmall) {
  for (const char* name : names) rules.push_back({folder + "/" + name, CaptureAs::Content, max_bytes, true});
}

void add_paths(std::vector<CaptureRule>& rules, std::initializer_list<const char*> paths,
               std::size_t max_bytes = kSmall) {
  for (const char* path : paths) rules.push_back({path, CaptureAs::Content, max_bytes, true});
}

// Identity, kernel, NVIDIA driver, modules and peer memory: host_state.cc
// and the areas capture_extent.cc tells apart from "not captured".
void add_host(std::vector<CaptureRule>& r) {
  add_paths(r, {"etc/hostname", "proc/sys/kernel/hostname", "proc/sys/kernel/osrelease", "proc/version", "proc/cmdline",
                "proc/modules", "proc/meminfo", "proc/driver", "proc/driver/nvidia", "proc/driver/nvidia/version",
                "proc/driver/nvidia/gpus/*/information"});
  add_paths(r, {"proc/cpuinfo"}, kLarge);
  add_paths(r, {"sys/module", "sys/kernel/mm", "sys/kernel/mm/memory_peers", "sys/kernel/mm/memory_peers/*",
                "sys/kernel/mm/memory_peers/*/version"});
  for (const auto& m : watched_modules()) {
    r.push_back({"sys/module/" + m, CaptureAs::Content, kSmall, true});
    add_names(r, "sys/module/" + m, {"version", "taint", "refcnt", "initstate"});
  }
  add_paths(r, {"sys/class/iommu", "sys/class/iommu/*", "sys/kernel/iommu_groups/*/type"});
  // Stored under the names nvidia_smi_outputs.h reads in a recorded root.
  add_paths(r, {".gdrcheck/commands/nvidia-smi-topo-m.txt", ".gdrcheck/commands/nvidia-smi-nvlink-status.txt"}, kLarge);
}

// The PCI tree as hwloc and host_state.cc walk it: the bus links, the
// device directories they lead to and the attributes read there.
void add_pci(std::vector<CaptureRule>& r) {
  add_paths(r, {"sys/bus/pci/devices/*", "sys/class/pci_bus/*", "sys/devices/pci*/**/pci_bus/*"});
  add_names(r, "sys/devices/pci*/**",
            {"vendor", "device", "class", "revision", "subsystem_vendor", "subsystem_device", "current_link_speed",
             "current_link_width", "max_link_speed", "max_link_width", "numa_node", "local_cpus", "local_cpulist",
             "driver", "iommu_group", "physfn", "config"});
  r.back().max_bytes = 4096;  // the whole extended configuration space
}

// RDMA devices, their ports and the network and block devices hwloc
// attaches to PCI functions. P_Keys are not read and not kept.
void add_devices(std::vector<CaptureRule>& r) {
  add_paths(r, {"sys/class/infiniband", "sys/class/infiniband/*", "sys/class/infiniband_verbs",
                "sys/class/infiniband_verbs/*", "sys/class/net/*", "sys/class/block/*", "sys/block/*"});
  const std::string ib = "sys/devices/*/**/infiniband/*";
  add_names(r, ib, {"fw_ver", "hca_type", "board_id", "node_type", "node_guid", "sys_image_guid", "device"});
  add_names(r, ib + "/ports/*",
            {"state", "phys_state", "rate", "link_layer", "lid", "lid_mask_count", "gids/*", "gid_attrs/types/*",
             "gid_attrs/ndevs/*"});
  add_names(r, "sys/devices/*/**/infiniband_verbs", {"*", "*/ibdev"});
  add_names(r, "sys/devices/*/**/net/*", {"address", "dev_port", "type", "device"});
  add_names(r, "sys/devices/pci*/**", {"nvme/*/*/dev", "nvme/*/*/size", "block/*/dev", "block/*/size"});
}

// GPUDirect Storage as gds_state.cc reads it: nvidia-fs, the cuFile
// configuration in its fixed places, the mount table (on this machine
// snapshot.cc stores /proc/self/mounts there: /proc/mounts is a link into
// the capturing process) and the block stacks and NVMe controllers below
// the mounts.
void add_gds(std::vector<CaptureRule>& r) {
  add_paths(r, {"proc/driver/nvidia-fs", "proc/driver/nvidia-fs/*", "sys/module/nvidia_fs/parameters/*",
                "etc/cufile.json", "usr/local/cuda/gds/cufile.json", "sys/class/nvme", "sys/class/nvme/*",
                "sys/class/nvme-subsystem", "sys/class/nvme-subsystem/*", "sys/class/nvme-subsystem/*/*"});
  add_paths(r, {"proc/mounts", ".gdrcheck/commands/ipv4-addresses.txt", "boot/config-*"}, kLarge);
  // LNet's network interfaces (Lustre), the P2PDMA route's switches.
  add_paths(r, {"proc/sys/lnet/nis", "sys/kernel/debug/lnet/nis", "sys/module/lnet/parameters/networks",
                "sys/module/nvme_core/parameters/multipath", "proc/driver/nvidia/params"});
  add_names(r, "sys/devices/pci*/**/nvme/*", {"transport", "model", "address", "device", "*/device"});
  add_names(r, "sys/devices/pci*/**", {"partition"});
  add_names(r, "sys/devices/virtual/block/*",
            {"md/level", "dm/name", "dm/uuid", "slaves/*", "loop/backing_file", "*/partition"});
}

// CPUs and NUMA nodes as hwloc reads them.
void add_cpus(std::vector<CaptureRule>& r) {
  add_names(r, "sys/devices/system/cpu",
            {"online", "possible", "present", "kernel_max", "cpu*/online", "cpu*/topology/*"});
  add_names(r, "sys/devices/system/cpu/cpu*/cache/index*",
            {"level", "type", "size", "coherency_line_size", "ways_of_associativity", "shared_cpu_map",
             "physical_line_partition"});
  add_names(
      r, "sys/devices/system/node",
      {"online", "possible", "has_cpu", "has_memory", "has_normal_memory", "node*/cpumap", "node*/distance",
       "node*/meminfo", "node*/hugepages/hugepages-*/nr_hugepages", "node*/hugepages/hugepages-*/free_hugepages"});
  add_paths(r, {"sys/bus/cpu/devices/*", "sys/bus/node/devices/*"});
}

// NCCL's settings, the loader's folders and what the NCCL readers look at
// in the folders nccl_install.cc and nccl_net_plugins.cc search.
void add_nccl(std::vector<CaptureRule>& r) {
  add_paths(r, {"etc/nccl.conf", "etc/ld.so.conf", "etc/ld.so.conf.d/*"});
  std::size_t searched = r.size();
  add_paths(r, {"lib", "lib64", "usr/local/cuda"});
  add_paths(r, {"var/run/nvidia-topologyd/virtualTopology.xml"}, kLarge);
  for (const char* folder :
       {"usr/include", "usr/local/include", "usr/local/cuda-*/include", "usr/local/cuda-*/targets/*/include",
        "opt/nccl*/include", "opt/conda/include", "opt/conda/envs/*/include"})
    add_names(r, folder, {"nccl.h"}, 256 * 1024);
  for (const char* folder :
       {"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib", "usr/local/lib",
        "usr/local/cuda-*/lib64", "usr/local/cuda-*/targets/*/lib", "opt/nccl*/lib", "opt/conda/lib",
        "opt/conda/envs/*/lib", "opt/hpcx/nccl*/lib", "opt/amazon/ofi-nccl/lib", "opt/amazon/ofi-nccl/lib64",
        "opt/aws-ofi-nccl/lib", "opt/aws-ofi-nccl/lib64", "opt/hpcx*/nccl_rdma_sharp_plugin/lib", "usr/local/gib/lib64",
        "usr/local/nvidia/lib64"}) {
    r.push_back({std::string(folder) + "/libnccl.so*", CaptureAs::NameOnly, 0, true});
    // The plugin readers look for markers in the first 4 MiB.
    add_names(r, folder, {"libnccl-net.so", "libnccl-net-*.so"}, kLarge);
  }
  for (const char* folder :
       {"usr/lib/python3*/site-packages", "usr/lib/python3*/dist-packages", "usr/lib64/python3*/site-packages",
        "usr/local/lib/python3*/site-packages", "usr/local/lib/python3*/dist-packages",
        "usr/local/lib64/python3*/site-packages", "opt/conda/lib/python3*/site-packages",
        "opt/conda/envs/*/lib/python3*/site-packages", "usr/local/cuda-*/dist-info"}) {
    add_names(r, folder, {"nvidia_nccl_cu*.dist-info/METADATA"});
    r.push_back({std::string(folder) + "/nvidia/nccl/lib/libnccl.so*", CaptureAs::NameOnly, 0, true});
  }
  for (const char* folder : {"opt/conda/conda-meta", "opt/conda/envs/*/conda-meta"})
    r.push_back({std::string(folder) + "/nccl-*.json", CaptureAs::NameOnly, 0, true});
  for (std::size_t i = searched; i < r.size(); ++i) r[i].expected = false;
}

bool component_matches(std::string_view pattern, std::string_view name) {
  return ::fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), FNM_PERIOD) == 0;
}

// Whether pattern[pi..] matches path[xi..]; with `descendant`, whether it
// matches something strictly below path.
bool match_from(const std::vector<std::string_view>& pattern, std::size_t pi, const std::vector<std::string_view>& path,
                std::size_t xi, bool descendant) {
  if (xi == path.size()) {
    if (descendant) return pi < pattern.size();
    for (; pi < pattern.size(); ++pi)
      if (pattern[pi] != "**") return false;
    return true;
  }
  if (pi == pattern.size()) return false;
  if (pattern[pi] == "**")
    return match_from(pattern, pi + 1, path, xi, descendant) || match_from(pattern, pi, path, xi + 1, descendant);
  return component_matches(pattern[pi], path[xi]) && match_from(pattern, pi + 1, path, xi + 1, descendant);
}

bool has_wildcard(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

}  // namespace

const std::vector<CaptureRule>& capture_rules() {
  static const std::vector<CaptureRule> rules = [] {
    std::vector<CaptureRule> r;
    add_host(r);
    add_pci(r);
    add_devices(r);
    add_cpus(r);
    add_nccl(r);
    add_gds(r);
    return r;
  }();
  return rules;
}

bool capture_pattern_matches(std::string_view pattern, std::string_view path) {
  return match_from(path_components(pattern), 0, path_components(path), 0, false);
}

CaptureList::CaptureList(std::vector<CaptureRule> rules) : rules_(std::move(rules)) {
  // Split once: the walk asks for every entry.
  for (const auto& rule : rules_) split_.push_back(path_components(rule.pattern));
}

const CaptureRule* CaptureList::rule_for(std::string_view path) const {
  auto parts = path_components(path);
  for (std::size_t i = 0; i < split_.size(); ++i)
    if (match_from(split_[i], 0, parts, 0, false)) return &rules_[i];
  return nullptr;
}

bool CaptureList::may_hold(std::string_view path) const {
  auto parts = path_components(path);
  for (const auto& rule : split_)
    if (match_from(rule, 0, parts, 0, true)) return true;
  return false;
}

std::vector<std::string> CaptureList::literal_paths() const {
  std::vector<std::string> out;
  for (const auto& rule : rules_)
    if (rule.expected && !has_wildcard(rule.pattern)) out.push_back(rule.pattern);
  return out;
}

const CaptureList& standard_capture_list() {
  static const CaptureList list(capture_rules());
  return list;
}

const CaptureRule* capture_rule_for(std::string_view path) {
  return standard_capture_list().rule_for(path);
}

bool may_hold_captured(std::string_view path) {
  return standard_capture_list().may_hold(path);
}

std::vector<std::string> literal_capture_paths() {
  return standard_capture_list().literal_paths();
}

}  // namespace gdrcheck

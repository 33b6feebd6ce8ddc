#include "host/host_state.h"

#include <algorithm>

#include "host/capture_extent.h"
#include "host/root_search.h"
#include "host/sysfs_values.h"
#include "host/text_format.h"

namespace gdrcheck {
Fact read_fact(const Root& root, const std::string& path) {
  Fact f;
  f.path = path;
  FileRead r = root.read(path, 64 * 1024);
  if (r.ok())
    f.value = r.trimmed();
  else
    f.problem = r.problem();
  return f;
}

namespace {

std::optional<std::string> link_basename(const Root& root, const std::string& path) {
  auto target = root.readlink(path);
  if (!target) return std::nullopt;
  return target->substr(target->rfind('/') + 1);
}

PciFunctionState read_function(const Root& root, const PciAddress& a) {
  std::string dir = "/sys/bus/pci/devices/" + a.str();
  PciFunctionState f;
  f.address = a;
  f.config = root.read(dir + "/config", 4096);
  f.current_link_speed = read_fact(root, dir + "/current_link_speed");
  f.current_link_width = read_fact(root, dir + "/current_link_width");
  f.max_link_speed = read_fact(root, dir + "/max_link_speed");
  f.max_link_width = read_fact(root, dir + "/max_link_width");
  f.numa_node = read_fact(root, dir + "/numa_node");
  f.driver = link_basename(root, dir + "/driver");
  if (auto group = link_basename(root, dir + "/iommu_group")) {
    if (auto n = parse_sysfs_int(*group); n && *n >= 0) {
      f.iommu_group = static_cast<int>(*n);
      f.iommu_group_type = read_fact(root, "/sys/kernel/iommu_groups/" + *group + "/type");
    }
  }
  f.virtual_function = root.readlink(dir + "/physfn").has_value();
  return f;
}

RdmaPort read_port(const Root& root, const std::string& dir, int number) {
  RdmaPort p;
  p.number = number;
  p.state = read_fact(root, dir + "/state");
  p.phys_state = read_fact(root, dir + "/phys_state");
  p.rate = read_fact(root, dir + "/rate");
  p.link_layer = read_fact(root, dir + "/link_layer");
  auto types = root.list(dir + "/gid_attrs/types");
  p.gid_types_readable = !types.empty();
  for (const auto& i : types) {
    FileRead type = root.read(dir + "/gid_attrs/types/" + i);
    if (!type.ok() || type.trimmed() != "RoCE v2") continue;
    std::string gid = root.read(dir + "/gids/" + i).trimmed();
    if (!gid.empty() && gid.find_first_not_of("0:") != std::string::npos) p.roce_v2_gids.push_back(gid);
  }
  return p;
}

// No uverbs device for an RDMA device: the class exists without one, or the
// capture shows the RDMA driver stack loaded and neither ib_uverbs nor its
// class (built-in ib_uverbs still creates the class). A capture that shows
// neither says nothing, and stays unknown.
bool uverbs_absent(const Root& root) {
  if (root.is_dir("/sys/class/infiniband_verbs")) return true;
  bool stack_loaded = root.is_dir("/sys/module/ib_core") && root.is_dir("/sys/module/mlx5_ib");
  return stack_loaded && !root.is_dir("/sys/module/ib_uverbs");
}

// RDMA devices with a PCI function; virtual ones (scif0, rxe) are skipped.
std::vector<RdmaDevice> read_rdma(const Root& root) {
  std::vector<RdmaDevice> out;
  for (const auto& name : root.list("/sys/class/infiniband")) {
    std::string dir = "/sys/class/infiniband/" + name;
    RdmaDevice d;
    d.name = name;
    if (auto resolved = root.resolve(dir + "/device"))
      d.pci = PciAddress::parse(resolved->substr(resolved->rfind('/') + 1));
    if (!d.pci) continue;
    d.fw_ver = read_fact(root, dir + "/fw_ver");
    d.hca_type = read_fact(root, dir + "/hca_type");
    d.board_id = read_fact(root, dir + "/board_id");
    d.node_type = read_fact(root, dir + "/node_type");
    if (!root.list(dir + "/device/infiniband_verbs").empty())
      d.uverbs = true;
    else if (uverbs_absent(root))
      d.uverbs = false;
    for (const auto& p : root.list(dir + "/ports"))
      if (auto n = parse_sysfs_int(p)) d.ports.push_back(read_port(root, dir + "/ports/" + p, static_cast<int>(*n)));
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const RdmaDevice& a, const RdmaDevice& b) { return natural_less(a.name, b.name); });
  return out;
}

std::vector<NcclSetting> read_conf(const Root& root, const std::string& path, std::vector<std::string>* problems) {
  FileRead r = root.read(path);
  if (!r.ok()) return {};
  return parse_nccl_conf(r.content, path, problems);
}

NcclSettings read_nccl_settings(const Root& root, const HostReadOptions& options) {
  std::vector<std::string> problems;
  std::vector<std::vector<NcclSetting>> layers{options.environment};
  // NCCL_CONF_FILE replaces ~/.nccl.conf; /etc/nccl.conf is read last either way.
  const NcclSetting* conf_file = nullptr;
  for (const auto& s : options.environment)
    if (s.name == "NCCL_CONF_FILE") conf_file = &s;
  layers.push_back(read_conf(root, conf_file ? conf_file->value : options.home + "/.nccl.conf", &problems));
  layers.push_back(read_conf(root, "/etc/nccl.conf", &problems));
  NcclSettings s = merge_nccl_settings(layers);
  s.problems.insert(s.problems.end(), problems.begin(), problems.end());
  return s;
}

void read_modules(const Root& root, HostState& h) {
  h.module_dir = root.is_dir("/sys/module");
  for (const auto& m : watched_modules()) {
    ModuleState s;
    s.loaded = root.is_dir("/sys/module/" + m);
    if (s.loaded) {
      s.version = read_fact(root, "/sys/module/" + m + "/version");
      s.taint = read_fact(root, "/sys/module/" + m + "/taint");
    }
    h.modules[m] = s;
  }
}

void read_peer_memory(const Root& root, HostState& h) {
  for (const char* path :
       {"/sys/kernel/mm/memory_peers/nv_mem/version", "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
        "/sys/kernel/mm/memory_peers/nvidia-peermem/version", "/sys/module/nvidia_peermem/version",
        "/sys/module/nv_peer_mem/version"})
    h.peermem_files[path] = root.exists(path);
  h.memory_peers_dir = root.is_dir("/sys/kernel/mm/memory_peers");
  h.memory_peers = root.list("/sys/kernel/mm/memory_peers");
}

// NCCL reads NCCL_TOPO_FILE when set, and only then; otherwise the virtual
// topology a hypervisor agent leaves (src/graph/topo.cc:ncclTopoGetSystem,
// the default file from v2.10.3-1).
std::optional<NcclTopologyFile> read_topology_file(const Root& root, const NcclSettings& nccl) {
  NcclTopologyFile f;
  const NcclSetting* topo = nccl.find("NCCL_TOPO_FILE");
  f.from_setting = topo != nullptr;
  f.path = topo ? topo->value : "/var/run/nvidia-topologyd/virtualTopology.xml";
  if (f.path.empty()) return std::nullopt;
  if (!is_regular_file(root, f.path)) {
    if (!f.from_setting) return std::nullopt;
    f.problem = root.exists(f.path) ? "not a regular file" : "not found";
    return f;
  }
  FileRead r = root.read(f.path, 4u << 20);
  if (r.ok())
    f.xml = std::move(r.content);
  else
    f.problem = r.problem();
  return f;
}

}  // namespace

std::string Fact::evidence() const {
  return value ? path + " = " + *value : path + ": " + problem;
}

std::optional<std::string> HostState::not_captured(const std::string& path) const {
  return uncaptured_area(uncaptured, path);
}

// The kernel's name first: /etc/hostname may be stale or absent in a container.
Fact read_hostname(const Root& root) {
  Fact f = read_fact(root, "/proc/sys/kernel/hostname");
  return f.known() ? f : read_fact(root, "/etc/hostname");
}

std::optional<std::string> root_hostname(const Root& root) {
  return read_hostname(root).value;
}

bool nvidia_driver_loaded(const Root& root) {
  return root.is_dir("/sys/module/nvidia") || root.is_dir("/proc/driver/nvidia");
}

const std::vector<std::string>& watched_modules() {
  static const std::vector<std::string> modules = {"nvidia",    "nvidia_peermem", "nv_peer_mem", "mlx5_core",
                                                   "mlx5_ib",   "mlx4_core",      "mlx4_ib",     "ib_core",
                                                   "ib_uverbs", "rdma_cm",        "nvidia_fs"};
  return modules;
}

HostState read_host_state(const Root& root, const std::vector<PciAddress>& functions, const HostReadOptions& options) {
  HostState h;
  h.root = root.dir();
  h.uncaptured = uncaptured_areas(root);
  h.nvidia_driver_loaded = nvidia_driver_loaded(root);
  h.hostname = read_hostname(root);
  h.kernel_release = read_fact(root, "/proc/sys/kernel/osrelease");
  h.cmdline = read_fact(root, "/proc/cmdline");
  h.nvidia_version = read_fact(root, "/proc/driver/nvidia/version");
  read_modules(root, h);
  read_peer_memory(root, h);
  h.iommu_class_dir = root.is_dir("/sys/class/iommu");
  h.iommu_units = root.list("/sys/class/iommu");
  for (const auto& a : functions) h.functions[a] = read_function(root, a);
  h.rdma = read_rdma(root);
  h.nccl = read_nccl_settings(root, options);
  if (const NcclSetting* topo = h.nccl.find("NCCL_TOPO_FILE")) h.nccl_files[topo->value] = root.exists(topo->value);
  h.nccl_topology_file = read_topology_file(root, h.nccl);
  h.nccl_installed = find_installed_nccl(root);
  h.net_plugins = find_net_plugins(root);
  h.rdma_core = find_rdma_core(root);
  if (options.run_nvidia_smi || !root.is_live()) h.nvidia_smi = read_nvidia_smi_outputs(root);
  return h;
}

HostState topology_file_host_state(const std::string& file, const HostReadOptions& options) {
  HostState h;
  h.root = file;
  h.uncaptured = capture_areas();
  for (Fact* f : {&h.hostname, &h.kernel_release, &h.cmdline, &h.nvidia_version}) f->problem = "not in a topology file";
  h.nccl = merge_nccl_settings({options.environment});
  return h;
}

}  // namespace gdrcheck

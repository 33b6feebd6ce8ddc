// Everything `gdrcheck node` reads from a host besides the PCI topology:
// per-function PCI files, RDMA devices and ports, kernel modules, peer
// memory, the NVIDIA driver, IOMMU, kernel command line and NCCL settings.
// Each value keeps the file it came from; a file that could not be read is
// recorded with the reason, so checks can say UNKNOWN and why.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/nccl_install.h"
#include "host/nccl_net_plugins.h"
#include "host/nccl_settings.h"
#include "host/nvidia_smi_outputs.h"
#include "host/rdma_core_version.h"
#include "host/root.h"
#include "topology/pci_address.h"

namespace gdrcheck {

// One value read from one file.
struct Fact {
  std::string path;                  // file inside the root
  std::optional<std::string> value;  // trimmed content; nullopt = not readable
  std::string problem;               // "not found", "permission denied" when no value

  bool known() const { return value.has_value(); }
  // "path = value" or "path: problem", for a finding's evidence.
  std::string evidence() const;
};

struct PciFunctionState {
  PciAddress address;
  FileRead config;  // raw bytes; ok() false when not captured
  Fact current_link_speed, current_link_width, max_link_speed, max_link_width;
  Fact numa_node;
  std::optional<std::string> driver;  // basename of the driver link
  std::optional<int> iommu_group;     // from the iommu_group link
  Fact iommu_group_type;              // /sys/kernel/iommu_groups/N/type
  bool virtual_function = false;      // physfn link present
};

struct RdmaPort {
  int number = 0;
  Fact state, phys_state, rate, link_layer;
  std::vector<std::string> roce_v2_gids;  // non-zero GIDs whose type is "RoCE v2"
  bool gid_types_readable = false;
};

struct RdmaDevice {
  std::string name;  // mlx5_0
  std::optional<PciAddress> pci;
  Fact fw_ver, hca_type, board_id, node_type;
  std::vector<RdmaPort> ports;
  // A uverbs char device exists for it (device/infiniband_verbs/uverbsN):
  // without one (ib_uverbs not loaded) ibverbs lists no device. nullopt =
  // the capture does not show the infiniband_verbs class at all.
  std::optional<bool> uverbs;
};

struct ModuleState {
  bool loaded = false;  // /sys/module/<name> exists
  Fact version;         // /sys/module/<name>/version
  Fact taint;
};

struct NcclTopologyFile {
  std::string path;
  bool from_setting = false;       // NCCL_TOPO_FILE; else the default virtual topology
  std::optional<std::string> xml;  // its content when readable
  std::string problem;             // why not
};

struct HostState {
  std::string root;  // the root it was read from ("/" for this machine)
  Fact hostname, kernel_release, cmdline, nvidia_version;
  std::map<std::string, ModuleState> modules;  // the modules gdrcheck cares about, loaded or not
  bool module_dir = false;                     // /sys/module exists (a capture may lack it)
  // The files NCCL tests for a peer-memory module (nccl-spec §3.1), present or not.
  std::map<std::string, bool> peermem_files;
  std::vector<std::string> memory_peers;  // entries of /sys/kernel/mm/memory_peers
  bool memory_peers_dir = false;
  std::vector<std::string> iommu_units;  // /sys/class/iommu entries
  bool iommu_class_dir = false;
  std::map<PciAddress, PciFunctionState> functions;  // every function in the topology
  std::vector<RdmaDevice> rdma;
  NcclSettings nccl;
  // Files NCCL settings point to (NCCL_TOPO_FILE), and whether they exist.
  std::map<std::string, bool> nccl_files;
  // The topology XML NCCL would load instead of probing (NCCL_TOPO_FILE, or
  // /var/run/nvidia-topologyd/virtualTopology.xml when that is unset).
  std::optional<NcclTopologyFile> nccl_topology_file;
  std::vector<InstalledNccl> nccl_installed;  // NCCL libraries, headers, wheels, conda packages
  std::vector<NetPluginFile> net_plugins;     // NCCL net plugin libraries
  std::optional<RdmaCoreLibrary> rdma_core;   // the libibverbs in the library folders
  NvidiaSmiOutputs nvidia_smi;                // captured or (live) run: topo -m, nvlink --status
  std::vector<std::string> problems;          // things that made reading partial
  // Areas a recorded root lacks (capture_extent.h): absence there is "not
  // captured", never "not there". Empty for this machine.
  std::vector<std::string> uncaptured;
  // The NVIDIA driver shows itself (/sys/module/nvidia or /proc/driver/nvidia).
  bool nvidia_driver_loaded = false;

  // The uncaptured area `path` lies in, or nullopt when its absence is evidence.
  std::optional<std::string> not_captured(const std::string& path) const;
};

struct HostReadOptions {
  // Run nvidia-smi on a live host (tests of live reading turn it off).
  bool run_nvidia_smi = true;
  // NCCL settings layers, highest precedence first: the process environment
  // (NCCL_* only) and --env NAME=VALUE.
  std::vector<NcclSetting> environment;
  std::string home = "/root";  // whose ~/.nccl.conf to read, inside the root
};

// One small value file of a root (64 KiB at most), trimmed, or why not.
Fact read_fact(const Root& root, const std::string& path);

// The host name of a root: /proc/sys/kernel/hostname, else /etc/hostname.
Fact read_hostname(const Root& root);
std::optional<std::string> root_hostname(const Root& root);

// The NVIDIA kernel driver is loaded: its module directory or its procfs
// directory exists. With no GPU on the bus this is how GPUs that fell off
// it (Xid 79) look.
bool nvidia_driver_loaded(const Root& root);

// Modules whose presence matters (driver, peer memory, RDMA stack, GDS).
const std::vector<std::string>& watched_modules();

// `functions`: the PCI functions whose files to read (the topology's).
HostState read_host_state(const Root& root, const std::vector<PciAddress>& functions, const HostReadOptions& options);

// The host state of a machine known only from a topology file (node
// --topo): nothing is read; every capture area is "not captured", and the
// NCCL settings are the --env ones (`options.environment`).
HostState topology_file_host_state(const std::string& file, const HostReadOptions& options);

}  // namespace gdrcheck

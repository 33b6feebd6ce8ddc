// What a host shows of GPUDirect Storage's driver route and configuration
// (platform-spec §5.1, §5.2): the nvidia-fs module, its procfs files (the
// storage drivers that registered GDS DMA operations, the bridges it found
// with ACS enabled), and the cuFile configuration file in libcufile's
// search order: $CUFILE_ENV_PATH_JSON, /etc/cufile.json,
// /usr/local/cuda/gds/cufile.json. Values keep their files; a file that
// could not be read keeps the reason. A recorded root that lacks an area
// says "not captured" (host/capture_extent.h), never "absent".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/block_stack.h"
#include "host/host_state.h"
#include "host/interface_addresses.h"
#include "host/lnet_state.h"
#include "host/mounts.h"
#include "host/nvme_controllers.h"
#include "host/p2pdma_state.h"
#include "host/root.h"

namespace gdrcheck {

// One line of /proc/driver/nvidia-fs/modules: "nvme: 2.28.4" (the format
// nvidia-fs prints per registered storage driver).
struct NvidiaFsBackend {
  std::string name;     // "nvme", "nvme_rdma", "lnet", "wekafsio", ...
  std::string version;  // as printed; "" when none
};

struct GdsState {
  std::string root;
  // NVIDIA GPUs on the PCI bus (vendor 0x10de, class 0x03xx); nullopt when
  // /sys/bus/pci/devices is not there to tell.
  std::optional<int> nvidia_gpus;
  std::vector<std::string> uncaptured;                   // capture areas the root lacks
  bool nvidia_fs_loaded = false;                         // /sys/module/nvidia_fs exists
  Fact module_version;                                   // /sys/module/nvidia_fs/version: "2.28.4"
  Fact proc_version;                                     // /proc/driver/nvidia-fs/version: "version: 2.28"
  std::optional<std::vector<NvidiaFsBackend>> backends;  // /proc/driver/nvidia-fs/modules; nullopt unreadable
  std::string backends_problem;
  std::optional<std::vector<std::string>> acs_bridges;  // /proc/driver/nvidia-fs/bridges; empty is good
  // The cuFile configuration libcufile would read: every place looked at,
  // in order ("/etc/cufile.json: not found"), and the first that exists.
  std::vector<std::string> cufile_searched;
  std::optional<std::string> cufile_path;
  std::optional<std::string> cufile_text;
  std::string cufile_problem;  // the file exists but could not be read
  // The mount table (/proc/mounts) and, per block device a mount names,
  // what it is made of. nullopt mounts: not readable (mounts_problem).
  std::optional<MountTable> mounts;
  std::string mounts_problem;
  std::map<std::string, BlockDevice> block_stacks;  // by the mount's device field ("/dev/md0")
  // nvidia-peermem: user-space RDMA file systems (WekaFS, GPFS) need it
  // unless cufile.json says rdma_peer_type "dmabuf".
  bool peermem_loaded = false;
  // Local and remote NVMe controllers (/sys/class/nvme); whether the root
  // shows /sys/class at all (a root without it cannot say "no drives").
  std::vector<NvmeController> nvme_controllers;
  bool nvme_class_readable = false;
  // IPv4 addresses and the interfaces holding them; nullopt when the root
  // does not record them (host/interface_addresses.h).
  std::optional<std::vector<InterfaceAddress>> addresses;
  // LNet's network interfaces, for Lustre mounts (host/lnet_state.h).
  LnetState lnet;
  // The PCI-P2PDMA route's prerequisites (host/p2pdma_state.h).
  P2pdmaState p2pdma;
  // --path as resolved inside the root; "" when not given.
  std::string path;
};

struct GdsReadOptions {
  // CUFILE_ENV_PATH_JSON as the job would have it (this machine's
  // environment, or --env); a path inside the root.
  std::optional<std::string> cufile_env_path;
  // --path DIR: the data directory whose mount is judged (inside the root;
  // it must exist there).
  std::string path;
};

// "nvme: 2.28.4\nnvme_rdma: 2.28.4\n" → backends; lines without ':' are skipped.
std::vector<NvidiaFsBackend> parse_nvidia_fs_modules(const std::string& text);

GdsState read_gds_state(const Root& root, const GdsReadOptions& options);

}  // namespace gdrcheck

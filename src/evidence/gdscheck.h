// Reader for pasted `gdscheck -p` / `gdscheck.py -p` output, from the GDS
// 0.9 beta layout ("cuFile CONFIGURATION:" with upper-case transports and
// "--MOFED peer direct") through the sectioned 1.x layout (ENVIRONMENT,
// DRIVER CONFIGURATION, CUFILE CONFIGURATION, GPU INFO, PLATFORM INFO) to
// 1.16 (per-transport route tokens such as "nvfs, compat"). Goes by keys,
// not by sections, so Markdown-flattened pastes read the same.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gdrcheck {

struct GdscheckGpu {
  int index = 0;
  std::string name;  // "NVIDIA A100-SXM4-80GB"
  std::optional<long> bar1_mib;
  bool supports_gds = false;
  std::string iommu_state;  // "Disabled" (GDS 1.7+ prints it per GPU)
  std::string detail;       // the rest of an unsupported line ("does not have supported architecture, ...")
};

struct GdscheckReport {
  std::string gds_version;  // "1.13.0.11"; "0.9.1.5" for a beta ("GDS release version (beta)")
  bool beta = false;
  std::string nvidia_fs_version;      // "2.17"; "" when gdscheck did not print it (module not loaded)
  std::string nvidia_fs_min_version;  // "2.12" (GDS 1.16: "nvidia_fs minimum version")
  std::string libcufile_version;      // "2.12"
  std::string platform;               // "x86_64" or "R8868 G13, Arch: x86_64(Linux ...)" (the last one printed)

  // Each DRIVER CONFIGURATION transport as printed ("NVMe", "Supported"),
  // then sorted into: supported (Supported, or a direct route token such as
  // nvfs / dmabuf / p2pdma / c2c / nvidia_peermem), compat_only ("compat"
  // alone: I/O is bounced through host memory) and unsupported.
  std::vector<std::pair<std::string, std::string>> transports;
  std::vector<std::string> supported, compat_only, unsupported;

  // "--Mellanox PeerDirect : Enabled", "--rdma devices : Not configured", ...
  std::vector<std::pair<std::string, std::string>> driver_config;
  std::optional<bool> peerdirect;                                  // Mellanox PeerDirect / MOFED peer direct
  std::vector<std::pair<std::string, std::string>> environment;    // ENVIRONMENT section
  std::vector<std::pair<std::string, std::string>> cufile_config;  // "properties.use_pci_p2pdma", "fs.weka...", ...
  std::optional<bool> compat_mode;        // properties.allow_compat_mode (or its old name use_compat_mode)
  std::optional<bool> force_compat_mode;  // properties.force_compat_mode
  std::optional<bool> use_pci_p2pdma;     // properties.use_pci_p2pdma

  std::vector<GdscheckGpu> gpus;
  std::string iommu;                      // "disabled" / "enabled" as printed (PLATFORM INFO)
  std::optional<bool> iommu_enabled;      // from that line
  std::string nvidia_driver_info;         // "Supported(Nvidia Open Driver Installed)"
  std::string cuda_driver_version;        // "12080"
  std::vector<std::string> acs;           // lines about ACS-enabled switches
  std::optional<bool> platform_verified;  // "Platform verification succeeded" / "failed"
  std::vector<std::string> errors;        // "cufile initialization failed", "... not supported ..."
  // The first note is always the same caution: "Supported" here says the
  // stack is installed, not that any I/O used the direct path.
  std::vector<std::string> notes;
};

// True when the text looks like gdscheck -p output (release/version line,
// its section titles, or several transport lines).
bool looks_like_gdscheck(std::string_view head);

// Never throws; bounded (lists capped at a few hundred entries).
GdscheckReport parse_gdscheck(std::string_view text);

}  // namespace gdrcheck

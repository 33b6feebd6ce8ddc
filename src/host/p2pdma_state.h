// What a host shows of the kernel PCI-P2PDMA route GPUDirect Storage can
// take instead of nvidia-fs (platform-spec §5.5): whether the kernel has
// P2PDMA (its symbols in /proc/kallsyms, or CONFIG_PCI_P2PDMA in the
// kernel's config), NVMe multipath (off on x86), the NVIDIA driver's
// registry keys in /proc/driver/nvidia/params, and the CPU architecture
// the rules depend on. Values keep their files.
#pragma once

#include <optional>
#include <string>

#include "host/host_state.h"
#include "host/root.h"

namespace gdrcheck {

struct P2pdmaState {
  // The kernel has P2PDMA: true/false when kallsyms or a kernel config
  // could tell; nullopt when neither was readable. `kernel_evidence` says
  // which file decided (or what was looked at).
  std::optional<bool> kernel;
  std::string kernel_evidence;
  Fact nvme_multipath;      // /sys/module/nvme_core/parameters/multipath: "Y" / "N"
  Fact registry;            // the RegistryDwords line of /proc/driver/nvidia/params
  std::optional<bool> x86;  // from /proc/cpuinfo; nullopt when not readable
};

P2pdmaState read_p2pdma_state(const Root& root);

}  // namespace gdrcheck

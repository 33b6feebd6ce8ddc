// Parsers for driver and kernel version text: /proc/driver/nvidia/version
// and /proc/sys/kernel/osrelease.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gdrcheck {

struct NvidiaDriver {
  std::string version;       // "550.54.15"
  int major = 0;             // 550
  bool open_module = false;  // "Open Kernel Module" banner (DMA-BUF capable)
};

// First line "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ..."
// or "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ...".
std::optional<NvidiaDriver> parse_nvidia_version(std::string_view text);

struct KernelRelease {
  int major = 0, minor = 0;
  bool at_least(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
};

// "5.15.0-105-generic" → {5, 15}.
std::optional<KernelRelease> parse_kernel_release(std::string_view text);

}  // namespace gdrcheck

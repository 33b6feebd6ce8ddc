// How gdrcheck gets the nvidia-smi outputs that show NVLink, which sysfs
// does not: from a recorded root, the files a capture wrote under
// /.gdrcheck/commands/; on the live host, by running nvidia-smi (through
// the process runner, with a timeout). Each output is a value that says
// why it is missing, never an exception.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "host/root.h"

namespace gdrcheck {

// Where a recorded root keeps them.
inline constexpr const char* kTopoMatrixCapture = "/.gdrcheck/commands/nvidia-smi-topo-m.txt";
inline constexpr const char* kNvlinkStatusCapture = "/.gdrcheck/commands/nvidia-smi-nvlink-status.txt";

struct CommandOutput {
  std::string command;              // "nvidia-smi topo -m"
  std::optional<std::string> text;  // stdout, when there is one
  // Where the text came from ("/.gdrcheck/commands/nvidia-smi-topo-m.txt",
  // "/usr/bin/nvidia-smi topo -m"), or where it was looked for.
  std::string origin;
  // Why there is no text: "not captured", "nvidia-smi not found in PATH",
  // "timed out after 10 s", "exit status 6: No devices were found", ...
  std::string missing;

  bool ok() const { return text.has_value(); }
  // "nvidia-smi topo -m: timed out after 10 s" / "... from <origin>".
  std::string describe() const;
};

struct NvidiaSmiOutputs {
  CommandOutput topo_matrix;    // nvidia-smi topo -m
  CommandOutput nvlink_status;  // nvidia-smi nvlink --status
};

struct NvidiaSmiOptions {
  // Looked up in PATH when it has no '/'; tests put a stand-in here.
  std::string program = "nvidia-smi";
  // nvidia-smi answers in well under a second; a wedged driver makes it
  // hang, which must not stall a health check.
  std::chrono::milliseconds timeout{10000};
  std::size_t max_bytes = 4u << 20;  // larger output is refused, not cut
};

// Recorded root (!root.is_live()): the capture files, read through the root.
// Live root: runs `nvidia-smi topo -m` and `nvidia-smi nvlink --status`.
NvidiaSmiOutputs read_nvidia_smi_outputs(const Root& root, const NvidiaSmiOptions& options = {});

}  // namespace gdrcheck

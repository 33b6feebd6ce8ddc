// The NCCL environment of a bench run: the user's own NCCL_* settings kept,
// debug output switched on so the log proves the data path, RING forced on
// two nodes (so busbw can be compared with the NICs' line rate), and for the
// A/B arm GPUDirect RDMA switched off. Pure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gdrcheck {

struct NcclRunEnvironment {
  std::vector<std::pair<std::string, std::string>> set;  // exported to every rank, in order
  std::vector<std::string> unset;                        // removed from the launcher's environment
  std::vector<std::string> notes;                        // what was changed from the user's settings, and why
};

struct NcclEnvironmentRequest {
  // NAME=VALUE of the calling process (only NCCL_* are looked at).
  std::vector<std::pair<std::string, std::string>> user;
  int nodes = 1;
  bool gdr_off = false;  // the A/B arm: NCCL_NET_GDR_LEVEL=LOC
};

NcclRunEnvironment nccl_run_environment(const NcclEnvironmentRequest& request);

// The NCCL_* variables among `environ`-style "NAME=VALUE" strings.
std::vector<std::pair<std::string, std::string>> nccl_variables(const std::vector<std::string>& environment);

}  // namespace gdrcheck

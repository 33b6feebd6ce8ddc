// JSON for `gdrcheck cluster --json`, schema "gdrcheck.cluster/1"
// (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "cluster/drain.h"

namespace gdrcheck {

struct ClusterJsonContext {
  Status verdict = Status::Unknown;  // the exit status (after --threshold)
  std::optional<std::string> threshold;
  std::vector<std::vector<std::string>> drain;  // scontrol argument vectors
  bool drained = false;                         // --drain ran them
  SlurmActions slurm;                           // ages, guards, resume
};

nlohmann::json cluster_json(const ClusterModel& m, const ClusterJsonContext& c);

// "NCCL settings" -> "nccl_settings".
std::string aspect_key(const std::string& aspect);

}  // namespace gdrcheck

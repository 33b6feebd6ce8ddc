// A private Slurm cluster for tests: munged, slurmctld, and one real slurmd
// per test host (each in its host's network namespace, so each is a node
// of its own), started by scripts/test-hosts/slurm-up and stopped — with
// everything it started — by the destructor. While it lives, SLURM_CONF
// points srun/sinfo at it.
#pragma once

#include <string>

#include "netns_hosts.h"

namespace gdrcheck::testing {

class SlurmCluster {
 public:
  // One node per host of `hosts`, named node_name(i). Throws
  // std::runtime_error with slurm-up's output when it cannot start.
  // `extra_conf`: lines added to slurm.conf (e.g. "HealthCheckProgram=...").
  explicit SlurmCluster(const NetnsHosts& hosts, const std::string& extra_conf = "");
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  static std::string node_name(int i) { return "gdrt" + std::to_string(i + 1); }
  // The path every node runs: the gdrcheck script of the host whose
  // slurmd started the task (srun sets SLURMD_NODENAME).
  const std::string& remote_gdrcheck() const { return remote_gdrcheck_; }
  // The cluster's own directory (config, logs, the dispatching script).
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, remote_gdrcheck_, old_conf_;
  bool had_conf_ = false;
};

}  // namespace gdrcheck::testing

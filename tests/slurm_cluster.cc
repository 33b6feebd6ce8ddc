#include "slurm_cluster.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "host/process.h"
#include "recorded_fixtures.h"

namespace gdrcheck::testing {
namespace {

const std::string kTestHostScripts = std::string(GDRCHECK_DATA_DIR) + "/scripts/test-hosts/";

}  // namespace

SlurmCluster::SlurmCluster(const NetnsHosts& hosts, const std::string& extra_conf) {
  dir_ = scratch_dir() + "/slurm";
  ::mkdir(dir_.c_str(), 0755);
  std::ofstream(dir_ + "/extra.conf") << extra_conf;
  const int pid = static_cast<int>(::getpid());
  // Ports of their own, so that test processes running at once do not meet.
  const int port = 20000 + 2 * (pid % 20000);
  std::vector<std::string> argv = {kTestHostScripts + "slurm-up", dir_, hosts.subnet() + ".254", std::to_string(port)};
  std::string dispatch = "case \"$SLURMD_NODENAME\" in\n";
  for (int i = 0; i < hosts.size(); ++i) {
    argv.push_back(node_name(i) + "=" + hosts.host(i).address + "@" + hosts.host(i).ns);
    dispatch += "  " + node_name(i) + ") exec '" + hosts.host(i).dir + "/gdrcheck' \"$@\" ;;\n";
  }
  dispatch += "esac\necho \"not a test node: $SLURMD_NODENAME\" >&2; exit 70\n";

  // Written before the daemons start: slurmd may run a health check at once.
  remote_gdrcheck_ = dir_ + "/gdrcheck";
  std::ofstream(remote_gdrcheck_) << "#!/bin/sh\n" << dispatch;
  ::chmod(remote_gdrcheck_.c_str(), 0755);

  const char* conf = std::getenv("SLURM_CONF");
  had_conf_ = conf != nullptr;
  if (conf) old_conf_ = conf;
  ProcessSpec spec = ProcessSpec::command(argv);
  spec.timeout = std::chrono::seconds(60);
  spec.merge_stderr = true;
  ProcessResult r = run_process(spec);
  if (!r.succeeded()) throw std::runtime_error("slurm-up: " + r.describe() + "\n" + r.out);
  ::setenv("SLURM_CONF", (dir_ + "/slurm.conf").c_str(), 1);
}

SlurmCluster::~SlurmCluster() {
  ProcessSpec spec = ProcessSpec::command({kTestHostScripts + "slurm-down", dir_});
  spec.timeout = std::chrono::seconds(30);
  run_process(spec);
  if (had_conf_) {
    ::setenv("SLURM_CONF", old_conf_.c_str(), 1);
  } else {
    ::unsetenv("SLURM_CONF");
  }
}

}  // namespace gdrcheck::testing

// The Slurm HealthCheckProgram wrapper (tools/health/gdrcheck-slurm-health)
// run by the real slurmd of each test host: a node whose check is CRITICAL
// is drained under its Slurm NodeName (which differs from its host name
// here), a healthy one is not, and the drained node is resumed once its
// check passes again.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <thread>

#include "cluster/slurm_node_state.h"
#include "host/process.h"
#include "netns_hosts.h"
#include "recorded_fixtures.h"
#include "slurm_cluster.h"

namespace gdrcheck {
namespace {

using testing::NetnsHosts;
using testing::SlurmCluster;

// `scontrol show node -o NAME`: one line with State= and Reason=.
std::string node_line(const std::string& name) {
  ProcessSpec spec = ProcessSpec::command({"scontrol", "show", "node", "-o", name});
  spec.timeout = std::chrono::seconds(10);
  return run_process(spec).out;
}

bool drained(const std::string& line) {
  std::size_t state = line.find("State=");
  return state != std::string::npos && line.find("DRAIN", state) < line.find(' ', state);
}

// Waits up to `seconds` for `pred` on the node's line; returns the last line.
template <typename Pred>
std::string wait_for(const std::string& name, Pred pred, int seconds) {
  std::string line;
  for (int i = 0; i < seconds * 2; ++i) {
    line = node_line(name);
    if (pred(line)) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return line;
}

TEST(SlurmHealthCheck, SlurmdDrainsTheBrokenNodeByItsNodeNameAndResumesItWhenFixed) {
  enum Node { kHealthy, kBroken, kNodeCount };
  std::string why = testing::netns_unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
  NetnsHosts hosts(kNodeCount);
  hosts.run_real_node(kHealthy, {}, "host-a.example");
  hosts.run_real_node(kBroken, {"peermem-missing"}, "host-b.example");

  // slurmd runs the program with its own small environment: the test's
  // settings reach the shipped wrapper through a one-line launcher, as a
  // site's /etc/default/gdrcheck-health would.
  std::string dir = testing::scratch_dir();
  std::string program = dir + "/health";
  std::string slurm_dir_hint = dir + "/slurm-dir";
  std::ofstream(program) << "#!/bin/sh\n"
                         << "SLURM_CONF=$(cat '" << slurm_dir_hint << "')/slurm.conf; export SLURM_CONF\n"
                         << "GDRCHECK=$(cat '" << slurm_dir_hint << "')/gdrcheck; export GDRCHECK\n"
                         << "exec '" << GDRCHECK_DATA_DIR << "/tools/health/gdrcheck-slurm-health'\n";
  ::chmod(program.c_str(), 0755);
  // The cluster's directory is known only once it is made; until then the
  // program finds no gdrcheck and drains nothing.
  std::ofstream(slurm_dir_hint) << "/nonexistent";
  SlurmCluster slurm(hosts, "HealthCheckProgram=" + program + "\nHealthCheckInterval=3\nHealthCheckNodeState=ANY\n");
  std::ofstream(slurm_dir_hint) << slurm.dir();

  const std::string broken = SlurmCluster::node_name(kBroken);
  std::string line = wait_for(broken, drained, 60);
  ASSERT_TRUE(drained(line)) << line;
  EXPECT_NE(line.find("Reason=gdrcheck: nccl,peermem CRITICAL"), std::string::npos) << line;
  // The real line as `cluster --resume` reads it (cluster/slurm_node_state.h).
  SlurmNodeState state = parse_slurm_node_line(line);
  EXPECT_EQ(state.name, broken);
  EXPECT_TRUE(state.drain) << line;
  EXPECT_EQ(state.reason, "gdrcheck: nccl,peermem CRITICAL") << line;
  EXPECT_TRUE(state.drained_by_gdrcheck()) << line;
  EXPECT_FALSE(drained(node_line(SlurmCluster::node_name(kHealthy)))) << node_line(SlurmCluster::node_name(kHealthy));

  // The node is fixed: the next health check resumes it.
  hosts.run_real_node(kBroken);
  line = wait_for(
      broken, [](const std::string& l) { return !drained(l); }, 60);
  EXPECT_FALSE(drained(line)) << line;
}

}  // namespace
}  // namespace gdrcheck

// `run_on_hosts --slurm` through real srun, slurmctld and one slurmd per
// test host (network namespaces), each node with its own recorded root.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

#include "cluster/launcher.h"
#include "netns_hosts.h"
#include "recorded_fixtures.h"
#include "slurm_cluster.h"

namespace gdrcheck {
namespace {

using testing::NetnsHosts;
using testing::SlurmCluster;

class SlurmClusterTest : public ::testing::Test {
 protected:
  using How = NodeOutcome::How;
  enum Node { kHealthy, kAcs, kCrashes, kGarbage, kNodeCount };

  void SetUp() override {
    std::string why = testing::netns_unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
    hosts_ = std::make_unique<NetnsHosts>(kNodeCount);
    hosts_->run_real_node(kHealthy);
    hosts_->run_real_node(kAcs, {"acs-redirect"});
    hosts_->set_gdrcheck_script(kCrashes, "echo partial; kill -SEGV $$\n");
    hosts_->set_gdrcheck_script(kGarbage, "echo 'not a report'; exit 1\n");
    slurm_ = std::make_unique<SlurmCluster>(*hosts_);
  }
  void TearDown() override {
    slurm_.reset();
    hosts_.reset();
  }

  LaunchOptions options() const {
    LaunchOptions opts;
    opts.launcher = Launcher::Slurm;
    opts.remote_gdrcheck = slurm_->remote_gdrcheck();
    opts.timeout = std::chrono::seconds(40);
    opts.scratch_dir = testing::scratch_dir();
    return opts;
  }

  std::unique_ptr<NetnsHosts> hosts_;
  std::unique_ptr<SlurmCluster> slurm_;
};

TEST_F(SlurmClusterTest, SrunRunsGdrcheckOnEveryNodeAndNamesEach) {
  LaunchOptions opts = options();
  opts.slurm.nodes = std::to_string(kNodeCount);
  opts.slurm.nodelist = "gdrt[1-" + std::to_string(kNodeCount) + "]";
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), static_cast<std::size_t>(kNodeCount));
  for (int i = 0; i < kNodeCount; ++i) EXPECT_EQ(out[i].host, SlurmCluster::node_name(i));

  EXPECT_EQ(out[kHealthy].how, How::Report) << out[kHealthy].reason;
  nlohmann::json healthy = nlohmann::json::parse(out[kHealthy].raw, nullptr, false);
  ASSERT_FALSE(healthy.is_discarded()) << out[kHealthy].raw.substr(0, 300);
  EXPECT_EQ(healthy.value("schema", ""), "gdrcheck.node/1");

  EXPECT_EQ(out[kAcs].how, How::Report) << out[kAcs].reason;
  EXPECT_EQ(out[kAcs].exit_code, 2);
  nlohmann::json acs = nlohmann::json::parse(out[kAcs].raw, nullptr, false);
  ASSERT_FALSE(acs.is_discarded());
  EXPECT_EQ(acs.value("status", ""), "CRITICAL");

  EXPECT_EQ(out[kCrashes].how, How::Crashed) << out[kCrashes].reason;
  EXPECT_EQ(out[kCrashes].raw, "partial\n");
  EXPECT_NE(out[kCrashes].reason.find("Segmentation fault"), std::string::npos) << out[kCrashes].reason;

  EXPECT_EQ(out[kGarbage].how, How::Report) << out[kGarbage].reason;
  EXPECT_EQ(out[kGarbage].exit_code, 1);
  EXPECT_EQ(out[kGarbage].raw, "not a report\n");
}

TEST_F(SlurmClusterTest, NodeThatIsNotInTheClusterIsListedWithSrunsReason) {
  LaunchOptions opts = options();
  opts.slurm.nodelist = "gdrt1,nosuchnode";
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& o : out) {
    EXPECT_NE(o.how, How::Report) << o.host;
    EXPECT_NE(o.reason.find("srun"), std::string::npos) << o.reason;
  }
}

}  // namespace
}  // namespace gdrcheck

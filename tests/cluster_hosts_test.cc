// `run_on_hosts` over real OpenSSH and pdsh against test hosts on this
// machine (network namespaces, each with a real sshd and its own recorded
// root): one healthy, one without peermem, one with ACS redirecting P2P,
// one whose sshd is stopped, one that hangs past the timeout, one whose
// gdrcheck prints garbage, one whose gdrcheck is killed by SIGSEGV.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

#include "cluster/launcher.h"
#include "netns_hosts.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::NetnsHosts;

class ClusterHostsTest : public ::testing::Test {
 protected:
  using How = NodeOutcome::How;
  enum Host { kHealthy, kNoPeermem, kAcs, kSshdStopped, kHangs, kGarbage, kCrashes, kHostCount };

  void SetUp() override {
    std::string why = testing::netns_unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
    hosts_ = std::make_unique<NetnsHosts>(kHostCount);
    auto& h = *hosts_;
    h.run_real_node(kHealthy);
    h.run_real_node(kNoPeermem, {"peermem-missing"});
    h.run_real_node(kAcs, {"acs-redirect"});
    h.set_gdrcheck_script(kHangs, testing::kHangingScript);
    h.set_gdrcheck_script(kGarbage, "echo 'Segmentation fault? no: just garbage {'\n");
    h.set_gdrcheck_script(kCrashes, "echo '{\"schema\":'; kill -SEGV $$\n");
    for (int i = 0; i < kHostCount; ++i) h.start_sshd(i);
    h.stop_sshd(kSshdStopped);
  }

  LaunchOptions options(Launcher launcher) const {
    LaunchOptions opts;
    opts.launcher = launcher;
    for (int i = 0; i < kHostCount; ++i) opts.hosts.push_back(hosts_->host(i).address);
    opts.remote_gdrcheck = hosts_->remote_gdrcheck();
    opts.ssh_options = hosts_->ssh_options();
    opts.timeout = testing::kRealNodeTimeout;
    opts.connect_timeout = std::chrono::seconds(3);
    opts.fanout = 4;
    return opts;
  }

  // The statuses of one check's findings in a node report.
  static std::vector<std::string> statuses_of(const nlohmann::json& report, const std::string& check) {
    std::vector<std::string> statuses;
    for (const auto& f : report.at("findings")) {
      if (f.at("check") == check) statuses.push_back(f.at("status"));
    }
    return statuses;
  }

  static nlohmann::json report_of(const NodeOutcome& o) {
    EXPECT_EQ(o.how, How::Report) << o.host << ": " << o.reason;
    nlohmann::json report = nlohmann::json::parse(o.raw, nullptr, false);
    EXPECT_FALSE(report.is_discarded()) << o.host << " sent: " << o.raw.substr(0, 200);
    if (report.is_discarded()) return nlohmann::json::object({{"findings", nlohmann::json::array()}});
    EXPECT_EQ(report.value("schema", ""), "gdrcheck.node/1");
    return report;
  }

  // What every launcher must say about these hosts.
  void expect_each_host_named_correctly(const std::vector<NodeOutcome>& out) {
    ASSERT_GE(out.size(), static_cast<std::size_t>(kHostCount));
    for (int i = 0; i < kHostCount; ++i) EXPECT_EQ(out[i].host, hosts_->host(i).address);

    nlohmann::json healthy = report_of(out[kHealthy]);
    EXPECT_EQ(statuses_of(healthy, "peermem"), std::vector<std::string>{"OK"});
    for (const auto& s : statuses_of(healthy, "acs")) EXPECT_EQ(s, "OK");

    nlohmann::json no_peermem = report_of(out[kNoPeermem]);
    EXPECT_EQ(out[kNoPeermem].exit_code, 2);
    EXPECT_EQ(no_peermem.value("status", ""), "CRITICAL");
    EXPECT_EQ(statuses_of(no_peermem, "peermem"), std::vector<std::string>{"CRITICAL"});

    nlohmann::json acs = report_of(out[kAcs]);
    EXPECT_EQ(out[kAcs].exit_code, 2);
    std::vector<std::string> acs_statuses = statuses_of(acs, "acs");
    EXPECT_NE(std::find(acs_statuses.begin(), acs_statuses.end(), "CRITICAL"), acs_statuses.end());
    EXPECT_EQ(statuses_of(acs, "peermem"), std::vector<std::string>{"OK"});

    EXPECT_EQ(out[kSshdStopped].how, How::Unreachable) << out[kSshdStopped].reason;
    EXPECT_NE(out[kSshdStopped].reason.find("Connection refused"), std::string::npos) << out[kSshdStopped].reason;

    EXPECT_EQ(out[kHangs].how, How::TimedOut) << out[kHangs].reason;

    // The launcher hands the output over; that it is not JSON is the
    // caller's finding (NotAReport), so only check it came back intact.
    EXPECT_EQ(out[kGarbage].how, How::Report) << out[kGarbage].reason;
    EXPECT_EQ(out[kGarbage].raw, "Segmentation fault? no: just garbage {\n");
    EXPECT_TRUE(nlohmann::json::parse(out[kGarbage].raw, nullptr, false).is_discarded());

    EXPECT_EQ(out[kCrashes].how, How::Crashed) << out[kCrashes].reason;
    EXPECT_EQ(out[kCrashes].raw, "{\"schema\":\n");
  }

  std::unique_ptr<NetnsHosts> hosts_;
};

TEST_F(ClusterHostsTest, SshNamesEveryHostCorrectly) {
  LaunchOptions opts = options(Launcher::Ssh);
  opts.hosts.push_back("a;rm -rf /");
  opts.hosts.push_back("-oProxyCommand=touch /tmp/gdrcheck-injected");
  auto start = std::chrono::steady_clock::now();
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(out.size(), static_cast<std::size_t>(kHostCount + 2));
  expect_each_host_named_correctly(out);
  for (std::size_t i = kHostCount; i < out.size(); ++i) {
    EXPECT_EQ(out[i].host, opts.hosts[i]);
    EXPECT_EQ(out[i].how, How::Unreachable) << out[i].reason;
  }
  EXPECT_NE(::access("/tmp/gdrcheck-injected", F_OK), 0) << "a host name was run as an ssh option";
  // The hung host is cut off at kRealNodeTimeout (20 s), not waited for (60 s).
  EXPECT_LT(took, std::chrono::seconds(50));
}

TEST_F(ClusterHostsTest, PdshNamesEveryHostCorrectly) {
  LaunchOptions opts = options(Launcher::Pdsh);
  opts.hosts.push_back("a;rm -rf /");
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), static_cast<std::size_t>(kHostCount + 1));
  expect_each_host_named_correctly(out);
  EXPECT_EQ(out[kHostCount].how, How::Unreachable);
}

TEST_F(ClusterHostsTest, FanoutOfOneStillReachesEveryHost) {
  LaunchOptions opts = options(Launcher::Ssh);
  opts.hosts = {hosts_->host(kHealthy).address, hosts_->host(kAcs).address, hosts_->host(kNoPeermem).address};
  opts.fanout = 1;
  std::vector<NodeOutcome> out = run_on_hosts(opts);
  ASSERT_EQ(out.size(), 3u);
  for (const auto& o : out) EXPECT_EQ(o.how, How::Report) << o.host << ": " << o.reason;
}

}  // namespace
}  // namespace gdrcheck

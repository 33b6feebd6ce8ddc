// `gdrcheck cluster` end to end: the real binary, started as an operator
// would, reaching test hosts (network namespaces on this machine) through
// real OpenSSH, pdsh and Slurm. Each host runs the real gdrcheck on its own
// built root — healthy, without peermem, with ACS redirecting P2P — or is
// broken in the ways clusters break: sshd stopped, a hang, garbage output.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "host/process.h"
#include "netns_hosts.h"
#include "recorded_fixtures.h"
#include "run_binary.h"
#include "slurm_cluster.h"

namespace gdrcheck {
namespace {

using testing::NetnsHosts;
using testing::run_gdrcheck;
using testing::RunResult;
namespace fs = std::filesystem;

class ClusterEndToEnd : public ::testing::Test {
 protected:
  enum Host { kHealthy, kNoPeermem, kAcs, kSshdStopped, kHangs, kGarbage, kHostCount };

  void SetUp() override {
    std::string why = testing::netns_unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
    hosts_ = std::make_unique<NetnsHosts>(kHostCount);
    auto& h = *hosts_;
    // Each node names itself as Slurm knows it; ssh and pdsh reach it by IP.
    h.run_real_node(kHealthy, {}, testing::SlurmCluster::node_name(kHealthy));
    h.run_real_node(kNoPeermem, {"peermem-missing"}, testing::SlurmCluster::node_name(kNoPeermem));
    h.run_real_node(kAcs, {"acs-redirect"}, testing::SlurmCluster::node_name(kAcs));
    h.run_real_node(kSshdStopped);
    h.set_gdrcheck_script(kHangs, testing::kHangingScript);
    h.set_gdrcheck_script(kGarbage, "echo 'Welcome to gpu06! {'\n");
  }

  void start_sshds() {
    for (int i = 0; i < kHostCount; ++i)
      if (i != kSshdStopped) hosts_->start_sshd(i);
  }

  std::string address(int i) const { return hosts_->host(i).address; }

  // Options every ssh/pdsh run shares: the test key and timeouts (a run
  // that includes the hanging host lasts the whole node timeout).
  std::vector<std::string> ssh_args() const {
    std::vector<std::string> args = {"--gdrcheck",
                                     hosts_->remote_gdrcheck(),
                                     "--timeout",
                                     std::to_string(testing::kRealNodeTimeout.count()),
                                     "--connect-timeout",
                                     "3",
                                     "--json"};
    for (const auto& o : hosts_->ssh_options()) args.push_back("--ssh-option=" + o);
    return args;
  }

  static nlohmann::json parse(const RunResult& r) {
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout: " << r.out.substr(0, 300) << "\nstderr: " << r.err;
    return j.is_discarded() ? nlohmann::json::object() : j;
  }

  static const nlohmann::json& node(const nlohmann::json& report, const std::string& host) {
    for (const auto& n : report.at("nodes"))
      if (n.at("host") == host) return n;
    ADD_FAILURE() << "no node " << host << " in " << report.dump().substr(0, 400);
    static const nlohmann::json none = {{"status", ""}, {"outcome", ""}, {"checks", nlohmann::json::object()}};
    return none;
  }

  static std::vector<std::string> drained_hosts(const nlohmann::json& report) {
    std::vector<std::string> hosts;
    for (const auto& cmd : report.at("drain").at("commands"))
      for (const auto& word : cmd)
        if (word.get<std::string>().starts_with("NodeName=")) hosts.push_back(word.get<std::string>().substr(9));
    return hosts;
  }

  // What the cluster report must say of the three real nodes. A node
  // reached by IP is judged but drained only by hand: its report names it
  // as gdrt2, and `scontrol update NodeName=10.x` would name no node.
  void expect_real_nodes_judged(const nlohmann::json& report, const std::string& healthy, const std::string& no_peermem,
                                const std::string& acs, bool by_name) {
    const auto& h = node(report, healthy);
    EXPECT_EQ(h.value("outcome", ""), "report");
    EXPECT_EQ(h.at("checks").value("peermem", ""), "OK");
    EXPECT_EQ(h.at("checks").value("acs", ""), "OK");
    const auto& p = node(report, no_peermem);
    EXPECT_EQ(p.value("status", ""), "CRITICAL");
    EXPECT_EQ(p.at("checks").value("peermem", ""), "CRITICAL");
    EXPECT_EQ(p.value("gdr_ready", true), false);
    const auto& a = node(report, acs);
    EXPECT_EQ(a.value("status", ""), "CRITICAL");
    EXPECT_EQ(a.at("checks").value("acs", ""), "CRITICAL");
    EXPECT_EQ(a.at("checks").value("peermem", ""), "OK");
    if (by_name) {
      EXPECT_EQ(drained_hosts(report), (std::vector<std::string>{no_peermem, acs}));
      return;
    }
    EXPECT_TRUE(drained_hosts(report).empty());
    std::string notes = report.at("notes").dump();
    EXPECT_NE(notes.find(acs + ": CRITICAL, not drained: its report names host '" +
                         testing::SlurmCluster::node_name(kAcs) + "'"),
              std::string::npos)
        << notes;
  }

  // The broken ssh hosts: each UNKNOWN with its own reason.
  void expect_broken_hosts_named(const nlohmann::json& report) {
    const auto& stopped = node(report, address(kSshdStopped));
    EXPECT_EQ(stopped.value("status", ""), "UNKNOWN");
    EXPECT_EQ(stopped.value("outcome", ""), "unreachable");
    EXPECT_NE(stopped.value("reason", "").find("Connection refused"), std::string::npos) << stopped.dump();
    const auto& hang = node(report, address(kHangs));
    EXPECT_EQ(hang.value("status", ""), "UNKNOWN");
    EXPECT_EQ(hang.value("outcome", ""), "timed out") << hang.dump();
    const auto& garbage = node(report, address(kGarbage));
    EXPECT_EQ(garbage.value("status", ""), "UNKNOWN");
    EXPECT_EQ(garbage.value("outcome", ""), "not a report") << garbage.dump();
    EXPECT_NE(garbage.value("reason", "").find("not JSON"), std::string::npos) << garbage.dump();
  }

  std::unique_ptr<NetnsHosts> hosts_;
};

TEST_F(ClusterEndToEnd, SshReportsEveryHostAndSavesRawOutputs) {
  start_sshds();
  std::string save = testing::scratch_dir() + "/raw";
  std::vector<std::string> args = {"cluster", "--save", save};
  std::string hosts;
  for (int i = 0; i < kHostCount; ++i) hosts += (i ? "," : "") + address(i);
  args.push_back("--ssh=" + hosts);
  for (const auto& a : ssh_args()) args.push_back(a);
  RunResult r = run_gdrcheck(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;  // CRITICAL outranks the UNKNOWN hosts
  nlohmann::json report = parse(r);
  EXPECT_EQ(report.value("schema", ""), "gdrcheck.cluster/1");
  EXPECT_EQ(report.value("status", ""), "CRITICAL");
  EXPECT_EQ(report.at("summary").at("by_status").value("UNKNOWN", 0), 3);
  EXPECT_EQ(report.at("nodes").size(), static_cast<std::size_t>(kHostCount));
  expect_real_nodes_judged(report, address(kHealthy), address(kNoPeermem), address(kAcs), false);
  expect_broken_hosts_named(report);
  // The raw output of every host that printed something is kept as it came.
  std::ifstream garbage(save + "/" + address(kGarbage) + ".json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(garbage), {}), "Welcome to gpu06! {\n");
  EXPECT_TRUE(fs::exists(save + "/" + address(kNoPeermem) + ".json"));

  // Saving again into the same directory keeps the first files.
  RunResult again = run_gdrcheck(args);
  EXPECT_NE(again.err.find("--save"), std::string::npos) << again.err;
  std::ifstream kept(save + "/" + address(kGarbage) + ".json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "Welcome to gpu06! {\n");
}

TEST_F(ClusterEndToEnd, HostfileAndThresholdAndText) {
  start_sshds();
  std::string file = testing::scratch_dir() + "/hosts";
  std::ofstream(file) << "# the three real nodes\n"
                      << address(kHealthy) << " slots=8\n"
                      << address(kNoPeermem) << "\n\n"
                      << address(kAcs) << "  # ACS on one switch\n";
  std::vector<std::string> args = ssh_args();
  args.erase(std::find(args.begin(), args.end(), "--json"));
  args.insert(args.begin(), {"cluster", "--hostfile", file, "--threshold", "2"});
  RunResult r = run_gdrcheck(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // two failed nodes are within the threshold
  EXPECT_NE(r.out.find(address(kNoPeermem)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CRITICAL, not drained:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(address(kAcs) + " ("), std::string::npos) << r.out;  // with the report's age
  EXPECT_NE(r.out.find("its report names host '" + testing::SlurmCluster::node_name(kAcs) + "'"), std::string::npos)
      << r.out;

  args[4] = "1";  // past the threshold
  EXPECT_EQ(run_gdrcheck(args).exit_code, 2);
}

TEST_F(ClusterEndToEnd, PdshReportsEveryHost) {
  start_sshds();
  std::string hosts;
  for (int i = 0; i < kHostCount; ++i) hosts += (i ? "," : "") + address(i);
  std::vector<std::string> args = {"cluster", "--pdsh", hosts, "--fanout", "3"};
  for (const auto& a : ssh_args()) args.push_back(a);
  RunResult r = run_gdrcheck(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  nlohmann::json report = parse(r);
  EXPECT_EQ(report.at("nodes").size(), static_cast<std::size_t>(kHostCount));
  expect_real_nodes_judged(report, address(kHealthy), address(kNoPeermem), address(kAcs), false);
  const auto& stopped = node(report, address(kSshdStopped));
  EXPECT_EQ(stopped.value("outcome", ""), "unreachable") << stopped.dump();
  EXPECT_EQ(node(report, address(kHangs)).value("outcome", ""), "timed out");
  EXPECT_EQ(node(report, address(kGarbage)).value("outcome", ""), "not a report");
}

TEST_F(ClusterEndToEnd, NodeOptionsReachEveryNode) {
  start_sshds();
  std::vector<std::string> args = {"cluster", "--ssh", address(kHealthy), "--node-env", "NCCL_NET_GDR_READ=0"};
  for (const auto& a : ssh_args()) args.push_back(a);
  RunResult r = run_gdrcheck(args);
  nlohmann::json report = parse(r);
  // With GDR reads off NCCL uses GPUDirect RDMA on the receive side only:
  // the node is no longer ready, which it was without the setting.
  const auto& n = node(report, address(kHealthy));
  EXPECT_EQ(n.value("gdr_ready", true), false) << n.dump();
  EXPECT_NE(n.at("checks").value("nccl", "OK"), "OK") << n.dump();
}

TEST_F(ClusterEndToEnd, SlurmReportsEveryNode) {
  auto slurm = std::make_unique<testing::SlurmCluster>(*hosts_);
  std::vector<std::string> args = {"cluster",     "--slurm",
                                   "-N",          "3",
                                   "-w",          "gdrt[1-3]",
                                   "--gdrcheck",  slurm->remote_gdrcheck(),
                                   "--slurm-dir", testing::scratch_dir(),
                                   "--timeout",   "60",
                                   "--json"};
  RunResult r = run_gdrcheck(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;  // CRITICAL nodes, every node answered
  nlohmann::json report = parse(r);
  EXPECT_EQ(report.at("nodes").size(), 3u) << r.out.substr(0, 400);
  expect_real_nodes_judged(report, testing::SlurmCluster::node_name(kHealthy),
                           testing::SlurmCluster::node_name(kNoPeermem), testing::SlurmCluster::node_name(kAcs), true);
}

// What Slurm itself says of a node (scontrol reads SLURM_CONF, which the
// test cluster sets).
std::string slurm_node_line(const std::string& name) {
  ProcessResult r = run_process(ProcessSpec::command({"scontrol", "-o", "show", "node", name}));
  return r.out;
}

// Drain with the real scontrol, then fix a node and resume it. A drained
// node takes no new job, so srun cannot start gdrcheck there: the drained
// nodes are left out of the srun and named, and --resume says how to reach
// them.
TEST_F(ClusterEndToEnd, SlurmDrainsWithinTheLimitAndNamesDrainedNodesAfterwards) {
  auto slurm = std::make_unique<testing::SlurmCluster>(*hosts_);
  std::vector<std::string> base = {"cluster",     "--slurm",
                                   "-w",          "gdrt[1-3]",
                                   "--gdrcheck",  slurm->remote_gdrcheck(),
                                   "--slurm-dir", testing::scratch_dir(),
                                   "--timeout",   "30",
                                   "--json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gdrcheck(args);
  };
  RunResult refused = with({"--drain"});  // 2 of 3 CRITICAL, over the default limit of 1
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_EQ(slurm_node_line("gdrt2").find("DRAIN"), std::string::npos) << slurm_node_line("gdrt2");

  RunResult drained = with({"--drain", "--max-drain", "2"});  // real scontrol drains
  EXPECT_EQ(drained.exit_code, 2) << drained.err;
  std::string gdrt2 = slurm_node_line("gdrt2");
  EXPECT_NE(gdrt2.find("DRAIN"), std::string::npos) << gdrt2;
  EXPECT_NE(gdrt2.find("Reason=gdrcheck: nccl,peermem CRITICAL"), std::string::npos) << gdrt2;
  EXPECT_NE(slurm_node_line("gdrt3").find("Reason=gdrcheck: acs CRITICAL"), std::string::npos);
  EXPECT_EQ(slurm_node_line("gdrt1").find("DRAIN"), std::string::npos);

  hosts_->run_real_node(kNoPeermem, {}, testing::SlurmCluster::node_name(kNoPeermem));  // fixed
  // gdrt1 is still checked; gdrt2 and gdrt3 are named, not waited for.
  RunResult after = with({"--resume"});
  EXPECT_EQ(after.exit_code, 3) << after.err;  // two nodes not checked, none CRITICAL
  nlohmann::json report = parse(after);
  EXPECT_EQ(node(report, "gdrt1").value("outcome", ""), "report");
  EXPECT_EQ(node(report, "gdrt1").value("status", ""), "OK");
  const auto& skipped = node(report, "gdrt2");
  EXPECT_EQ(skipped.value("outcome", ""), "not schedulable") << skipped.dump();
  EXPECT_EQ(skipped.value("status", ""), "UNKNOWN");
  EXPECT_NE(skipped.value("reason", "").find("Reason='gdrcheck: nccl,peermem CRITICAL'"), std::string::npos)
      << skipped.dump();
  EXPECT_NE(skipped.value("reason", "").find("gdrcheck cluster --ssh gdrt2"), std::string::npos);
  EXPECT_EQ(node(report, "gdrt3").value("outcome", ""), "not schedulable");

  // Brought back by hand, as the reason says; the next --slurm run checks it again.
  run_process(ProcessSpec::command({"scontrol", "update", "NodeName=gdrt2", "State=RESUME"}));
  // slurmctld pings a resumed node and shows it NOT_RESPONDING until slurmd
  // answers; gdrcheck leaves such a node out too (srun would wait for it).
  for (int i = 0; i < 60 && slurm_node_line("gdrt2").find("State=IDLE ") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  nlohmann::json again = parse(with({}));
  EXPECT_EQ(node(again, "gdrt2").value("status", ""), "OK") << node(again, "gdrt2").dump();
}

// Usage errors and bad input never start a launcher and exit 64 or 3.
TEST(ClusterCliLaunchers, BadCombinationsAndFiles) {
  EXPECT_EQ(run_gdrcheck({"cluster", "--ssh", "a", "--pdsh", "b"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"cluster", "--ssh", "a", "-N", "2"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"cluster", "--ssh", "gpu[3-1]"}).exit_code, 64);
  RunResult missing = run_gdrcheck({"cluster", "--hostfile", "/nonexistent/hosts"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("/nonexistent/hosts"), std::string::npos) << missing.err;
  std::string empty = testing::scratch_dir() + "/empty-hosts";
  std::ofstream(empty) << "# nothing\n";
  RunResult none = run_gdrcheck({"cluster", "--hostfile", empty});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_NE(none.err.find(empty + ": no host in the file"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace gdrcheck

// The health-check integrations in tools/: the Slurm HealthCheckProgram
// wrapper (with a stand-in scontrol here; with the real slurmd of the test
// hosts in slurm_health_test.cc), the NHC check sourced by bash with NHC's
// calling convention, and the Kubernetes DaemonSet (parsed, and its loop
// run once against built roots).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "host/process.h"
#include "recorded_fixtures.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using testing::slurp;

const std::string kTools = std::string(GDRCHECK_DATA_DIR) + "/tools/";

std::string write_script(const std::string& dir, const std::string& name, const std::string& body) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

ProcessResult run_with_env(const std::vector<std::string>& argv,
                           const std::vector<std::pair<std::string, std::string>>& env,
                           const std::vector<std::string>& unset = {}) {
  ProcessSpec spec = ProcessSpec::command(argv);
  spec.env_set = env;
  spec.env_unset = unset;
  spec.timeout = std::chrono::seconds(60);
  return run_process(spec);
}

// --- Slurm HealthCheckProgram wrapper -----------------------------------------

class SlurmHealthWrapper : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_dir();
    calls_ = dir_ + "/scontrol.calls";
    state_ = dir_ + "/node.state";
    // scontrol stand-in: logs its arguments; `show node` prints the state file.
    scontrol_ = write_script(dir_, "scontrol",
                             "echo \"$*\" >> '" + calls_ +
                                 "'\n"
                                 "if [ \"$1\" = show ]; then cat '" +
                                 state_ + "'; fi\n");
    std::ofstream(state_) << "NodeName=gpu07 Arch=x86_64 State=IDLE ThreadsPerCore=1\n";
  }
  // gdrcheck stand-in that runs the real binary on a root.
  std::string gdrcheck_for(const std::vector<std::string>& variants) {
    std::string root = testing::node_root("dgx-h100", variants);
    return write_script(
        dir_, "gdrcheck-" + std::to_string(++n_),
        "[ \"$1\" = node ] && shift\nexec '" + std::string(GDRCHECK_BINARY) + "' node --root '" + root + "' \"$@\"\n");
  }
  ProcessResult wrapper(const std::string& gdrcheck, const std::string& node) {
    std::vector<std::pair<std::string, std::string>> env = {{"GDRCHECK", gdrcheck}, {"SCONTROL", scontrol_}};
    std::vector<std::string> unset;
    if (node.empty()) {
      unset.push_back("SLURMD_NODENAME");
    } else {
      env.push_back({"SLURMD_NODENAME", node});
    }
    return run_with_env({kTools + "health/gdrcheck-slurm-health"}, env, unset);
  }
  std::string calls() const { return slurp(calls_); }

  std::string dir_, calls_, state_, scontrol_;
  int n_ = 0;
};

TEST_F(SlurmHealthWrapper, CriticalDrainsTheNodeSlurmdNamesWithAStableReason) {
  ProcessResult r = wrapper(gdrcheck_for({"peermem-missing"}), "gpu07");
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(calls(), "update NodeName=gpu07 State=DRAIN Reason=gdrcheck: nccl,peermem CRITICAL\n");
}

TEST_F(SlurmHealthWrapper, HealthyNodeIsLeftAlone) {
  ProcessResult r = wrapper(gdrcheck_for({}), "gpu07");
  EXPECT_TRUE(r.succeeded()) << r.describe();
  // Only the question whether gdrcheck drained it: not drained, so no resume.
  EXPECT_EQ(calls(), "show node -o gpu07\n");
}

TEST_F(SlurmHealthWrapper, PassingNodeDrainedByGdrcheckIsResumed) {
  std::ofstream(state_) << "NodeName=gpu07 Arch=x86_64 State=IDLE+DRAIN Reason=gdrcheck: peermem CRITICAL "
                           "[root@2026-12-03T17:00:00]\n";
  ProcessResult r = wrapper(gdrcheck_for({}), "gpu07");
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(calls(), "show node -o gpu07\nupdate NodeName=gpu07 State=RESUME\n");
}

TEST_F(SlurmHealthWrapper, NodeDrainedForAnotherReasonStaysDrained) {
  std::ofstream(state_) << "NodeName=gpu07 State=IDLE+DRAIN Reason=bad DIMM, ticket 4711 [admin@2026-12-01]\n";
  ProcessResult r = wrapper(gdrcheck_for({}), "gpu07");
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(calls(), "show node -o gpu07\n");
}

TEST_F(SlurmHealthWrapper, WarningUnknownAndErrorsNeverDrain) {
  for (const char* body : {"exit 1\n", "exit 3\n", "exit 64\n", "kill -SEGV $$\n"}) {
    std::string gdrcheck = write_script(dir_, "gdrcheck-stub", body);
    ProcessResult r = wrapper(gdrcheck, "gpu07");
    EXPECT_TRUE(r.succeeded()) << body << r.describe();
    EXPECT_EQ(calls().find("DRAIN"), std::string::npos) << body << calls();
    EXPECT_NE(r.err.find("not drained"), std::string::npos) << body << r.err;
  }
}

TEST_F(SlurmHealthWrapper, WithoutSlurmdsNodeNameNothingIsGuessed) {
  ProcessResult r = wrapper(gdrcheck_for({"peermem-missing"}), "");
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(calls(), "");
  EXPECT_NE(r.err.find("SLURMD_NODENAME not set"), std::string::npos) << r.err;
}

TEST_F(SlurmHealthWrapper, ANodeNameThatIsNotPlainIsRefused) {
  for (const char* name : {"gpu[01-64]", "ALL,gpu1", "-h", "a b"}) {
    ProcessResult r = wrapper(gdrcheck_for({"peermem-missing"}), name);
    EXPECT_TRUE(r.succeeded()) << r.describe();
    EXPECT_EQ(calls(), "") << name;
    EXPECT_NE(r.err.find("not a plain node name"), std::string::npos) << r.err;
  }
}

// --- NHC ------------------------------------------------------------------------

// Sources the check as NHC does and calls it with NHC's helpers defined the
// way its checks use them: die RC MSG records a failure, log and dbg print.
ProcessResult nhc(const std::vector<std::string>& args, const std::string& timeout = "60") {
  std::string harness = "TIMEOUT=" + timeout +
                        "\n"
                        "DIED=''\n"
                        "die() { DIED=\"$1 $2\"; return \"$1\"; }\n"
                        "log() { echo \"log: $*\"; }\n"
                        "dbg() { echo \"dbg: $*\"; }\n"
                        ". '" +
                        kTools +
                        "health/gdrcheck.nhc'\n"
                        "check_gdrcheck \"$@\"; rc=$?\n"
                        "echo \"rc=$rc\"\n"
                        "[ -n \"$DIED\" ] && echo \"died: $DIED\"\n"
                        "exit 0\n";
  std::vector<std::string> argv = {"bash", "-c", harness, "nhc"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_with_env(argv, {});
}

TEST(NhcCheck, HealthyNodePasses) {
  ProcessResult r = nhc({"-p", GDRCHECK_BINARY, "-a", "--root " + testing::node_root("dgx-h100")});
  EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("died:"), std::string::npos) << r.out;
}

TEST(NhcCheck, CriticalNodeFailsWithTheChecksNamed) {
  ProcessResult r = nhc({"-p", GDRCHECK_BINARY, "-a", "--root " + testing::node_root("dgx-h100", {"peermem-missing"})});
  EXPECT_NE(r.out.find("rc=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("died: 1 check_gdrcheck:  gdrcheck: nccl,peermem CRITICAL"), std::string::npos) << r.out;
}

TEST(NhcCheck, WarningAndUnknownFailOnlyWhenAsked) {
  std::string dir = testing::scratch_dir();
  std::string warn = write_script(dir, "warn", "echo 'WARNING: n1: 8 GPUs'; exit 1\n");
  std::string unknown = write_script(dir, "unknown", "echo 'UNKNOWN: n1: could not read'; exit 3\n");
  EXPECT_NE(nhc({"-p", warn}).out.find("rc=0"), std::string::npos);
  EXPECT_NE(nhc({"-p", unknown}).out.find("rc=0"), std::string::npos);
  ProcessResult w = nhc({"-W", "-p", warn});
  EXPECT_NE(w.out.find("died: 1 check_gdrcheck:  WARNING: n1: 8 GPUs"), std::string::npos) << w.out;
  ProcessResult u = nhc({"-U", "-p", unknown});
  EXPECT_NE(u.out.find("died: 1 check_gdrcheck:  UNKNOWN: n1"), std::string::npos) << u.out;
}

TEST(NhcCheck, AMissingOrHangingGdrcheckDoesNotFailTheNode) {
  ProcessResult missing = nhc({"-p", "/nonexistent/gdrcheck"});
  EXPECT_NE(missing.out.find("rc=0"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("not found"), std::string::npos) << missing.out;
  std::string dir = testing::scratch_dir();
  ProcessResult hang = nhc({"-t", "1", "-p", write_script(dir, "hang", "exec sleep 30\n")});
  EXPECT_NE(hang.out.find("rc=0"), std::string::npos) << hang.out;
  EXPECT_NE(hang.out.find("did not finish within 1s"), std::string::npos) << hang.out;
}

TEST(NhcCheck, ATimeoutBeyondNhcsOwnIsAConfigurationError) {
  ProcessResult r = nhc({"-t", "100", "-p", GDRCHECK_BINARY}, "60");
  EXPECT_NE(r.out.find("rc=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exceeds NHC timeout 60"), std::string::npos) << r.out;
}

// --- Kubernetes -----------------------------------------------------------------

// The manifest as JSON documents (python3-yaml, a real YAML parser).
std::vector<nlohmann::json> daemonset_documents() {
  ProcessResult r = run_with_env({"python3", "-c",
                                  "import json, sys, yaml\n"
                                  "print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))\n",
                                  kTools + "kubernetes/gdrcheck-daemonset.yaml"},
                                 {});
  EXPECT_TRUE(r.succeeded()) << r.describe() << r.err;
  nlohmann::json docs = nlohmann::json::parse(r.out, nullptr, false);
  if (!docs.is_array()) return {};
  return docs.get<std::vector<nlohmann::json>>();
}

TEST(KubernetesDaemonSet, ReadsTheHostReadOnlyWithOnlyTheCapabilityAcsNeeds) {
  std::vector<nlohmann::json> docs = daemonset_documents();
  ASSERT_EQ(docs.size(), 3u);
  const nlohmann::json& ds = docs[2];
  ASSERT_EQ(ds.at("kind"), "DaemonSet");
  const nlohmann::json& pod = ds.at("spec").at("template").at("spec");
  EXPECT_EQ(pod.at("hostPID"), false);
  EXPECT_EQ(pod.at("hostNetwork"), false);
  ASSERT_EQ(pod.at("containers").size(), 1u);
  const nlohmann::json& c = pod.at("containers")[0];
  const nlohmann::json& sc = c.at("securityContext");
  EXPECT_EQ(sc.at("privileged"), false);
  EXPECT_EQ(sc.at("allowPrivilegeEscalation"), false);
  EXPECT_EQ(sc.at("capabilities").at("drop"), nlohmann::json::array({"ALL"}));
  EXPECT_EQ(sc.at("capabilities").at("add"), nlohmann::json::array({"SYS_ADMIN"}));
  // The host's / is mounted read-only where the loop points --root.
  std::string host_root_volume;
  for (const auto& v : pod.at("volumes"))
    if (v.contains("hostPath") && v.at("hostPath").at("path") == "/") host_root_volume = v.at("name");
  ASSERT_FALSE(host_root_volume.empty());
  bool mounted_read_only = false;
  for (const auto& m : c.at("volumeMounts"))
    if (m.at("name") == host_root_volume)
      mounted_read_only = m.at("mountPath") == "/host" && m.value("readOnly", false);
  EXPECT_TRUE(mounted_read_only);
  bool host_root_env = false;
  for (const auto& e : c.at("env")) host_root_env |= e.at("name") == "HOST_ROOT" && e.at("value") == "/host";
  EXPECT_TRUE(host_root_env);
  EXPECT_EQ(pod.at("nodeSelector").at("nvidia.com/gpu.present"), "true");
}

TEST(KubernetesDaemonSet, TheConfigMapCarriesTheTestedScript) {
  std::vector<nlohmann::json> docs = daemonset_documents();
  ASSERT_EQ(docs.size(), 3u);
  ASSERT_EQ(docs[1].at("kind"), "ConfigMap");
  EXPECT_EQ(docs[1].at("data").at("gdrcheck-node-labels.sh").get<std::string>(),
            slurp(kTools + "kubernetes/gdrcheck-node-labels.sh"));
}

// The pod's loop, once, against built roots: labels and the report.
TEST(KubernetesDaemonSet, LabelsSayWhetherTheNodeIsGdrReady) {
  struct Case {
    std::vector<std::string> variants;
    const char* labels;
    int exit_code;
  };
  for (const Case& c : {Case{{}, "gdrcheck.io/status=ok\ngdrcheck.io/gdr-ready=true\n", 0},
                        Case{{"peermem-missing"}, "gdrcheck.io/status=critical\ngdrcheck.io/gdr-ready=false\n", 2}}) {
    std::string dir = testing::scratch_dir();
    ProcessResult r = run_with_env({"sh", kTools + "kubernetes/gdrcheck-node-labels.sh"},
                                   {{"ONCE", "1"},
                                    {"GDRCHECK", GDRCHECK_BINARY},
                                    {"HOST_ROOT", testing::node_root("dgx-h100", c.variants)},
                                    {"FEATURES_DIR", dir + "/features.d"},
                                    {"REPORT_DIR", dir + "/reports"}});
    EXPECT_EQ(r.exit_code, c.exit_code) << r.describe() << r.err;
    EXPECT_EQ(slurp(dir + "/features.d/gdrcheck"), c.labels);
    nlohmann::json report = nlohmann::json::parse(slurp(dir + "/reports/node.json"), nullptr, false);
    EXPECT_EQ(report.value("schema", ""), "gdrcheck.node/1");
  }
}

TEST(KubernetesDaemonSet, ARunWithoutAReportNeverLeavesAReadyLabel) {
  std::string dir = testing::scratch_dir();
  std::string features = dir + "/features.d";
  ::mkdir(features.c_str(), 0755);
  std::ofstream(features + "/gdrcheck") << "gdrcheck.io/status=ok\ngdrcheck.io/gdr-ready=true\n";
  ProcessResult r = run_with_env({"sh", kTools + "kubernetes/gdrcheck-node-labels.sh"},
                                 {{"ONCE", "1"},
                                  {"GDRCHECK", write_script(dir, "crashes", "kill -SEGV $$\n")},
                                  {"FEATURES_DIR", features},
                                  {"REPORT_DIR", dir + "/reports"}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(slurp(features + "/gdrcheck"), "gdrcheck.io/status=unknown\ngdrcheck.io/gdr-ready=false\n");
}

// --- The scripts themselves ----------------------------------------------------

TEST(ShippedScripts, PassShellcheck) {
  ProcessSpec probe = ProcessSpec::command({"shellcheck", "--version"});
  if (!run_process(probe).succeeded()) GTEST_SKIP() << "shellcheck not installed (scripts/bootstrap installs it)";
  for (const auto& [shell, script] :
       std::vector<std::pair<std::string, std::string>>{{"sh", "health/gdrcheck-slurm-health"},
                                                        {"bash", "health/gdrcheck.nhc"},
                                                        {"sh", "kubernetes/gdrcheck-node-labels.sh"}}) {
    ProcessResult r = run_with_env({"shellcheck", "-s", shell, kTools + script}, {});
    EXPECT_TRUE(r.succeeded()) << script << ":\n" << r.out;
  }
}

}  // namespace
}  // namespace gdrcheck

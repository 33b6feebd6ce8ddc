// `gdrcheck node` and plain `gdrcheck` end to end: exit codes, JSON schema,
// --quiet, --env, manifests, and clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nccl/nccl_version.h"
#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_root;
using testing::run_gdrcheck;

TEST(NodeCli, HealthyRootExitsZeroWithJsonSchema) {
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "gdrcheck.node/1");
  EXPECT_EQ(j["status"], "OK");
  EXPECT_EQ(j["host"], "dgx-h100-01");
  ASSERT_EQ(j["pairs"].size(), 8u);
  EXPECT_EQ(j["pairs"][0]["gpu"], "GPU0");
  EXPECT_EQ(j["pairs"][0]["nic_name"], "mlx5_0");
  EXPECT_EQ(j["pairs"][0]["gdr_send"], "yes");
  EXPECT_EQ(j["pairs"][0]["nccl_path"], "PIX");
  EXPECT_EQ(j["nics"][0]["ports"][0]["rate_gbps"], 400);
  EXPECT_EQ(j["nics"][0]["ports"][0]["state"], "ACTIVE");
  for (const auto& f : j["findings"]) {
    EXPECT_TRUE(f.contains("check") && f.contains("subject") && f.contains("evidence"));
    if (f["status"] != "OK") {
      EXPECT_FALSE(f["fix"].is_null());
    }
  }
}

TEST(NodeCli, JsonCarriesTheFactsClustersCompare) {
  json j = json::parse(run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json"}).out);
  EXPECT_EQ(j["driver"]["version"], "550.90.07");
  EXPECT_EQ(j["driver"]["kernel_module"], "open");
  EXPECT_EQ(j["peer_memory"]["flavor"], "nvidia_peermem");
  EXPECT_EQ(j["iommu"]["group_types"], json::array({"identity"}));
  EXPECT_TRUE(j["nccl_settings"].is_object() && j["nccl_settings"].empty());
  EXPECT_EQ(j["inventory"]["gpus"]["count"], 8);
  EXPECT_EQ(j["inventory"]["driver"], "550.90.07");
  EXPECT_FALSE(j["inventory"].contains("schema"));
  json bad = json::parse(
      run_gdrcheck({"node", "--root", node_root("dgx-h100", {"peermem-missing", "stray-nccl-conf"}), "--json"}).out);
  EXPECT_EQ(bad["peer_memory"]["flavor"], "none");
  EXPECT_EQ(bad["driver"]["kernel_module"], "proprietary");
  EXPECT_EQ(bad["nccl_settings"]["NCCL_IB_HCA"]["value"], "mlx5_1");
  EXPECT_EQ(bad["nccl_settings"]["NCCL_IB_HCA"]["origin"].get<std::string>().rfind("/etc/nccl.conf:", 0), 0u);
  json unregistered =
      json::parse(run_gdrcheck({"node", "--root", node_root("dgx-h100", {"peermem-unregistered"}), "--json"}).out);
  EXPECT_EQ(unregistered["peer_memory"]["flavor"], "nvidia_peermem (no memory_peers entry)");
  EXPECT_TRUE(unregistered["peer_memory"]["memory_peers"].is_null());
}

TEST(NodeCli, ExitCodeIsTheWorstStatus) {
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100", {"acs-redirect"})}).exit_code, 2);
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100", {"nic-slow"})}).exit_code, 1);
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100", {"rootless"})}).exit_code, 3);
}

TEST(NodeCli, QuietPrintsOnlyWhatIsNotOk) {
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100", {"gpu-x8"}), "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("[link]"), std::string::npos);
  EXPECT_EQ(r.out.find("[gpu]"), std::string::npos);
  EXPECT_EQ(r.out.find("OK   "), std::string::npos);
  EXPECT_NE(r.out.find("CRITICAL: dgx-h100-01: 8 GPUs, 7 GPUDirect-ready, 1 not"), std::string::npos) << r.out;
}

TEST(NodeCli, EnvSettingChangesThePrediction) {
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json", "--env", "NCCL_NET_GDR_LEVEL=LOC"});
  EXPECT_EQ(r.exit_code, 2);
  json j = json::parse(r.out);
  EXPECT_EQ(j["pairs"][0]["gdr_recv"], "no");
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--env", "NOEQUALS"}).exit_code, 64);
}

TEST(NodeCli, OlderNcclVersion) {
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json", "--nccl-version", "2.18.6"});
  EXPECT_EQ(json::parse(r.out)["nccl_version"], "2.18.6");
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--nccl-version", "banana"}).exit_code, 64);
}

// gdrcheck follows NCCL 2.4 to its newest known release: older ones are
// refused; newer ones are predicted with the newest rules, and said so.
TEST(NodeCli, ReleasesWithoutRulesAreRefusedOrNamedAsApproximated) {
  auto old = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--nccl-version", "1.3.4"});
  EXPECT_EQ(old.exit_code, 64);
  EXPECT_NE(old.err.find("NCCL 1.3.4 is older than the rules this build has"), std::string::npos) << old.err;
  auto newer = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json", "--nccl-version", "2.31.2"});
  json j = json::parse(newer.out);
  EXPECT_EQ(j["nccl"]["version"], "2.31.2");
  EXPECT_EQ(j["nccl"]["rules"], NcclVersion::newest().str());
  EXPECT_EQ(j["nccl"]["approximated"], true);
}

// A byte that is not UTF-8 in a recorded file (here the host name) is
// written as U+FFFD: the JSON library must never abort `node --json`.
TEST(NodeCli, BytesThatAreNotUtf8NeverAbortTheJson) {
  std::string root = testing::fresh_node_root("dgx-h100");
  std::ofstream(root + "/proc/sys/kernel/hostname") << "gpu\xff\xfe"
                                                       "01\n";
  auto r = run_gdrcheck({"node", "--root", root, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["host"],
            "gpu\xef\xbf\xbd\xef\xbf\xbd"
            "01");
}

TEST(NodeCli, InstalledNcclIsFoundAndNamed) {
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100", {"nccl-2.18"}), "--json"});
  json j = json::parse(r.out);
  EXPECT_EQ(j["nccl_version"], "2.18.6");
  EXPECT_NE(j["nccl"]["origin"].get<std::string>().find("libnccl.so.2.18.6"), std::string::npos);
  EXPECT_EQ(j["pairs"][0]["nccl"]["version"], "2.18.6");
  auto text = run_gdrcheck({"node", "--root", node_root("dgx-h100", {"nccl-2.18"})});
  EXPECT_NE(text.out.find("NCCL 2.18.6 (library /usr/lib/x86_64-linux-gnu/libnccl.so.2.18.6)"), std::string::npos)
      << text.out.substr(0, 300);
}

TEST(NodeCli, ManifestRoundTripAndNoOverwrite) {
  std::string dir = testing::scratch_dir();
  std::string m = dir + "/manifest.json";
  auto w = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--quiet", "--write-manifest", m});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--manifest", m}).exit_code, 0);
  auto slow = run_gdrcheck({"node", "--root", node_root("dgx-h100", {"nic-slow"}), "--manifest", m, "--quiet"});
  EXPECT_EQ(slow.exit_code, 2);
  EXPECT_NE(slow.out.find("[manifest]"), std::string::npos);
  // An existing file is never replaced.
  auto again = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--write-manifest", m});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find(m + ": already exists; not overwritten"), std::string::npos) << again.err;
}

TEST(NodeCli, BadManifestNamesTheFile) {
  std::string m = testing::scratch_dir() + "/bad.json";
  std::ofstream(m) << "{\"schema\": ";
  auto r = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--manifest", m});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(m + ": not valid JSON"), std::string::npos) << r.err;
  auto missing = run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--manifest", "/nonexistent.json"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("/nonexistent.json: not found"), std::string::npos) << missing.err;
}

TEST(NodeCli, MissingRootIsUnknown) {
  auto r = run_gdrcheck({"node", "--root", "/nonexistent-root"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("/nonexistent-root: no such directory"), std::string::npos);
}

// Plain `gdrcheck` on this machine: the test machines have no NVIDIA GPU.
// The exit code is this machine's (UNKNOWN), never the example's OK; the
// example is shown only on a terminal, and the tests' stdout is a pipe.
TEST(DefaultCli, NoGpuIsUnknownAndNeverTheExample) {
  if (::access("/proc/driver/nvidia", F_OK) == 0 || ::access("/sys/module/nvidia", F_OK) == 0)
    GTEST_SKIP() << "this machine has the NVIDIA driver";
  auto r = run_gdrcheck({});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("no NVIDIA GPU found (none under /sys/bus/pci/devices)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gdrcheck demo"), std::string::npos);
  EXPECT_EQ(r.out.find("dgx-h100-01"), std::string::npos) << r.out;
}

TEST(DemoCli, ShowsTheLabelledExampleAndSucceeds) {
  auto r = run_gdrcheck({"demo"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("EXAMPLE, not this machine"), std::string::npos);
  EXPECT_NE(r.out.find("gdrcheck node: dgx-h100-01"), std::string::npos);
  EXPECT_NE(r.out.find("GPU7  mlx5_11"), std::string::npos) << r.out;
  EXPECT_EQ(run_gdrcheck({"demo", "--bogus"}).exit_code, 64);
}

// The driver loaded and no GPU on the bus: GPUs that fell off it (Xid 79).
TEST(NodeCli, GpusFallenOffTheBusExitCritical) {
  std::string root = testing::fresh_node_root("dgx-h100");
  for (const auto& e : std::filesystem::directory_iterator(root + "/sys/bus/pci/devices")) {
    std::ifstream vendor(e.path() / "vendor"), cls(e.path() / "class");
    std::string v, c;
    vendor >> v;
    cls >> c;
    if (v != "0x10de" || c.rfind("0x03", 0) != 0) continue;
    std::filesystem::remove_all(std::filesystem::canonical(e.path()));
    std::filesystem::remove(e.path());
  }
  auto r = run_gdrcheck({"node", "--root", root, "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  json j = json::parse(r.out);
  bool said = false;
  for (const auto& f : j["findings"])
    said |= f["check"] == "gpu" && f["status"] == "CRITICAL" &&
            f["summary"].get<std::string>().find("fell off the bus") != std::string::npos;
  EXPECT_TRUE(said) << r.out;
}

TEST(NodeCli, JsonSaysWhenByWhatAndByWhichRules) {
  json j = json::parse(run_gdrcheck({"node", "--root", node_root("dgx-h100"), "--json"}).out);
  std::string when = j["generated_at"];
  EXPECT_EQ(when.size(), 20u);
  EXPECT_EQ(when.back(), 'Z');
  EXPECT_EQ(when[10], 'T');
  EXPECT_EQ(j["gdrcheck_version"], "0.1.0");
  EXPECT_EQ(j["rules"], j["nccl"]["rules"]);
  EXPECT_EQ(j["host"], "dgx-h100-01");
}

// Releases gdrcheck cannot predict for are usage errors naming the range it
// knows; a newer 2.x is followed with the newest rules (nccl-model.md).
TEST(NodeCli, NcclVersionOutsideTheKnownRange) {
  std::string root = node_root("dgx-h100");
  std::string range = "(2.4.0 - " + NcclVersion::newest().str() + ")";
  for (const char* v : {"3.0.1", "2.3.9", "1.2", "abc", "2.210.5"}) {
    auto r = run_gdrcheck({"node", "--root", root, "--nccl-version", v});
    EXPECT_EQ(r.exit_code, 64) << v << r.err;
    EXPECT_NE(r.err.find("--nccl-version"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << v;
  }
  EXPECT_NE(run_gdrcheck({"node", "--root", root, "--nccl-version", "3.0.1"})
                .err.find("is newer than the rules this build has " + range),
            std::string::npos);
  EXPECT_NE(run_gdrcheck({"node", "--root", root, "--nccl-version", "2.3.9"})
                .err.find("is older than the rules this build has " + range),
            std::string::npos);
  EXPECT_NE(run_gdrcheck({"node", "--root", root, "--nccl-version", "2.99.1", "--json"}).exit_code, 64);
}

TEST(NodeCli, ConflictingOptionsAreUsageErrors) {
  std::string root = node_root("dgx-h100");
  EXPECT_EQ(run_gdrcheck({"node", "--root", root, "-q", "-v"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"node", "--root", root, "--json", "--quiet"}).exit_code, 64);
  std::string m = testing::scratch_dir() + "/m.json";
  auto same = run_gdrcheck({"node", "--root", root, "--manifest", m, "--write-manifest", m});
  EXPECT_EQ(same.exit_code, 64) << same.err;
  auto dir = run_gdrcheck({"node", "--root", root, "--write-manifest", testing::scratch_dir()});
  EXPECT_EQ(dir.exit_code, 3);
  EXPECT_NE(dir.err.find(": is a directory"), std::string::npos) << dir.err;
  EXPECT_TRUE(dir.out.empty());  // refused before the check ran
}

// A folder of captures, or a path inside one: the message says which
// --root was meant.
TEST(NodeCli, RootWithoutSysSuggestsTheCapture) {
  std::string captures = testing::scratch_dir();
  std::filesystem::create_directories(captures + "/node17/sys/bus");
  auto outer = run_gdrcheck({"node", "--root", captures});
  EXPECT_EQ(outer.exit_code, 3);
  EXPECT_NE(outer.err.find(captures + ": has no sys/ directory"), std::string::npos) << outer.err;
  EXPECT_NE(outer.err.find("did you mean --root " + captures + "/node17?"), std::string::npos) << outer.err;
  auto inner = run_gdrcheck({"node", "--root", captures + "/node17/sys/bus"});
  EXPECT_NE(inner.err.find("inside the recorded root " + captures + "/node17"), std::string::npos) << inner.err;
  std::filesystem::create_directories(captures + "/node18/sys");
  auto two = run_gdrcheck({"topo", "--root", captures});
  EXPECT_EQ(two.exit_code, 3);
  EXPECT_EQ(two.err.find("did you mean"), std::string::npos) << two.err;  // two captures: the user chooses
}

}  // namespace
}  // namespace gdrcheck

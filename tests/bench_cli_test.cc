// `gdrcheck bench` end to end: the real binary starts stand-in engines
// (tests/standins) that replay real recorded outputs, hang, crash, print
// garbage or fail — through the process runner, locally and through a real
// `mpirun` when Open MPI is installed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "host/process.h"
#include "netns_hosts.h"
#include "recorded_fixtures.h"
#include "slurm_cluster.h"
#include "test_files.h"

namespace gdrcheck {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;
using testing::slurp;

std::string standins() {
  return std::string(GDRCHECK_TEST_DATA) + "/../standins";
}

struct BenchRun {
  ProcessResult process;
  std::string record;  // what the stand-ins recorded
  nlohmann::json json;
  std::string dir;
};

// Runs `gdrcheck bench ARGS --json --output-dir DIR` with the stand-ins
// first in PATH (only in the child's environment).
BenchRun bench(std::vector<std::string> args, const Env& env) {
  BenchRun r;
  r.dir = testing::scratch_dir();
  std::string record = r.dir + "/record.txt";
  ProcessSpec spec = ProcessSpec::command({GDRCHECK_BINARY, "bench"});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.argv.insert(spec.argv.end(), {"--json", "--output-dir", r.dir});
  spec.env_set = {{"PATH", standins() + ":" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin")},
                  {"STANDIN_DATA", GDRCHECK_TEST_DATA},
                  {"STANDIN_RECORD", record}};
  spec.env_set.insert(spec.env_set.end(), env.begin(), env.end());
  spec.env_unset = {"SLURM_JOB_ID", "NCCL_ALGO", "NCCL_DEBUG_FILE", "NCCL_NET_GDR_LEVEL"};
  spec.timeout = std::chrono::seconds(120);
  r.process = run_process(spec);
  r.record = slurp(record);
  r.json = nlohmann::json::parse(r.process.out, nullptr, false);
  return r;
}

const Env kReplayGdr = {
    {"STANDIN_REPLAY", "nccl-logs/nccl-tests-224-gdrdma-shared.log:nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"},
    {"STANDIN_REPLAY_GDR_OFF",
     "nccl-logs/nccl-1412-ib-no-gdr-init-complete.log:nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"}};

const nlohmann::json* json_finding(const nlohmann::json& j, const std::string& check) {
  for (const auto& f : j["findings"])
    if (f["check"] == check) return &f;
  return nullptr;
}

TEST(BenchCli, LocalRunReplaysAndProvesGdrdma) {
  BenchRun r = bench({"nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "1"}, kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  EXPECT_EQ(r.json["schema"], "gdrcheck.bench/1");
  EXPECT_EQ(r.json["kind"], "nccl");
  const auto& run = r.json["runs"]["gdr_on"][0];
  EXPECT_TRUE(run["could_not_run"].is_null()) << run.dump();
  EXPECT_EQ(run["gdr"], "yes");
  // The raw output file holds exactly what the engine printed.
  std::string raw = run["raw_output"];
  EXPECT_EQ(raw.rfind(r.dir + "/gdrcheck-bench-", 0), 0u);
  EXPECT_EQ(slurp(raw), testing::read_test_data("nccl-logs/nccl-tests-224-gdrdma-shared.log") +
                            testing::read_test_data("nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"));
  EXPECT_EQ(run["large_message"]["busbw_gbytes"], 41.31);
  // The engine got the debug settings and the default sizes.
  EXPECT_NE(r.record.find("env NCCL_DEBUG=INFO"), std::string::npos) << r.record;
  EXPECT_NE(r.record.find("env NCCL_DEBUG_SUBSYS=INIT,NET"), std::string::npos);
  EXPECT_NE(r.record.find("-b 8 -e 8G -f 2 -g 1"), std::string::npos);
  ASSERT_NE(json_finding(r.json, "gdr"), nullptr);
  EXPECT_EQ((*json_finding(r.json, "gdr"))["status"], "OK");
  // One node: no network-bound expectation, so the bandwidth is UNKNOWN, never a pass.
  ASSERT_NE(json_finding(r.json, "bandwidth"), nullptr);
  EXPECT_FALSE(r.json["expectation"]["known"]);
  EXPECT_EQ((*json_finding(r.json, "bandwidth"))["status"], "UNKNOWN");
  EXPECT_EQ(r.json["status"], "UNKNOWN");
  EXPECT_EQ(r.process.exit_code, 3);
}

TEST(BenchCli, UserNcclSettingsKeptAndAbArmGetsLoc) {
  Env env = kReplayGdr;
  env.push_back({"NCCL_IB_HCA", "=mlx5_0"});
  BenchRun r = bench({"nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "1", "--ab"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  EXPECT_TRUE(r.json["ab"]);
  ASSERT_EQ(r.json["runs"]["gdr_off"].size(), 1u);
  EXPECT_EQ(r.json["runs"]["gdr_off"][0]["gdr_connections"], 0);
  EXPECT_EQ(std::count(r.record.begin(), r.record.end(), '\n') > 4, true);
  EXPECT_NE(r.record.find("env NCCL_NET_GDR_LEVEL=LOC"), std::string::npos);
  EXPECT_NE(r.record.find("env NCCL_IB_HCA==mlx5_0"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.json["gain"].get<double>(), 0);
  ASSERT_NE(json_finding(r.json, "ab"), nullptr);
  EXPECT_EQ((*json_finding(r.json, "ab"))["status"], "WARNING");
}

struct BadEngine {
  const char* mode;
  const char* reason;
};

class BenchCliCouldNotRun : public ::testing::TestWithParam<BadEngine> {};

TEST_P(BenchCliCouldNotRun, IsUnknownWithTheReason) {
  Env env = kReplayGdr;
  env.push_back({"STANDIN_MODE", GetParam().mode});
  // 5 s: the crashing stand-in must crash, not time out, on a loaded machine.
  BenchRun r = bench({"nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "1", "--timeout", "5"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_EQ(r.json["status"], "UNKNOWN");
  std::string why = r.json["runs"]["gdr_on"][0]["could_not_run"];
  EXPECT_NE(why.find(GetParam().reason), std::string::npos) << why;
  EXPECT_EQ(json_finding(r.json, "bandwidth"), nullptr);  // never a bandwidth failure
  ASSERT_NE(json_finding(r.json, "run"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Modes, BenchCliCouldNotRun,
                         ::testing::Values(BadEngine{"hang", "hung: timed out"}, BadEngine{"crash", "crashed"},
                                           BadEngine{"garbage", "no nccl-tests result table"},
                                           BadEngine{"fail", "failed: exit status 3"}));

TEST(BenchCli, MissingBinaryIsUnknown) {
  BenchRun r = bench({"nccl", "--launcher", "local", "--nccl-tests", "/nonexistent/nccl-tests"}, kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  EXPECT_EQ(r.process.exit_code, 3);
  std::string why = r.json["runs"]["gdr_on"][0]["could_not_run"];
  EXPECT_NE(why.find("all_reduce_perf not found"), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/nccl-tests/build/all_reduce_perf"), std::string::npos);
}

TEST(BenchCli, RepeatsGiveAMedian) {
  BenchRun r = bench({"nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "1", "--repeat", "3"}, kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  EXPECT_EQ(r.json["runs"]["gdr_on"].size(), 3u);
  EXPECT_EQ(r.json["busbw_gbytes"]["gdr_on"]["count"], 3);
  EXPECT_EQ(r.json["busbw_gbytes"]["gdr_on"]["median"], 41.31);
  std::set<std::string> files;
  for (const auto& run : r.json["runs"]["gdr_on"]) files.insert(run["raw_output"].get<std::string>());
  EXPECT_EQ(files.size(), 3u);  // never overwritten
}

TEST(BenchCli, UsageErrors) {
  EXPECT_EQ(bench({"nccl", "--launcher", "ssh"}, {}).process.exit_code, 64);
  EXPECT_EQ(bench({"nccl", "--launcher", "mpirun"}, {}).process.exit_code, 64);  // no hosts
  EXPECT_EQ(bench({"nccl", "--hosts", "gpu[02-01]"}, {}).process.exit_code, 64);
  EXPECT_EQ(bench({"nccl", "--nic-rate", "400"}, {}).process.exit_code, 64);  // no --nics
  BenchRun bad_file = bench({"nccl", "--bandwidth-file", "/nonexistent.json"}, {});
  EXPECT_EQ(bad_file.process.exit_code, 3);
  EXPECT_NE(bad_file.process.err.find("/nonexistent.json"), std::string::npos);
}

TEST(BenchCli, RealOpenMpiExportsTheVariables) {
  if (find_in_path("mpirun").empty()) GTEST_SKIP() << "Open MPI mpirun not installed";
  BenchRun r = bench({"nccl", "--launcher", "mpirun", "--hosts", "localhost", "--gpus-per-node", "2", "--launcher-arg",
                      "--oversubscribe", "--nic-rate", "400", "--nics", "1", "--timeout", "60"},
                     kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  const auto& run = r.json["runs"]["gdr_on"][0];
  EXPECT_TRUE(run["could_not_run"].is_null()) << run.dump(2) << slurp(run["raw_output"].get<std::string>());
  auto argv = run["argv"].get<std::vector<std::string>>();
  EXPECT_EQ(argv[0], "mpirun");
  // Both ranks were started and each saw the exported settings.
  std::size_t starts = 0, debug = 0;
  for (std::size_t p = 0; (p = r.record.find("argv ", p)) != std::string::npos; ++p) ++starts;
  for (std::size_t p = 0; (p = r.record.find("env NCCL_DEBUG=INFO", p)) != std::string::npos; ++p) ++debug;
  EXPECT_EQ(starts, 2u) << r.record;
  EXPECT_EQ(debug, 2u) << r.record;
  EXPECT_EQ(run["gdr"], "yes");
}

// Through real srun: slurmctld and one slurmd per test host (network
// namespaces), one task per node; the two-node run gets NCCL_ALGO=RING.
TEST(BenchCli, RealSrunStartsOneRankPerNodeWithTheSettings) {
  std::string why = testing::netns_unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
  testing::NetnsHosts hosts(2);
  testing::SlurmCluster slurm(hosts);
  BenchRun r = bench({"nccl", "--launcher", "srun", "--hosts", "gdrt[1-2]", "--gpus-per-node", "1", "--nic-rate", "400",
                      "--nics", "1", "--timeout", "90"},
                     kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  const auto& run = r.json["runs"]["gdr_on"][0];
  EXPECT_TRUE(run["could_not_run"].is_null()) << run.dump(2);
  auto argv = run["argv"].get<std::vector<std::string>>();
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv[0], "srun");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--nodelist=gdrt1,gdrt2"), argv.end()) << run["argv"].dump();
  std::size_t starts = 0, ring = 0;
  for (std::size_t p = 0; (p = r.record.find("argv ", p)) != std::string::npos; ++p) ++starts;
  for (std::size_t p = 0; (p = r.record.find("env NCCL_ALGO=RING", p)) != std::string::npos; ++p) ++ring;
  EXPECT_EQ(starts, 2u) << r.record;
  EXPECT_EQ(ring, 2u) << r.record;
  // Rank 0's output came back through srun unchanged and proves GDRDMA.
  EXPECT_EQ(slurp(run["raw_output"].get<std::string>()),
            testing::read_test_data("nccl-logs/nccl-tests-224-gdrdma-shared.log") +
                testing::read_test_data("nccl-tests/nccl-tests-232-tree-all-reduce-cut.txt"));
  EXPECT_EQ(run["gdr"], "yes");
}

TEST(BenchCli, RdmaPairsFromTheNodeAndTheirFigures) {
  Env env = {{"STANDIN_PERFTEST_TEXT", "perftest/perftest-273-post-list-gbits.txt"},
             {"STANDIN_PERFTEST_SERVER", "perftest/perftest-241-use-cuda-a30-server-cut.txt"}};
  BenchRun r = bench({"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--timeout", "20"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  EXPECT_EQ(r.json["kind"], "rdma");
  ASSERT_FALSE(r.json["pairs"].empty()) << r.json.dump(2);
  const auto& pair = r.json["pairs"][0];
  auto client = pair["gpu_memory"]["client_argv"].get<std::vector<std::string>>();
  std::string joined;
  for (const auto& a : client) joined += a + " ";
  EXPECT_NE(joined.find("--use_cuda_bus_id=" + pair["gpu_bus_id"].get<std::string>()), std::string::npos) << joined;
  EXPECT_NE(joined.find("--report_gbits"), std::string::npos);
  EXPECT_NE(joined.find("--out_json_file="), std::string::npos);
  EXPECT_EQ(client.back(), "localhost");
  EXPECT_EQ(pair["gpu_memory"]["gbits"][0], 0.48);
  // 0.48 Gb/s is far below any port rate: the pair is named and not OK.
  const nlohmann::json* f = json_finding(r.json, "rdma");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["subject"].get<std::string>().find(pair["nic"].get<std::string>()), std::string::npos);
  EXPECT_NE(r.json["status"], "OK");
}

// Two nodes through real srun: the server runs on the other node (started
// by its slurmd), the client here connects to it by name.
TEST(BenchCli, RdmaBetweenTwoNodesThroughRealSrun) {
  std::string why = testing::netns_unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << "no test hosts: " << why;
  testing::NetnsHosts hosts(2);
  testing::SlurmCluster slurm(hosts);
  Env env = {{"STANDIN_PERFTEST_TEXT", "perftest/perftest-273-post-list-gbits.txt"},
             {"STANDIN_PERFTEST_SERVER", "perftest/perftest-241-use-cuda-a30-server-cut.txt"}};
  BenchRun r = bench({"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--launcher", "srun", "--hosts",
                      "gdrt2", "--timeout", "60"},
                     env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  ASSERT_FALSE(r.json["pairs"].empty()) << r.json.dump(2);
  const auto& gpu = r.json["pairs"][0]["gpu_memory"];
  auto server = gpu["server_argv"].get<std::vector<std::string>>();
  ASSERT_FALSE(server.empty());
  EXPECT_EQ(server[0], "srun");
  EXPECT_NE(std::find(server.begin(), server.end(), "--nodelist=gdrt2"), server.end()) << gpu["server_argv"].dump();
  EXPECT_EQ(gpu["client_argv"].back(), "gdrt2");
  EXPECT_NE(r.record.find("[on gdrt2]"), std::string::npos) << r.record;
  EXPECT_EQ(gpu["gbits"][0], 0.48) << gpu.dump(2);
}

TEST(BenchCli, RdmaJsonAboveLineRateIsUnknown) {
  Env env = {{"STANDIN_PERFTEST_TEXT", "perftest/perftest-241-use-cuda-a30-server-cut.txt"},
             {"STANDIN_PERFTEST_JSON", "perftest/perftest-json-rdma-write-mlx5_11.json"}};
  BenchRun r = bench({"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--timeout", "20"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  const auto& pair = r.json["pairs"][0];
  EXPECT_EQ(pair["gpu_memory"]["gbits"][0], 2229.27);
  EXPECT_TRUE(pair["gpu_memory"]["gpu_buffer_confirmed"]);
  EXPECT_EQ(pair["status"], "UNKNOWN");
}

TEST(BenchCli, RdmaWithoutDevicesCouldNotRun) {
  Env env = {{"STANDIN_MODE", "fail"}};
  BenchRun r = bench({"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--timeout", "20"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_EQ(r.json["status"], "UNKNOWN");
  std::string why = r.json["pairs"][0]["gpu_memory"]["could_not_run"];
  EXPECT_NE(why.find("exit status 1"), std::string::npos) << why;
}

// Every output of a run sits in a directory gdrcheck made for it (0700)
// inside --output-dir; perftest's JSON file was reserved there (0600)
// before perftest was started.
TEST(BenchCli, OutputsGoToAPrivateDirectory) {
  Env env = {{"STANDIN_PERFTEST_TEXT", "perftest/perftest-241-use-cuda-a30-server-cut.txt"},
             {"STANDIN_PERFTEST_JSON", "perftest/perftest-json-rdma-write-mlx5_11.json"}};
  BenchRun r = bench({"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--timeout", "20"}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.err;
  std::string raw = r.json["pairs"][0]["gpu_memory"]["raw_output"];
  std::filesystem::path dir = std::filesystem::path(raw).parent_path();
  EXPECT_EQ(dir.parent_path().string(), r.dir) << raw;
  struct stat st {};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  std::size_t json_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++json_files;
    ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600u) << e.path();
  }
  EXPECT_GT(json_files, 0u);
  EXPECT_EQ(r.json["pairs"][0]["gpu_memory"]["gbits"][0], 2229.27);
}

TEST(BenchCli, SharedOutputDirectoryIsRefused) {
  std::string shared = testing::scratch_dir() + "/shared";
  std::filesystem::create_directories(shared);
  ::chmod(shared.c_str(), 0777);  // anyone may rename entries: no sticky bit
  ProcessSpec spec = ProcessSpec::command({GDRCHECK_BINARY, "bench", "nccl", "--launcher", "local", "--nic-rate", "400",
                                           "--nics", "1", "--output-dir", shared});
  spec.env_set = {{"PATH", standins() + ":/usr/bin:/bin"}, {"STANDIN_DATA", GDRCHECK_TEST_DATA}};
  spec.timeout = std::chrono::seconds(60);
  ProcessResult p = run_process(spec);
  EXPECT_EQ(p.exit_code, 64) << p.err;
  EXPECT_NE(p.err.find(shared + ": directory is world-writable without the sticky bit"), std::string::npos) << p.err;
  EXPECT_TRUE(std::filesystem::is_empty(shared));
}

// A copy of a stand-in that another user could replace.
std::string untrusted_copy(const std::string& name, bool other_owner) {
  std::string dir = testing::scratch_dir() + "/build";
  std::filesystem::create_directories(dir);
  std::string copy = dir + "/" + name;
  std::filesystem::copy_file(standins() + "/" + name, copy);
  if (other_owner) {
    EXPECT_EQ(::chown(copy.c_str(), 65534, 65534), 0);
    ::chmod(copy.c_str(), 0755);
  } else {
    ::chmod(copy.c_str(), 0757);
  }
  return copy;
}

TEST(BenchCli, UntrustedNcclTestsBinaryIsNotRunAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "the refusal applies to root";
  std::string copy = untrusted_copy("all_reduce_perf", true);
  std::string dir = std::filesystem::path(copy).parent_path().string();
  BenchRun r =
      bench({"nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "1", "--nccl-tests", dir}, kReplayGdr);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  EXPECT_EQ(r.process.exit_code, 3);
  std::string why = r.json["runs"]["gdr_on"][0]["could_not_run"];
  EXPECT_NE(why.find(copy + ": owned by uid 65534"), std::string::npos) << why;
  EXPECT_NE(why.find("chown root / chmod go-w, or pass --nccl-tests DIR with a trusted build"), std::string::npos);
  EXPECT_EQ(r.record, "");  // it never ran
}

TEST(BenchCli, UntrustedPerftestIsNotRunAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "the refusal applies to root";
  std::string copy = untrusted_copy("ib_write_bw", false);
  Env env = {{"STANDIN_PERFTEST_TEXT", "perftest/perftest-273-post-list-gbits.txt"}};
  BenchRun r = bench(
      {"rdma", "--root", testing::node_root("pcie-server-nic-remote"), "--timeout", "20", "--perftest", copy}, env);
  ASSERT_FALSE(r.json.is_discarded()) << r.process.out << r.process.err;
  EXPECT_EQ(r.process.exit_code, 3);
  std::string why = r.json["pairs"][0]["gpu_memory"]["could_not_run"];
  EXPECT_NE(why.find(copy + ": world-writable"), std::string::npos) << why;
  EXPECT_NE(why.find("--perftest PATH"), std::string::npos) << why;
  EXPECT_EQ(r.record, "");
}

// Every numeric option has a range and every combination the help calls
// for is enforced, before anything runs: nothing is started and no output
// directory is made.
TEST(BenchCli, OutOfRangeAndConflictsStartNothing) {
  const std::vector<std::vector<std::string>> refused = {
      {"rdma", "--duration", "-5"},
      {"rdma", "--qps", "-3"},
      {"rdma", "--qps", "0"},
      {"rdma", "--size", "0"},
      {"rdma", "--pass-ratio", "-1"},
      {"rdma", "--pass-ratio", "0"},
      {"rdma", "--pass-ratio", "1.5"},
      {"rdma", "--nics", "0"},
      {"rdma", "--duration", "100", "--timeout", "50"},
      {"nccl", "--nics", "0", "--nic-rate", "400"},
      {"nccl", "--nics", "2"},
      {"nccl", "--nic-rate", "-400", "--nics", "2"},
      {"nccl", "--nodes", "0", "--hosts", "a,b"},
      {"nccl", "--gpus-per-node", "0"},
      {"nccl", "--link-layer", "eth", "--nic-rate", "400", "--nics", "1"},
      {"nccl", "--link-layer", "roce"},
      {"nccl", "--hosts", "a,b", "--hostfile", "/etc/hosts"},
      {"nccl", "--launcher", "local", "--hosts", "a,b"},
      {"nccl", "--launcher", "local", "--launcher-arg", "-x"},
      {"nccl", "--launcher", "srun", "--hostfile", "/etc/hosts"},
  };
  for (const auto& args : refused) {
    BenchRun r = bench(args, kReplayGdr);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.process.exit_code, 64) << line << r.process.err;
    EXPECT_TRUE(r.record.empty()) << line << "started: " << r.record;
    EXPECT_EQ(r.process.err.find("gdrcheck-bench-"), std::string::npos) << line;
  }
  BenchRun range = bench({"rdma", "--duration", "-5"}, {});
  EXPECT_NE(range.process.err.find("--duration"), std::string::npos);
  EXPECT_NE(range.process.err.find("1 to 3600"), std::string::npos) << range.process.err;
}

}  // namespace
}  // namespace gdrcheck

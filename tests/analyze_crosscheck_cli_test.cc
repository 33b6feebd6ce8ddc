// `gdrcheck analyze TOPOLOGY LOG` and `analyze --root ROOT LOG` end to end:
// the cross-check's lines, its JSON and its part in the exit code.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"
#include "run_binary.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

using testing::oci_h100_xml;
using testing::run_gdrcheck;

class AnalyzeCrosscheckCli : public ::testing::Test {
 protected:
  // One line per GPU: wide enough that the prose wrapping leaves them whole.
  void SetUp() override {
    ::setenv("COLUMNS", "1000", 1);
    dir_ = std::filesystem::temp_directory_path() / ("gdrcheck-xcheck-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("COLUMNS");
    std::filesystem::remove_all(dir_);
  }
  std::string log(const std::string& name, const std::string& bus, const std::string& via) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << "node1:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                        << "node1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0\n"
                        << "node1:100:100 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 "
                        << "busId " << bus << " commId 0x1 - Init START\n"
                        << "node1:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via " << via << "\n"
                        << "node1:100:200 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via " << via << "\n";
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(AnalyzeCrosscheckCli, OneLinePerGpuAndTheJsonArray) {
  std::string agree = log("agree.log", "f000", "NET/IB/0/GDRDMA");
  auto r = run_gdrcheck({"analyze", oci_h100_xml(), agree}, "");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Cross-check: " + oci_h100_xml()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("predicted mlx5_0 GDR yes/yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("log mlx5_0 GDR yes/yes (channel lines)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 cross-check"), std::string::npos) << r.out;

  auto j = run_gdrcheck({"analyze", "--json", oci_h100_xml(), agree}, "");
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["crosscheck"].size(), 1u);
  const auto& row = doc["crosscheck"][0];
  EXPECT_EQ(row["host"], "node1");
  EXPECT_EQ(row["gpu"], "GPU0");
  EXPECT_EQ(row["cuda_dev"], 0);
  EXPECT_EQ(row["predicted"]["nic"], "mlx5_0");
  EXPECT_EQ(row["observed"]["gdr_send"], "yes");
  EXPECT_EQ(row["agree"], "yes");
  EXPECT_EQ(doc["artifacts"][0]["kind"], "topology-xml");
}

TEST_F(AnalyzeCrosscheckCli, ADifferenceIsAWarningWithItsCause) {
  std::string no_gdr = log("no-gdr.log", "f000", "NET/IB/0");
  auto r = run_gdrcheck({"analyze", "--json", oci_h100_xml(), no_gdr}, "");
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["crosscheck"][0]["agree"], "no");
  EXPECT_NE(doc["crosscheck"][0]["cause"].get<std::string>().find("peer memory"), std::string::npos);
  // The log alone already proves GDR is off (CRITICAL); the difference adds its WARNING beneath.
  EXPECT_EQ(r.exit_code, 2) << r.err;
  auto only = run_gdrcheck({"analyze", oci_h100_xml(), no_gdr, "--env", "NCCL_NET_GDR_LEVEL=LOC"}, "");
  EXPECT_NE(only.out.find("NCCL_NET_GDR_LEVEL=LOC (--env)"), std::string::npos) << only.out;
  EXPECT_NE(only.out.find("agree"), std::string::npos) << only.out;
  EXPECT_EQ(run_gdrcheck({"analyze", oci_h100_xml(), no_gdr, "--nccl-version", "9.1"}, "").exit_code, 64);
}

// A recorded root as the topology: its own host facts, read from the root.
TEST_F(AnalyzeCrosscheckCli, RecordedRootAsTheTopology) {
  std::string root = testing::node_root("dgx-h100");
  Topology t = load_topology_root(root);
  const Endpoint* gpu0 = t.find("GPU0");
  ASSERT_TRUE(gpu0 && gpu0->address);
  char bus[16];
  std::snprintf(bus, sizeof bus, "%x%02x%x", gpu0->address->bus, gpu0->address->device, gpu0->address->function);
  std::string path = log("root.log", bus, "NET/IB/0/GDRDMA");
  auto r = run_gdrcheck({"analyze", "--json", "--root", root, path}, "");
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["crosscheck"].size(), 1u) << r.out;
  EXPECT_EQ(doc["crosscheck"][0]["gpu"], "GPU0");
  EXPECT_EQ(doc["crosscheck"][0]["topology"], root);
  EXPECT_EQ(doc["crosscheck"][0]["predicted_with"].get<std::string>().find("assumed"), std::string::npos);
  EXPECT_EQ(run_gdrcheck({"analyze", "--root", "/nonexistent-root", path}, "").exit_code, 3);
}

}  // namespace
}  // namespace gdrcheck

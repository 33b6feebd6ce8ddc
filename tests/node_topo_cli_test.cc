// `gdrcheck node --topo FILE [--assume ...] [--what-if ...]` end to end:
// the binary on real topology files (tests/data/recorded/README.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "run_binary.h"

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::oci_h100_xml;
using testing::run_gdrcheck;
using testing::test_data;
const std::string kDell = test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml");
const std::string kSysMatrix = test_data("pairs/horovod-288-v100-1nic-sys-2.4.7/topology.txt");

TEST(NodeTopoCli, UnstatedHostFactsExitUnknownAndTheJsonSaysWhatWasJudged) {
  auto r = run_gdrcheck({"node", "--topo", oci_h100_xml(), "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "gdrcheck.node/1");
  EXPECT_EQ(j["topology_file"]["kind"], "nccl-xml");
  EXPECT_TRUE(j["topology_file"]["assumed"].is_null());
  ASSERT_EQ(j["plan"].size(), 8u);
  for (const auto& s : j["plan"]) EXPECT_TRUE(s["gets_gdr"].get<bool>()) << s.dump();
  int host = 0;
  for (const auto& f : j["findings"]) host += f["check"] == "host";
  EXPECT_EQ(host, 1);
}

TEST(NodeTopoCli, StatedFactsLetAGoodPlacementPass) {
  auto r = run_gdrcheck({"node", "--topo", oci_h100_xml(), "--assume", "all=ok", "--color", "never"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(nccl-xml);"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peermem=ok,ports=active,acs=ok,iommu=ok,links=ok,driver=ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8 get GPUDirect RDMA from this topology, 0 do not"), std::string::npos) << r.out;
}

TEST(NodeTopoCli, PlanNamesTheChangeForEveryGpuWithoutGdr) {
  auto r = run_gdrcheck({"node", "--topo", kSysMatrix, "--assume", "all=ok", "--color", "never"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("Plan (what this topology gives each GPU"), std::string::npos) << r.out;
  for (const char* gpu : {"GPU0", "GPU1", "GPU2", "GPU3"})
    EXPECT_NE(r.out.find(std::string(gpu) + "  no GDR (mlx5_0, SYS)"), std::string::npos) << gpu << "\n" << r.out;
  EXPECT_NE(r.out.find("add a NIC next to GPU3"), std::string::npos) << r.out;
  // The setting a planner could use instead is honoured as for a root.
  auto set =
      run_gdrcheck({"node", "--topo", kSysMatrix, "--assume", "all=ok", "--env", "NCCL_NET_GDR_LEVEL=SYS", "--json"});
  auto j = nlohmann::json::parse(set.out);
  for (const auto& s : j["plan"]) EXPECT_TRUE(s["gets_gdr"].get<bool>()) << s.dump();
}

TEST(NodeTopoCli, WhatIfMovesANicAndShowsWhatChanged) {
  auto r = run_gdrcheck({"node", "--topo", kDell, "--assume", "all=ok", "--color", "never", "--what-if",
                         "move 0000:da:00.0 beside 0000:cb:00.0"});
  // GPU0 and GPU3 now share mlx5_0: the rails warning says so.
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("mlx5_0 ← GPU0, GPU3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("moved: mlx5_3 (0000:da:00.0) moved from under"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU2  mlx5_0 SYS yes/yes  ->  mlx5_3 PIX yes/yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU3  mlx5_3 PIX yes/yes  ->  mlx5_0 SYS yes/yes"), std::string::npos) << r.out;
  // The same move from an edit file, in JSON.
  auto dir = std::filesystem::temp_directory_path() / ("gdrcheck-whatif-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "plan.json") << R"({"moves": [{"device": "0000:da:00.0", "under": "0000:cb:00.0"}]})";
  auto j = run_gdrcheck({"node", "--topo", kDell, "--json", "--what-if", (dir / "plan.json").string()});
  std::filesystem::remove_all(dir);
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["what_if"]["moves"].size(), 1u);
  EXPECT_EQ(doc["what_if"]["before"][2]["nic_name"], "mlx5_0");
  EXPECT_EQ(doc["pairs"][2]["nic_name"], "mlx5_3") << doc["pairs"][2].dump();
}

TEST(NodeTopoCli, BadOptionsAreUsageErrorsNamingWhatIsWrong) {
  auto assume_alone = run_gdrcheck({"node", "--assume", "all=ok"});
  EXPECT_EQ(assume_alone.exit_code, 64);
  auto both = run_gdrcheck({"node", "--topo", oci_h100_xml(), "--root", "/"});
  EXPECT_EQ(both.exit_code, 64);
  auto bad_key = run_gdrcheck({"node", "--topo", oci_h100_xml(), "--assume", "nvlink=ok"});
  EXPECT_EQ(bad_key.exit_code, 64);
  EXPECT_NE(bad_key.err.find("'nvlink' is not a fact that can be assumed"), std::string::npos) << bad_key.err;
  auto bad_move = run_gdrcheck({"node", "--topo", kDell, "--what-if", "move 0000:ee:00.0 under 0000:cb:00.0"});
  EXPECT_EQ(bad_move.exit_code, 64);
  EXPECT_NE(bad_move.err.find("no device 0000:ee:00.0"), std::string::npos) << bad_move.err;
  auto matrix_move = run_gdrcheck({"node", "--topo", kSysMatrix, "--what-if", "move 0000:01:00.0 under 0000:02:00.0"});
  EXPECT_EQ(matrix_move.exit_code, 64);
  EXPECT_NE(matrix_move.err.find("no PCI tree"), std::string::npos) << matrix_move.err;
  auto missing = run_gdrcheck({"node", "--topo", "/nonexistent/topo.xml"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("/nonexistent/topo.xml"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gdrcheck

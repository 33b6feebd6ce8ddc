// `gdrcheck analyze` on perftest pastes through the real binary: exit
// codes, --kind perftest, JSON and hostile text quoted back safely.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::run_gdrcheck;
using testing::test_data;

std::string paste(const std::string& name) {
  return test_data("perftest/pastes/" + name);
}

TEST(AnalyzePerftestCli, CudaFailureExitsCritical) {
  auto r = run_gdrcheck({"analyze", paste("perftest-31-use-cuda-k80-allocate-mr.txt")});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("(perftest)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CRITICAL"), std::string::npos) << r.out;
}

TEST(AnalyzePerftestCli, HostRunExitsUnknownAndGpuRunOk) {
  EXPECT_EQ(run_gdrcheck({"analyze", paste("lab-notes-send-bw-fdr-ib.txt")}).exit_code, 3);
  EXPECT_EQ(run_gdrcheck({"analyze", paste("rocm-docs-d2d-bidirectional-gbits.txt")}).exit_code, 0);
  EXPECT_EQ(run_gdrcheck({"analyze", paste("crater-read-bw-server-read-keys.txt")}).exit_code, 1);
}

TEST(AnalyzePerftestCli, Json) {
  auto r = run_gdrcheck({"analyze", "--json", paste("blog-roce-100gbe-bidirectional-cpu-freq.txt")});
  json j = json::parse(r.out);
  const json& a = j["artifacts"][0];
  EXPECT_EQ(a["kind"], "perftest");
  const json& run = a["perftest"]["runs"][0];
  EXPECT_EQ(run["device"], "mlx5_0");
  EXPECT_EQ(run["unit"], "Gb/s");
  EXPECT_EQ(run["bidirectional"], true);
  EXPECT_DOUBLE_EQ(run["average_gbps"].get<double>(), 98.02);
  EXPECT_TRUE(run["port_rate_gbps"].is_null());
  EXPECT_EQ(run["rows"][0]["bytes"], 65536);
}

TEST(AnalyzePerftestCli, KindForcesAndHostileTextIsEscaped) {
  std::string path = testing::scratch_dir() + "/hostile-perftest.txt";
  std::ofstream(path, std::ios::binary) << "Couldn't allocate MR \x1b]0;owned\x07\n";
  auto r = run_gdrcheck({"analyze", "--kind", "perftest", path});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gdrcheck

// Tests for perftest's pre-24.01 `--out_json` (unquoted keys and words).
#include "bench/perftest_loose_json.h"

#include <gtest/gtest.h>

#include <string>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::read_test_data;

// What perftest 23.10 writes for a bandwidth run (print_report_bw's
// test_info lines and REPORT_FMT_JSON, src/perftest_parameters.{c,h}@23.10.0-0.29).
std::string old_bw_file() {
  return "{\n"
         "test_info: {\n"
         "test: RDMA_Write_BW_Test,\n"
         "Dual_port: OFF,\nDevice: \"mlx5_0\",\n"
         "Number_of_qps: 2,\nTransport_type: IB,\n"
         " MultiCast_runs: on_UD,\n"
         "Test with events: Using_mlx5_0_comp0,\n"
         "TX_depth : 128,\n"
         "Use_ROCm_memory: OFF,\n"
         "Data_ex_method: Ethernet,\n"
         "},\n"
         "results: {\n"
         "MsgSize: 65536,\nn_iterations: 5000,\nBW_peak: 96.51,\nBW_average: 96.48,\nMsgRate: 0.184021,\n"
         "},\n"
         "}\n";
}

TEST(PerftestLooseJson, ReadsTheRealLatencyFile) {
  auto j = read_perftest_loose_json(read_test_data("perftest/perftest-216-old-out-json-latency-rxe0.json"));
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["test_info"]["test"], "RDMA_Write_Latency_Test");
  EXPECT_EQ((*j)["test_info"]["Device"], "rxe0");
  EXPECT_EQ((*j)["test_info"]["TX_depth"], 1);  // "TX_depth : 1": the key without its space
  EXPECT_EQ((*j)["test_info"]["Link_type"], "Ethernet");
  EXPECT_EQ((*j)["results"]["MsgSize"], 128);
  EXPECT_DOUBLE_EQ((*j)["results"]["percentile_99.9"].get<double>(), 4.03);
  EXPECT_FALSE((*j)["results"].contains("BW_average"));
}

TEST(PerftestLooseJson, ReadsABandwidthFileOfThatFormat) {
  auto j = read_perftest_loose_json(old_bw_file());
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["test_info"]["Test with events"], "Using_mlx5_0_comp0");
  EXPECT_EQ((*j)["test_info"]["MultiCast_runs"], "on_UD");
  EXPECT_EQ((*j)["test_info"]["Number_of_qps"], 2);
  EXPECT_DOUBLE_EQ((*j)["results"]["BW_average"].get<double>(), 96.48);
  // CRLF line ends and blank lines change nothing.
  std::string crlf;
  for (char c : old_bw_file()) crlf += c == '\n' ? std::string("\r\n\n") : std::string(1, c);
  EXPECT_EQ(read_perftest_loose_json(crlf), j);
}

TEST(PerftestLooseJson, RefusesWhatIsNotThatFormat) {
  std::string good = old_bw_file();
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_TRUE(read_perftest_loose_json(good));
  // Standard JSON is the JSON parser's.
  EXPECT_FALSE(read_perftest_loose_json("{\n\"results\": {\n\"MsgSize\": 1\n}\n}\n"));
  EXPECT_FALSE(read_perftest_loose_json(""));
  EXPECT_FALSE(read_perftest_loose_json(good.substr(0, good.rfind('}'))));  // never closed
  EXPECT_FALSE(read_perftest_loose_json(good + "more\n"));                  // text after the end
  EXPECT_FALSE(read_perftest_loose_json(with("BW_peak", "BW_average")));    // a key twice
  // "-nan" (printf of a NaN) is a word, not a number: the figure's reader refuses it.
  EXPECT_EQ((*read_perftest_loose_json(with("96.48", "-nan")))["results"]["BW_average"], "-nan");
  EXPECT_FALSE(read_perftest_loose_json(with("Using_mlx5_0_comp0", "a \"quote\"")));  // quotes inside
  EXPECT_FALSE(read_perftest_loose_json(with("Dual_port: OFF", "Dual_port OFF")));    // no colon
  EXPECT_FALSE(read_perftest_loose_json(with("Dual_port", "Dual\x1b]0;port")));       // not a key
  EXPECT_FALSE(read_perftest_loose_json(with("Device: \"mlx5_0\"", "Device: [1]")));  // not a value
  // Nesting deeper than perftest's.
  std::string deep = "{\n";
  for (int i = 0; i < 8; ++i) deep += "k" + std::to_string(i) + ": {\n";
  for (int i = 0; i < 9; ++i) deep += "}\n";
  EXPECT_FALSE(read_perftest_loose_json(deep));
  // Bounded however many members a hostile file has.
  std::string many = "{\n";
  for (int i = 0; i < 5000; ++i) many += "k" + std::to_string(i) + ": 1,\n";
  EXPECT_FALSE(read_perftest_loose_json(many + "}\n"));
}

}  // namespace
}  // namespace gdrcheck

// perftest (ib_write_bw) text and JSON, from real recorded outputs.
#include <gtest/gtest.h>

#include "bench/perftest_output.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::read_test_data;

TEST(PerftestOutput, GbitsTableFromARealRun) {
  PerftestReport r = parse_perftest_text(read_test_data("perftest/perftest-273-post-list-gbits.txt"));
  EXPECT_EQ(r.test, "RDMA_Write Post List BW Test");
  EXPECT_FALSE(r.bidirectional);
  EXPECT_EQ(r.device, "ib0");
  EXPECT_EQ(r.link_type, "Ethernet");
  EXPECT_EQ(r.qps, 1);
  EXPECT_EQ(r.unit, PerftestUnit::Gbits);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].bytes, 8u);
  EXPECT_EQ(r.rows[0].iterations, 224958464u);
  EXPECT_DOUBLE_EQ(r.rows[0].bw_average, 0.48);
  ASSERT_TRUE(r.rows[0].msg_rate_mpps);
  EXPECT_DOUBLE_EQ(*r.rows[0].msg_rate_mpps, 7.498617);
  ASSERT_TRUE(r.average_gbits());
  EXPECT_DOUBLE_EQ(*r.average_gbits(), 0.48);
  EXPECT_FALSE(r.gpu_buffer);
  EXPECT_TRUE(r.errors.empty());
}

TEST(PerftestOutput, CudaServerCutBeforeResults) {
  PerftestReport r = parse_perftest_text(read_test_data("perftest/perftest-241-use-cuda-a30-server-cut.txt"));
  EXPECT_TRUE(r.gpu_buffer);
  EXPECT_EQ(r.gpu_name, "NVIDIA A30");
  EXPECT_EQ(r.device, "mlx5_0");
  EXPECT_FALSE(r.has_header);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_FALSE(r.average_gbits());  // no figure, not zero
}

TEST(PerftestOutput, MegabytesHeaderWithoutRows) {
  PerftestReport r = parse_perftest_text(read_test_data("perftest/perftest-234-mbsec-cut.txt"));
  EXPECT_TRUE(r.has_header);
  EXPECT_EQ(r.unit, PerftestUnit::MBytes);
  EXPECT_EQ(r.link_type, "Ethernet");
  EXPECT_TRUE(r.rows.empty());
  EXPECT_FALSE(r.average_gbits());
}

TEST(PerftestOutput, MegabytesAreBinary) {
  // perftest's MB is 2^20 bytes: 11728.47 MB/s = 98.38 Gb/s.
  ASSERT_TRUE(to_gbits(11728.47, PerftestUnit::MBytes));
  EXPECT_NEAR(*to_gbits(11728.47, PerftestUnit::MBytes), 98.385, 0.01);
  EXPECT_FALSE(to_gbits(1, PerftestUnit::Unknown));
}

TEST(PerftestOutput, JsonFile) {
  PerftestReport r =
      parse_perftest_json(read_test_data("perftest/perftest-json-rdma-write-mlx5_11.json"), PerftestUnit::MBytes);
  EXPECT_EQ(r.device, "mlx5_11");
  EXPECT_EQ(r.link_type, "Ethernet");
  EXPECT_EQ(r.qps, 1);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].bytes, 65536u);
  EXPECT_DOUBLE_EQ(r.rows[0].bw_peak, 5293.52);
  ASSERT_TRUE(r.average_gbits());
  EXPECT_NEAR(*r.average_gbits(), 2229.27 * 1048576 * 8 / 1e9, 1e-9);
}

// GPU memory as the JSON records it (perftest 24.10+: "cuda_device"); a
// file without it names no memory.
TEST(PerftestOutput, JsonGpuMemory) {
  std::string host = read_test_data("perftest/perftest-json-rdma-write-mlx5_11.json");
  EXPECT_FALSE(parse_perftest_json(host, PerftestUnit::MBytes).gpu_buffer);
  std::string cuda = host;
  cuda.replace(cuda.find("\"rdma_cm_QPs\""), 0, "\"cuda_device\": 3,\n    ");
  EXPECT_TRUE(parse_perftest_json(cuda, PerftestUnit::MBytes).gpu_buffer);
  std::string rocm = host;
  std::string off = "\"Use_ROCm_memory\": \"OFF\"";
  rocm.replace(rocm.find(off), off.size(), "\"Use_ROCm_memory\": \"ON\"");
  EXPECT_TRUE(parse_perftest_json(rocm, PerftestUnit::MBytes).gpu_buffer);
}

// The unquoted file of perftest before 24.01: a latency test has no rows.
TEST(PerftestOutput, OldUnquotedJson) {
  PerftestReport lat =
      parse_perftest_json(read_test_data("perftest/perftest-216-old-out-json-latency-rxe0.json"), PerftestUnit::Gbits);
  EXPECT_EQ(lat.test, "RDMA_Write_Latency_Test");
  EXPECT_EQ(lat.device, "rxe0");
  EXPECT_TRUE(lat.rows.empty());
  EXPECT_FALSE(lat.average_gbits());
  PerftestReport bw = parse_perftest_json(
      "{\ntest_info: {\ntest: RDMA_Write_BW_Test,\nDevice: \"mlx5_0\",\n},\nresults: {\nMsgSize: 65536,\n"
      "n_iterations: 5000,\nBW_peak: 96.51,\nBW_average: 96.48,\nMsgRate: 0.184021,\n},\n}\n",
      PerftestUnit::Gbits);
  ASSERT_EQ(bw.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*bw.average_gbits(), 96.48);
  // A bandwidth test without its figure is still refused.
  EXPECT_THROW(parse_perftest_json("{\ntest_info: {\ntest: RDMA_Write_BW_Test,\n},\nresults: {\nMsgSize: 1,\n},\n}\n",
                                   PerftestUnit::Gbits),
               std::invalid_argument);
}

TEST(PerftestOutput, BadJsonNamesTheProblem) {
  EXPECT_THROW(parse_perftest_json("not json", PerftestUnit::Gbits), std::invalid_argument);
  EXPECT_THROW(parse_perftest_json("{}", PerftestUnit::Gbits), std::invalid_argument);
  try {
    parse_perftest_json(R"({"results": {"MsgSize": 65536, "BW_average": "fast"}})", PerftestUnit::Gbits);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BW_average"), std::string::npos);
  }
}

TEST(PerftestOutput, ErrorsAndGarbage) {
  PerftestReport r = parse_perftest_text(" No IB devices found\nCouldn't connect to localhost:18515\n\x01\x02 zz\n");
  EXPECT_EQ(r.errors.size(), 2u);
  EXPECT_TRUE(r.rows.empty());
  PerftestReport g = parse_perftest_text("12 34 56 78\n");  // numbers without a header are not a table
  EXPECT_TRUE(g.rows.empty());
}

// Hostile figures: nothing that is not a finite non-negative bandwidth
// becomes a figure to judge, and nothing crashes or loops.
const char* kGbitsHeader = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n";

std::optional<double> text_gbits(const std::string& row) {
  return parse_perftest_text(std::string(kGbitsHeader) + row).average_gbits();
}

TEST(PerftestOutput, HostileTextFiguresAreNoFigure) {
  ASSERT_TRUE(text_gbits(" 65536      5000           97.50              97.10                0.185\n"));
  EXPECT_FALSE(text_gbits(" 65536      5000           nan                nan                  0.185\n"));
  EXPECT_FALSE(text_gbits(" 65536      5000           inf                inf                  0.185\n"));
  EXPECT_FALSE(text_gbits(" 65536      5000           -97.5              -97.1                0.185\n"));
  EXPECT_FALSE(text_gbits(" 65536      5000           1e999              1e999                0.185\n"));
  EXPECT_FALSE(text_gbits(" 99999999999999999999999 5000 1 1\n"));  // bytes past 2^64
  EXPECT_FALSE(text_gbits(" 65536      5000           97.5"));      // cut mid-row
  EXPECT_FALSE(text_gbits(" 65536      5000           97.5x              97.1\n"));
  // A huge MB/sec figure overflows to infinity in Gb/s: no figure either.
  PerftestReport mb = parse_perftest_text(
      " #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]\n 65536 5000 1e308 1.7e308 0.1\n");
  ASSERT_EQ(mb.rows.size(), 1u);
  EXPECT_FALSE(mb.average_gbits());
}

TEST(PerftestOutput, HostileTextDoesNotCrashOrLoop) {
  std::string junk = std::string(kGbitsHeader);
  for (int i = 0; i < 2000; ++i) junk += ":\t:\t\t: : \x01\xff\r\n\n 1 \t 2 :\t";
  junk += std::string(1 << 20, '9');
  PerftestReport r = parse_perftest_text(junk);
  EXPECT_FALSE(r.average_gbits());
  EXPECT_FALSE(parse_perftest_text("").average_gbits());
  EXPECT_FALSE(parse_perftest_text(std::string(3, '\0')).average_gbits());
}

std::string json_results(const std::string& size, const std::string& avg, const std::string& extra = "") {
  return R"({"test_info": {"Number_of_qps": 1e300}, "results": {"MsgSize": )" + size + R"(, "BW_average": )" + avg +
         extra + "}}";
}

// Rejected as a file, or read with no figure: either way nothing to judge.
bool no_figure(const std::string& json, PerftestUnit unit) {
  try {
    return !parse_perftest_json(json, unit).average_gbits();
  } catch (const std::invalid_argument&) {
    return true;
  }
}

TEST(PerftestOutput, HostileJsonFiguresAreNoFigure) {
  auto good = parse_perftest_json(json_results("65536", "97.5"), PerftestUnit::Gbits);
  ASSERT_TRUE(good.average_gbits());
  EXPECT_DOUBLE_EQ(*good.average_gbits(), 97.5);
  EXPECT_FALSE(good.qps);  // 1e300 queue pairs is no count
  EXPECT_FALSE(parse_perftest_json(json_results("65536", "-97.5"), PerftestUnit::Gbits).average_gbits());
  EXPECT_TRUE(no_figure(json_results("65536", "1e400"), PerftestUnit::Gbits));
  EXPECT_FALSE(parse_perftest_json(json_results("65536", "1e308"), PerftestUnit::MBytes).average_gbits());
  // Sizes that no integer holds are an error, not undefined behaviour.
  for (const char* size : {"-1", "1e300", "0.5", "-1e300", "18446744073709551616"})
    EXPECT_THROW(parse_perftest_json(json_results(size, "97.5"), PerftestUnit::Gbits), std::invalid_argument) << size;
  auto iters = parse_perftest_json(json_results("65536", "97.5", R"(, "n_iterations": -5)"), PerftestUnit::Gbits);
  EXPECT_EQ(iters.rows[0].iterations, 0u);
  EXPECT_TRUE(no_figure(json_results("65536", "NaN"), PerftestUnit::Gbits));
  EXPECT_TRUE(no_figure(json_results("65536", "Infinity"), PerftestUnit::Gbits));
  EXPECT_THROW(parse_perftest_json(R"({"results": {"MsgSize": 65536, "BW_av)", PerftestUnit::Gbits),
               std::invalid_argument);
}

}  // namespace
}  // namespace gdrcheck

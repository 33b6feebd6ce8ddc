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

}  // namespace
}  // namespace gdrcheck

// Tests for the site bandwidth file parser: a full file, and each kind of
// mistake giving an error that names the file and the place.
#include "bench/bandwidth_overrides.h"

#include <gtest/gtest.h>

#include <string>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

constexpr const char* kOverridesFile = "/etc/gdrcheck/bandwidth.json";

// The problem text for bad input; fails the test when it parses.
std::string overrides_error(const std::string& text) {
  try {
    parse_bandwidth_overrides(text, kOverridesFile);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), kOverridesFile);
    EXPECT_EQ(std::string(e.what()).rfind(std::string(kOverridesFile) + ": ", 0), 0u) << e.what();
    return e.problem();
  }
  ADD_FAILURE() << "parsed without error: " << text;
  return "";
}

TEST(BandwidthOverrides, ParsesTheExampleFile) {
  auto o = parse_bandwidth_overrides(testing::read_test_data("bandwidth/site-example.json"), "site-example.json");
  EXPECT_EQ(o.source, "site-example.json");
  EXPECT_DOUBLE_EQ(o.pass_ratio, 0.9);
  EXPECT_DOUBLE_EQ(o.rdma_pass_ratio, 0.9);
  ASSERT_EQ(o.nic_ceilings.size(), 3u);
  EXPECT_DOUBLE_EQ(o.nic_ceilings[0].rate_gbps, 400);
  EXPECT_EQ(o.nic_ceilings[0].link_layer, LinkLayer::InfiniBand);
  EXPECT_DOUBLE_EQ(o.nic_ceilings[0].per_nic_gbytes, 47.0);
  EXPECT_EQ(o.nic_ceilings[1].link_layer, LinkLayer::Ethernet);
  EXPECT_FALSE(o.nic_ceilings[2].link_layer.has_value());
  ASSERT_EQ(o.fixed_busbw.size(), 2u);
  EXPECT_EQ(o.fixed_busbw[0].node_type, "dgx-h100");
  EXPECT_EQ(o.fixed_busbw[0].collective, Collective::AllReduce);
  EXPECT_EQ(o.fixed_busbw[0].nodes, 1);
  EXPECT_DOUBLE_EQ(o.fixed_busbw[0].busbw_gbytes, 480);
  EXPECT_EQ(o.fixed_busbw[0].pass_ratio, 0.95);
  EXPECT_EQ(o.fixed_busbw[1].collective, Collective::AllToAll);
  EXPECT_FALSE(o.fixed_busbw[1].nodes.has_value());
  EXPECT_FALSE(o.fixed_busbw[1].pass_ratio.has_value());
}

TEST(BandwidthOverrides, ExampleFileDrivesTheModel) {
  auto o = parse_bandwidth_overrides(testing::read_test_data("bandwidth/site-example.json"), "site-example.json");
  BandwidthScenario s;
  s.nics_per_node = {{"mlx5", 400, LinkLayer::InfiniBand, 8}};
  s.gpus_per_node = 8;
  s.nodes = 2;
  s.collective = Collective::AllToAll;
  s.algorithm = Algorithm::Ring;
  s.node_type = "dgx-h100";
  auto a2a = expect_nccl_busbw(s, o);  // alltoall: only the site figure gives one
  ASSERT_TRUE(a2a.known);
  EXPECT_DOUBLE_EQ(a2a.expected_busbw_gbytes, 45);
  s.collective = Collective::AllReduce;
  EXPECT_NEAR(expect_nccl_busbw(s, o).expected_busbw_gbytes, 8 * 47.0, 1e-9);
}

// A file that sets nothing would leave the built-in model in force while
// its author believes otherwise.
TEST(BandwidthOverrides, AFileThatSetsNothingIsRefused) {
  const std::string why = "no settings (an empty bandwidth file changes nothing; remove it to use the built-in model)";
  EXPECT_EQ(overrides_error("{}"), why);
  EXPECT_EQ(overrides_error(R"({"schema": "gdrcheck.bandwidth/1"})"), why);
  EXPECT_EQ(overrides_error(R"({"nic_ceilings": [], "fixed_busbw": []})"), why);
  auto o = parse_bandwidth_overrides(R"({"rdma_pass_ratio": 0.8})", kOverridesFile);
  EXPECT_DOUBLE_EQ(o.pass_ratio, BandwidthOverrides{}.pass_ratio);
  EXPECT_DOUBLE_EQ(o.rdma_pass_ratio, 0.8);
  EXPECT_EQ(o.source, kOverridesFile);
}

// Hostile files: too deep for the recursive steps after parsing, a key
// given twice (the last would silently win), numbers that do not convert.
TEST(BandwidthOverrides, DeepRepeatedAndOutOfRangeInputIsRefused) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(overrides_error(R"({"nic_ceilings": )" + deep + "}"), "nested deeper than 64 levels; not a bandwidth file");
  EXPECT_EQ(overrides_error(R"({"pass_ratio": 0.5, "pass_ratio": 0.9})"),
            "key \"pass_ratio\" appears twice in one object (line 1, column 32)");
  const std::string fixed = R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","busbw_gbytes":1,"nodes":)";
  EXPECT_EQ(overrides_error(fixed + "1e300}]}"),
            "\"fixed_busbw[0].nodes\" must be a whole number from 1 to 2147483647, not 1e+300");
  EXPECT_EQ(overrides_error(fixed + "-3}]}"),
            "\"fixed_busbw[0].nodes\" must be a whole number from 1 to 2147483647, not -3");
  EXPECT_EQ(overrides_error(fixed + "18446744073709551615}]}"),
            "\"fixed_busbw[0].nodes\" must be a whole number from 1 to 2147483647, not 18446744073709551615");
  EXPECT_EQ(parse_bandwidth_overrides(fixed + "4.0}]}", kOverridesFile).fixed_busbw.at(0).nodes, 4);
}

TEST(BandwidthOverrides, ProblemsQuoteNoControlBytes) {
  std::string p = overrides_error(R"({"\u001b[2J": 1})");
  EXPECT_EQ(p.find('\x1b'), std::string::npos) << p;
  EXPECT_EQ(p.rfind("unknown key \"\\u001b[2J\"", 0), 0u) << p;
  std::string q = overrides_error(R"({"fixed_busbw":[{"node_type":"a","collective":"\u009b31m","busbw_gbytes":1}]})");
  EXPECT_EQ(q.find("\xc2\x9b"), std::string::npos) << q;
}

TEST(BandwidthOverrides, RatioOfExactlyOneIsAllowed) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_overrides(R"({"pass_ratio": 1})", kOverridesFile).pass_ratio, 1.0);
}

struct BadCase {
  const char* name;
  const char* text;
  const char* problem;  // part of the expected problem text
};

class BadFiles : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadFiles, NameTheProblem) {
  const auto& c = GetParam();
  std::string problem = overrides_error(c.text);
  EXPECT_NE(problem.find(c.problem), std::string::npos) << "got: " << problem;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadFiles,
    ::testing::Values(
        BadCase{"bad_json", R"({"pass_ratio": 0.9,})", "not valid JSON"}, BadCase{"empty", "", "not valid JSON"},
        BadCase{"top_array", "[]", "expected a JSON object"},
        BadCase{"unknown_top_key", R"({"pass_ration": 0.9})", "unknown key \"pass_ration\""},
        BadCase{"unknown_nested_key", R"({"nic_ceilings":[{"rate_gbps":400,"per_nic_gbytes":47,"gen":"ndr"}]})",
                "nic_ceilings[0]: unknown key \"gen\""},
        BadCase{"negative_rate", R"({"nic_ceilings":[{"rate_gbps":-400,"per_nic_gbytes":47}]})",
                "nic_ceilings[0].rate_gbps: must be a positive number, got -400"},
        BadCase{"zero_ceiling", R"({"nic_ceilings":[{"rate_gbps":400,"per_nic_gbytes":0}]})",
                "nic_ceilings[0].per_nic_gbytes: must be a positive number"},
        BadCase{"string_number", R"({"nic_ceilings":[{"rate_gbps":"400","per_nic_gbytes":47}]})",
                "rate_gbps: expected a number, got string"},
        BadCase{"bool_number", R"({"pass_ratio": true})", "pass_ratio: expected a number, got boolean"},
        BadCase{"missing_rate", R"({"nic_ceilings":[{"per_nic_gbytes":47}]})", "missing \"rate_gbps\""},
        BadCase{"bits_for_bytes", R"({"nic_ceilings":[{"rate_gbps":400,"per_nic_gbytes":400}]})",
                "more than a 400 Gb/s port carries (50 GB/s)"},
        BadCase{"bad_link_layer", R"({"nic_ceilings":[{"rate_gbps":400,"link_layer":"opa","per_nic_gbytes":47}]})",
                "link_layer: expected"},
        BadCase{"duplicate_ceiling",
                R"({"nic_ceilings":[{"rate_gbps":400,"link_layer":"ib","per_nic_gbytes":47},
                                    {"rate_gbps":400,"link_layer":"InfiniBand","per_nic_gbytes":46}]})",
                "nic_ceilings[1]: 400 Gb/s InfiniBand is given twice"},
        BadCase{"ceilings_not_array", R"({"nic_ceilings":{"rate_gbps":400}})", "nic_ceilings: expected an array"},
        BadCase{"ratio_zero", R"({"pass_ratio": 0})", "pass_ratio: must be in (0, 1]"},
        BadCase{"ratio_above_one", R"({"pass_ratio": 1.5})", "pass_ratio: must be in (0, 1]"},
        BadCase{"ratio_percent", R"({"rdma_pass_ratio": 90})", "rdma_pass_ratio: must be in (0, 1]"},
        BadCase{"fixed_unknown_collective",
                R"({"fixed_busbw":[{"node_type":"a","collective":"gather","busbw_gbytes":10}]})",
                "fixed_busbw[0].collective: unknown collective \"gather\""},
        BadCase{"fixed_zero_nodes",
                R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","nodes":0,"busbw_gbytes":10}]})",
                "fixed_busbw[0].nodes"},
        BadCase{"fixed_fraction_nodes",
                R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","nodes":1.5,"busbw_gbytes":10}]})",
                "fixed_busbw[0].nodes"},
        BadCase{"fixed_negative_busbw",
                R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","busbw_gbytes":-1}]})",
                "fixed_busbw[0].busbw_gbytes: must be a positive number"},
        BadCase{"fixed_empty_type", R"({"fixed_busbw":[{"node_type":"","collective":"all_reduce","busbw_gbytes":1}]})",
                "fixed_busbw[0].node_type: expected a non-empty string"},
        BadCase{"fixed_ratio",
                R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","busbw_gbytes":1,"pass_ratio":2}]})",
                "fixed_busbw[0].pass_ratio: must be in (0, 1]"},
        BadCase{"fixed_duplicate",
                R"({"fixed_busbw":[{"node_type":"a","collective":"all_reduce","busbw_gbytes":1},
                                   {"node_type":"a","collective":"allreduce","busbw_gbytes":2}]})",
                "fixed_busbw[1]: \"a\" all_reduce is given twice"},
        BadCase{"wrong_schema", R"({"schema":"gdrcheck.manifest/1"})", "schema: expected \"gdrcheck.bandwidth/1\""}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gdrcheck

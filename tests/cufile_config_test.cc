// cufile.json as libcufile reads it: the shipped file (tests/data/gds/
// PROVENANCE.md), hand-made variants, and files that are not JSON.
#include "evidence/cufile_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gdrcheck {
namespace {

std::string shipped() {
  std::ifstream in(std::string(GDRCHECK_TEST_DATA) + "/gds/cufile-shipped.json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CufileConfig, TheShippedFileWithItsCommentsParses) {
  CufileConfig c = parse_cufile_config(shipped(), "/usr/local/cuda/gds/cufile.json");
  ASSERT_TRUE(c.parsed) << c.error;
  EXPECT_EQ(c.allow_compat_mode, true);
  EXPECT_EQ(c.allow_compat_key, "properties.allow_compat_mode");
  EXPECT_FALSE(c.force_compat_mode);  // not in the shipped file: cuFile's default (false)
  EXPECT_EQ(c.gds_rdma_write_support, true);
  EXPECT_TRUE(c.rdma_dev_addr_list.empty());
  EXPECT_TRUE(c.p2pdma_routes.empty());
  EXPECT_TRUE(c.denylist.empty());
  EXPECT_TRUE(c.problems.empty());
}

TEST(CufileConfig, SettingsThatChangeThePath) {
  CufileConfig c = parse_cufile_config(R"({
    // compat mode forced, the older key name for allowing it
    "properties": {"use_compat_mode": false, "force_compat_mode": true, "use_pci_p2pdma": true,
                   "rdma_dev_addr_list": ["10.0.1.1", "10.0.2.1"], "rdma_peer_type": "dmabuf"},
    "block": {"nvme": {"use_pci_p2pdma": true}, "raid": {"use_pci_p2pdma": false}},
    /* denied */ "denylist": {"drivers": ["nvme_rdma"], "mounts": []}
  })",
                                       "cufile.json");
  ASSERT_TRUE(c.parsed) << c.error;
  EXPECT_EQ(c.allow_compat_mode, false);
  EXPECT_EQ(c.allow_compat_key, "properties.use_compat_mode");
  EXPECT_EQ(c.force_compat_mode, true);
  EXPECT_EQ(c.use_pci_p2pdma, true);
  EXPECT_EQ(c.p2pdma_routes, std::vector<std::string>{"block.nvme"});
  EXPECT_EQ(c.rdma_dev_addr_list.size(), 2u);
  EXPECT_EQ(c.rdma_peer_type, "dmabuf");
  ASSERT_EQ(c.denylist.size(), 1u);
  EXPECT_EQ(c.denylist.at("drivers"), std::vector<std::string>{"nvme_rdma"});
}

TEST(CufileConfig, WrongTypesAreNamedNotGuessed) {
  CufileConfig c = parse_cufile_config(
      R"({"properties": {"force_compat_mode": "yes", "allow_compat_mode": 1, "rdma_dev_addr_list": "10.0.0.1"}})",
      "cufile.json");
  ASSERT_TRUE(c.parsed);
  EXPECT_FALSE(c.force_compat_mode);
  EXPECT_FALSE(c.allow_compat_mode);
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_EQ(c.problems[0], "properties.allow_compat_mode: expected true or false, not 1");
  EXPECT_NE(c.problems[1].find("properties.force_compat_mode: expected true or false, not \"yes\""), std::string::npos);
  EXPECT_NE(c.problems[2].find("rdma_dev_addr_list: expected a list"), std::string::npos);
}

// libcufile falls back to its defaults when the file does not parse: the
// line and column say where; a file gdrcheck refuses is told apart.
TEST(CufileConfig, FilesThatAreNotJsonSayWhere) {
  CufileConfig c = parse_cufile_config("{\n  \"properties\": {\n    \"allow_compat_mode\": false,\n  }\n}\n", "x.json");
  EXPECT_FALSE(c.parsed);
  EXPECT_TRUE(c.syntax_error);
  EXPECT_NE(c.error.find("line 4"), std::string::npos) << c.error;
  CufileConfig twice =
      parse_cufile_config(R"({"properties": {"force_compat_mode": false, "force_compat_mode": true}})", "x.json");
  EXPECT_FALSE(twice.parsed);
  EXPECT_FALSE(twice.syntax_error);
  EXPECT_NE(twice.error.find("twice"), std::string::npos) << twice.error;
  EXPECT_TRUE(parse_cufile_config("[1, 2]", "x.json").syntax_error);
  EXPECT_FALSE(parse_cufile_config(std::string(10000, '[') + std::string(10000, ']'), "x.json").parsed);
}

}  // namespace
}  // namespace gdrcheck

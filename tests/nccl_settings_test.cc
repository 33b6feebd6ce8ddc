// nccl.conf parsing as NCCL reads it, and the precedence of the layers.
#include "host/nccl_settings.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(NcclSettingsConf, NameValueLinesWithOrigins) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("NCCL_DEBUG=INFO\nNCCL_NET_GDR_LEVEL=PHB\nNCCL_IB_HCA=mlx5_0:1,mlx5_1\n", "/etc/nccl.conf",
                           &problems);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].name, "NCCL_NET_GDR_LEVEL");
  EXPECT_EQ(s[1].value, "PHB");
  EXPECT_EQ(s[1].origin, "/etc/nccl.conf:2");
  EXPECT_EQ(s[2].value, "mlx5_0:1,mlx5_1");
  EXPECT_TRUE(problems.empty());
}

TEST(NcclSettingsConf, CommentsBlankLinesAndNoFinalNewline) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("# site defaults\n\n   \n  # indented comment\nNCCL_SOCKET_IFNAME=eth0", "/root/.nccl.conf",
                           &problems);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].name, "NCCL_SOCKET_IFNAME");
  EXPECT_EQ(s[0].value, "eth0");
  EXPECT_EQ(s[0].origin, "/root/.nccl.conf:5");
  EXPECT_TRUE(problems.empty());
}

TEST(NcclSettingsConf, ValueSplitsAtFirstEqualsAndKeepsInnerSpaces) {
  auto s = parse_nccl_conf("NCCL_TOPO_FILE=/opt/a b=c.xml\nNCCL_X=\n", "f", nullptr);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].value, "/opt/a b=c.xml");
  EXPECT_EQ(s[1].name, "NCCL_X");
  EXPECT_EQ(s[1].value, "");  // an empty value is still set, and blocks later files
}

TEST(NcclSettingsConf, LineWithoutEqualsIsAProblem) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("NCCL_DEBUG=INFO\nNCCL_NET_GDR_LEVEL PHB\n", "/etc/nccl.conf", &problems);
  EXPECT_EQ(s.size(), 1u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "/etc/nccl.conf:2: not NAME=VALUE, NCCL ignores it: 'NCCL_NET_GDR_LEVEL PHB'");
}

TEST(NcclSettingsConf, ExportSyntaxIsNotNameValue) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("export NCCL_IB_DISABLE=1\n", "/etc/nccl.conf", &problems);
  EXPECT_TRUE(s.empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("/etc/nccl.conf:1: not NAME=VALUE (shell 'export' syntax"), std::string::npos);
  EXPECT_NE(problems[0].find("'export NCCL_IB_DISABLE'"), std::string::npos);
}

// NCCL does not trim: "NCCL_X = 1" sets a variable named "NCCL_X ".
TEST(NcclSettingsConf, SpacesAroundTheNameSetNothing) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("NCCL_NET_GDR_LEVEL = SYS\n  NCCL_IB_DISABLE=1\n=x\n", "/etc/nccl.conf", &problems);
  EXPECT_TRUE(s.empty());
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_NE(problems[0].find("/etc/nccl.conf:1: not NAME=VALUE: NCCL does not trim"), std::string::npos);
  EXPECT_NE(problems[0].find("'NCCL_NET_GDR_LEVEL ' and NCCL_NET_GDR_LEVEL stays unset"), std::string::npos);
  EXPECT_NE(problems[1].find("/etc/nccl.conf:2:"), std::string::npos);
  EXPECT_NE(problems[2].find("/etc/nccl.conf:3: not NAME=VALUE"), std::string::npos);
}

TEST(NcclSettingsConf, ValueKeepsSpacesAndHashAsNcclDoes) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("NCCL_NET_GDR_LEVEL=PXB \nNCCL_IB_HCA=mlx5_0 # rail 0\n", "/etc/nccl.conf", &problems);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].value, "PXB ");
  EXPECT_EQ(s[1].value, "mlx5_0 # rail 0");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "/etc/nccl.conf:1: value keeps its surrounding spaces in NCCL: NCCL_NET_GDR_LEVEL is 'PXB '");
  EXPECT_EQ(problems[1], "/etc/nccl.conf:2: nccl.conf has no end-of-line comments: NCCL_IB_HCA is 'mlx5_0 # rail 0'");
}

TEST(NcclSettingsConf, CrlfIsStrippedAndReportedOnce) {
  std::vector<std::string> problems;
  auto s = parse_nccl_conf("NCCL_A=1\r\nNCCL_B=2\r\n", "c.conf", &problems);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].value, "1");
  EXPECT_EQ(s[1].value, "2");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("c.conf:1: Windows (CRLF) line endings"), std::string::npos);
}

TEST(NcclSettingsMerge, EnvironmentWinsOverConfFiles) {
  std::vector<NcclSetting> env = {{"NCCL_NET_GDR_LEVEL", "SYS", "environment"}};
  auto user = parse_nccl_conf("NCCL_IB_HCA=mlx5_0\n", "/root/.nccl.conf", nullptr);
  auto etc =
      parse_nccl_conf("NCCL_NET_GDR_LEVEL=LOC\nNCCL_IB_HCA=mlx5_1\nNCCL_DEBUG=WARN\n", "/etc/nccl.conf", nullptr);
  NcclSettings st = merge_nccl_settings({env, user, etc});
  ASSERT_NE(st.find("NCCL_NET_GDR_LEVEL"), nullptr);
  EXPECT_EQ(st.find("NCCL_NET_GDR_LEVEL")->value, "SYS");
  EXPECT_EQ(st.find("NCCL_NET_GDR_LEVEL")->origin, "environment");
  EXPECT_EQ(st.find("NCCL_IB_HCA")->value, "mlx5_0");
  EXPECT_EQ(st.find("NCCL_IB_HCA")->origin, "/root/.nccl.conf:1");
  EXPECT_EQ(st.find("NCCL_DEBUG")->origin, "/etc/nccl.conf:3");
  EXPECT_EQ(st.values.size(), 3u);
  EXPECT_EQ(st.find("NCCL_NCHANNELS"), nullptr);
  EXPECT_TRUE(st.problems.empty());
}

TEST(NcclSettingsMerge, FirstLineOfAFileWinsAndOnlyNcclNamesKept) {
  auto conf = parse_nccl_conf("NCCL_IB_DISABLE=1\nNCCL_IB_DISABLE=0\nCUDA_VISIBLE_DEVICES=0\nNCCLX=1\n",
                              "/etc/nccl.conf", nullptr);
  EXPECT_EQ(conf.size(), 4u);
  NcclSettings st = merge_nccl_settings({conf});
  EXPECT_EQ(st.values.size(), 1u);
  EXPECT_EQ(st.find("NCCL_IB_DISABLE")->value, "1");
  EXPECT_EQ(st.find("NCCL_IB_DISABLE")->origin, "/etc/nccl.conf:1");
  EXPECT_EQ(st.find("CUDA_VISIBLE_DEVICES"), nullptr);
}

TEST(NcclSettingsMerge, EmptyValueInAnEarlierLayerStillWins) {
  std::vector<NcclSetting> env = {{"NCCL_IB_HCA", "", "--env"}};
  auto etc = parse_nccl_conf("NCCL_IB_HCA=mlx5_1\n", "/etc/nccl.conf", nullptr);
  NcclSettings st = merge_nccl_settings({env, etc});
  EXPECT_EQ(st.find("NCCL_IB_HCA")->value, "");
  EXPECT_EQ(st.find("NCCL_IB_HCA")->origin, "--env");
}

}  // namespace
}  // namespace gdrcheck

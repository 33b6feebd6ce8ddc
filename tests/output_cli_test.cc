// `node`'s output as an operator controls it: --color and NO_COLOR, the
// locale's character set, $COLUMNS, --list-checks and the site policy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/process.h"
#include "recorded_fixtures.h"
#include "report/text_wrap.h"

namespace gdrcheck {
namespace {

struct Output {
  int exit_code = -1;
  std::string out, err;
};

// The binary with exactly these locale, colour and width variables.
Output run(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env = {}) {
  ProcessSpec spec = ProcessSpec::command({GDRCHECK_BINARY});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_unset = {"NO_COLOR", "COLUMNS", "LC_ALL", "LC_CTYPE", "LANG", "TERM"};
  spec.env_set = env;
  spec.timeout = std::chrono::minutes(5);
  ProcessResult r = run_process(spec);
  return {r.end == ProcessResult::End::Exited ? r.exit_code : -1, r.out, r.err};
}

const std::vector<std::pair<std::string, std::string>> kUtf8 = {{"LANG", "en_US.UTF-8"}};

std::string translated_root() {
  return testing::node_root("dgx-h100", {"iommu-translated"});
}

std::string write_policy(const std::string& text) {
  std::string path = testing::scratch_dir() + "/policy.json";
  std::ofstream(path) << text;
  std::filesystem::permissions(path, std::filesystem::perms(0644));
  return path;
}

TEST(OutputCli, ColourOnlyWhenAskedOrOnATerminal) {
  std::string root = translated_root();
  EXPECT_EQ(run({"node", "--root", root}, kUtf8).out.find('\033'), std::string::npos);
  Output always = run({"node", "--root", root, "--color=always"}, {{"NO_COLOR", "1"}, {"LANG", "C.UTF-8"}});
  EXPECT_NE(always.out.find("\033[31mCRITICAL\033[0m"), std::string::npos) << always.out;
  EXPECT_EQ(run({"node", "--root", root, "--color=never"}, kUtf8).out.find('\033'), std::string::npos);
  Output bad = run({"node", "--root", root, "--color=yes"}, kUtf8);
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
}

TEST(OutputCli, OneRootCauseOneFindingWithinEightyColumns) {
  Output r = run({"node", "--root", translated_root()}, kUtf8);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("  CRITICAL  GPU0\u20137, mlx5_0\u201311 (20): IOMMU translates"), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::vector<std::string> all;
  for (std::string l; std::getline(lines, l);) all.push_back(l);
  for (std::size_t i = 0; i + 1 < all.size(); ++i) {  // the summary line stays whole
    bool one_long_word = all[i].find(' ', all[i].find_first_not_of(' ')) == std::string::npos;
    if (one_long_word) continue;
    EXPECT_LE(display_width(all[i]), 80u) << all[i];
  }
}

TEST(OutputCli, ColumnsAndAsciiLocale) {
  Output wide = run({"node", "--root", translated_root()}, {{"LANG", "en_US.UTF-8"}, {"COLUMNS", "200"}});
  EXPECT_NE(wide.out.find("(group type DMA-FQ): GPUDirect traffic is remapped or blocked\n"), std::string::npos)
      << wide.out;
  Output ascii = run({"node", "--root", translated_root()}, {{"LANG", "C"}});
  for (unsigned char c : ascii.out) ASSERT_LT(c, 0x80) << ascii.out;
  EXPECT_NE(ascii.out.find("GPU0-7, mlx5_0-11 (20)"), std::string::npos) << ascii.out;
}

// topo, analyze, bench and cluster follow node's conventions: colour only
// when asked or on a terminal, ASCII in a C locale, prose within $COLUMNS.
TEST(OutputCli, TopoColourAndAsciiLikeNode) {
  std::string root = translated_root();
  EXPECT_EQ(run({"topo", "--root", root}, kUtf8).out.find('\033'), std::string::npos);
  Output always = run({"topo", "--root", root, "--color", "always"}, {{"NO_COLOR", "1"}, {"LANG", "C.UTF-8"}});
  EXPECT_NE(always.out.find("\033["), std::string::npos) << always.out;
  Output ascii = run({"topo", "--root", root}, {{"LANG", "C"}});
  EXPECT_EQ(ascii.exit_code, 0) << ascii.err;
  for (unsigned char c : ascii.out) ASSERT_LT(c, 0x80) << ascii.out;
  EXPECT_EQ(run({"topo", "--root", root, "--color", "sometimes"}, kUtf8).exit_code, 64);
}

TEST(OutputCli, AnalyzeProseWithinColumnsAndAscii) {
  std::string log = std::string(GDRCHECK_TEST_DATA) + "/nccl-logs/nccl-1053-socket-ib-disabled-lo.log";
  Output narrow = run({"analyze", log}, {{"LANG", "C"}, {"COLUMNS", "60"}});
  EXPECT_EQ(narrow.exit_code, 2) << narrow.err;
  EXPECT_NE(narrow.out.find("GPUDirect RDMA: no -- network traffic is"), std::string::npos) << narrow.out;
  std::istringstream lines(narrow.out);
  for (std::string l; std::getline(lines, l);) {
    for (unsigned char c : l) ASSERT_LT(c, 0x80) << l;
    bool one_long_word = l.find(' ', l.find_first_not_of(' ')) == std::string::npos;
    if (!one_long_word) {
      EXPECT_LE(display_width(l), 60u) << l;
    }
  }
  Output wide = run({"analyze", log}, {{"LANG", "C.UTF-8"}, {"COLUMNS", "1000"}});
  EXPECT_NE(wide.out.find("NCCL_IB_DISABLE=1 set by environment (line 3, 7)\n"), std::string::npos) << wide.out;
}

TEST(OutputCli, ListChecks) {
  Output r = run({"--list-checks"}, kUtf8);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* id : {"gpu", "nic", "port", "peermem", "path", "acs", "iommu", "link", "nccl", "driver", "manifest"})
    EXPECT_NE(r.out.find(std::string("\n") + id + " "), std::string::npos) << id << "\n" << r.out;
}

TEST(OutputCli, SitePolicyChangesTheVerdictAndSaysSo) {
  std::string policy = write_policy(
      R"({"schema":"gdrcheck.policy/1","overrides":[{"check":"iommu","status":"WARNING","why":"VMs need the IOMMU"}]})");
  Output r = run({"node", "--root", translated_root(), "--policy", policy}, {{"LANG", "C.UTF-8"}, {"COLUMNS", "1000"}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("WARNING by site policy (" + policy + "): VMs need the IOMMU; was CRITICAL"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("; 20 changed by site policy"), std::string::npos) << r.out;
  Output json = run({"node", "--root", translated_root(), "--policy", policy, "--json"}, kUtf8);
  EXPECT_NE(json.out.find("\"WARNING by site policy (" + policy), std::string::npos);
}

TEST(OutputCli, BrokenPolicyIsAnErrorNamingTheFile) {
  std::string policy = write_policy(R"({"schema":"gdrcheck.policy/1","overrides":[{"check":"iommu","status":"OK"}]})");
  Output r = run({"node", "--root", translated_root(), "--policy", policy}, kUtf8);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(policy + ": overrides[0] has no \"why\""), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  Output missing = run({"node", "--root", translated_root(), "--policy", "/nonexistent/policy.json"}, kUtf8);
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("/nonexistent/policy.json: not found"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gdrcheck

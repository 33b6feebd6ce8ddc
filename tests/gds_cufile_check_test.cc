// gds.cufile: the shipped configuration (tests/data/gds/PROVENANCE.md),
// settings that turn the direct path off, and configurations that are
// missing, unreadable or not JSON.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "checks/gds_checks.h"

#include "node_checks.h"

namespace gdrcheck {
namespace {

using testing::find_subject;

GdsState with_file(const std::string& text, const std::string& path = "/etc/cufile.json") {
  GdsState g;
  g.cufile_path = path;
  g.cufile_text = text;
  g.cufile_searched = {path};
  return g;
}

std::vector<Finding> judged(const std::string& text) {
  GdsState g = with_file(text);
  return check_gds_cufile(g, parse_cufile_config(text, "/etc/cufile.json"));
}

TEST(GdsCufileCheck, TheShippedFileAllowsCompatModeSilently) {
  std::ifstream in(std::string(GDRCHECK_TEST_DATA) + "/gds/cufile-shipped.json");
  std::stringstream s;
  s << in.rdbuf();
  GdsState g = with_file(s.str(), "/usr/local/cuda/gds/cufile.json");
  auto f = check_gds_cufile(g, parse_cufile_config(s.str(), "/usr/local/cuda/gds/cufile.json"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Ok);
  EXPECT_NE(f[0].summary.find("falls back to host memory silently"), std::string::npos);
  // The line of the key, not of a comment that mentions it.
  EXPECT_EQ(f[0].evidence[0], "/usr/local/cuda/gds/cufile.json:46: \"allow_compat_mode\": true");
}

TEST(GdsCufileCheck, ForcedCompatModeIsCriticalWithItsLine) {
  auto f =
      judged("{\n  // \"force_compat_mode\": false\n  \"properties\": {\n    \"force_compat_mode\": true\n  }\n}\n");
  const Finding* c = find_subject(f, "compat");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, Status::Critical);
  EXPECT_EQ(c->evidence[0], "/etc/cufile.json:4: \"force_compat_mode\": true");
}

TEST(GdsCufileCheck, SettingsThatHalfEnableOrDenyAreWarnings) {
  auto f = judged(R"({"properties": {"use_pci_p2pdma": true, "allow_compat_mode": false},
                      "denylist": {"filesystems": ["lustre"]}})");
  EXPECT_EQ(find_subject(f, "compat")->status, Status::Ok);
  EXPECT_NE(find_subject(f, "compat")->summary.find("fails instead of falling back"), std::string::npos);
  EXPECT_EQ(find_subject(f, "p2pdma")->status, Status::Warning);
  EXPECT_EQ(find_subject(f, "denylist")->status, Status::Warning);
  EXPECT_NE(find_subject(f, "denylist")->summary.find("filesystems: lustre"), std::string::npos);
  auto routes = judged(R"({"block": {"nvme": {"use_pci_p2pdma": true}}})");
  EXPECT_EQ(find_subject(routes, "p2pdma")->status, Status::Warning);
  auto both = judged(R"({"properties": {"use_pci_p2pdma": true}, "block": {"nvme": {"use_pci_p2pdma": true}}})");
  EXPECT_EQ(find_subject(both, "p2pdma")->status, Status::Ok);
  EXPECT_EQ(find_subject(judged(R"({"properties": {"force_compat_mode": "no"}})"), "types")->status, Status::Warning);
}

TEST(GdsCufileCheck, AFileThatIsNotJsonMeansDefaults) {
  auto f = judged("{\n  \"properties\": {\n    \"allow_compat_mode\": false,\n  }\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Warning);
  EXPECT_NE(f[0].summary.find("built-in defaults"), std::string::npos);
  EXPECT_NE(f[0].evidence[0].find("line 4"), std::string::npos) << f[0].evidence[0];
}

TEST(GdsCufileCheck, MissingUnreadableOrAmbiguousIsUnknown) {
  GdsState none;
  none.cufile_searched = {"/etc/cufile.json: not found", "/usr/local/cuda/gds/cufile.json: not found"};
  auto f = check_gds_cufile(none, std::nullopt);
  EXPECT_EQ(f.at(0).status, Status::Unknown);
  EXPECT_EQ(f[0].evidence.size(), 2u);
  GdsState denied;
  denied.cufile_path = "/etc/cufile.json";
  denied.cufile_problem = "permission denied";
  EXPECT_NE(check_gds_cufile(denied, std::nullopt).at(0).summary.find("permission denied"), std::string::npos);
  auto twice = judged(R"({"properties": {"force_compat_mode": false, "force_compat_mode": true}})");
  EXPECT_EQ(twice.at(0).status, Status::Unknown);
}

}  // namespace
}  // namespace gdrcheck

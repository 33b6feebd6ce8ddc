#include "snapshot/site_capture_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"
#include "snapshot/root_capture.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

void write_under_root(const std::string& root, const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(root + path).parent_path());
  std::ofstream(root + path) << text;
}

// A host whose NCCL lives where only its ld.so.conf says, with a topology
// file named in /etc/nccl.conf.
std::string site_root(const std::string& topo_file, const std::string& topo_text) {
  std::string root = testing::scratch_dir() + "/site-root";
  fs::remove_all(root);
  write_under_root(root, "/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  write_under_root(root, "/etc/ld.so.conf.d/site-nccl.conf", "# site NCCL\n/opt/site/nccl-2.21/lib\n/usr/lib64\n");
  write_under_root(root, "/opt/site/nccl-2.21/lib/libnccl.so.2.21.5", std::string(4096, 'x'));
  write_under_root(root, "/opt/site/nccl-2.21/lib/libnccl-net-site.so", "NCCL_PLUGIN_SYMBOL ncclNetPlugin_v8");
  write_under_root(root, "/opt/site/nccl-2.21/lib/libcudart.so.12", "not captured");
  write_under_root(root, "/etc/nccl.conf", "NCCL_TOPO_FILE=" + topo_file + "\n");
  write_under_root(root, topo_file, topo_text);
  return root;
}

const CapturedEntry* entry(const RootCapture& c, const std::string& path) {
  auto it = std::find_if(c.entries.begin(), c.entries.end(), [&](const CapturedEntry& e) { return e.path == path; });
  return it == c.entries.end() ? nullptr : &*it;
}

TEST(SiteCaptureRules, LoaderFoldersAndTheTopologyFileOfThisHost) {
  std::string root = site_root("/opt/site/topo/h100.xml", "<system version=\"1\"></system>\n");
  auto rules = site_capture_rules(Root(root));
  std::vector<std::string> patterns;
  for (const auto& r : rules) patterns.push_back(r.pattern);
  EXPECT_NE(std::find(patterns.begin(), patterns.end(), "opt/site/nccl-2.21/lib/libnccl.so*"), patterns.end());
  // /usr/lib64 is on the fixed list already.
  for (const auto& p : patterns) EXPECT_FALSE(p.starts_with("usr/lib64")) << p;

  RootCapture c = capture_root(root);
  const CapturedEntry* lib = entry(c, "opt/site/nccl-2.21/lib/libnccl.so.2.21.5");
  ASSERT_NE(lib, nullptr);
  EXPECT_TRUE(lib->name_only);
  ASSERT_NE(entry(c, "opt/site/nccl-2.21/lib/libnccl-net-site.so"), nullptr);
  EXPECT_EQ(entry(c, "opt/site/nccl-2.21/lib/libcudart.so.12"), nullptr);
  const CapturedEntry* topo = entry(c, "opt/site/topo/h100.xml");
  ASSERT_NE(topo, nullptr);
  EXPECT_EQ(topo->data, "<system version=\"1\"></system>\n");
}

TEST(SiteCaptureRules, ATopologySettingNamingAnotherFileCapturesNothing) {
  std::string root = site_root("/etc/secret", "root:$6$abc:19000:0:99999:7:::\n");
  RootCapture c = capture_root(root);
  EXPECT_EQ(entry(c, "etc/secret"), nullptr);
  auto missing =
      std::find_if(c.missing.begin(), c.missing.end(), [](const MissingEntry& m) { return m.path == "/etc/secret"; });
  ASSERT_NE(missing, c.missing.end());
  EXPECT_EQ(missing->why, "named by a setting but not XML; not captured");
}

TEST(SiteCaptureRules, NoConfigurationAddsNothing) {
  std::string root = testing::scratch_dir() + "/bare-root";
  fs::remove_all(root);
  fs::create_directories(root + "/sys");
  EXPECT_TRUE(site_capture_rules(Root(root)).empty());
  write_under_root(root, "/etc/nccl.conf", "NCCL_TOPO_FILE=relative/topo.xml\n");
  EXPECT_TRUE(site_capture_rules(Root(root)).empty());  // only an absolute path names the node's file
}

TEST(SiteCaptureRules, LiteralPatternsEscapeWildcards) {
  EXPECT_EQ(literal_pattern("/opt/a[1]/lib*?"), "opt/a\\[1]/lib\\*\\?");
  EXPECT_TRUE(capture_pattern_matches(literal_pattern("/opt/a[1]/x"), "opt/a[1]/x"));
  EXPECT_FALSE(capture_pattern_matches(literal_pattern("/opt/a[1]/x"), "opt/a1/x"));
}

}  // namespace
}  // namespace gdrcheck

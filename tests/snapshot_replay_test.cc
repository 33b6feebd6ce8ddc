// A snapshot replayed with --root FILE.tar.gz gives the report the root
// itself gives, and a snapshot of this machine holds only what the
// capture list allows — never /proc/<pid>, /home or anything else.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/root.h"
#include "recorded_fixtures.h"
#include "run_binary.h"
#include "snapshot/capture_list.h"
#include "snapshot/site_capture_rules.h"

namespace gdrcheck {
namespace {

using testing::run_gdrcheck;

// The tarball's entry names, and the manifest's text.
std::vector<std::string> entries_of(const std::string& tarball, std::string* manifest) {
  std::vector<std::string> names;
  archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  EXPECT_EQ(archive_read_open_filename(a, tarball.c_str(), 65536), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(e);
    names.push_back(name);
    if (name == "gdrcheck-snapshot.json") {
      manifest->resize(static_cast<std::size_t>(archive_entry_size(e)));
      archive_read_data(a, manifest->data(), manifest->size());
    }
  }
  archive_read_free(a);
  return names;
}

nlohmann::json replayed_node_json(const std::string& root) {
  auto r = run_gdrcheck({"node", "--root", root, "--json"});
  auto j = nlohmann::json::parse(r.out);
  j.erase("generated_at");
  j.erase("root");
  return j;
}

std::string snapshot_of(const std::string& root) {
  std::string out = testing::scratch_dir() + "/node.tar.gz";
  auto r = run_gdrcheck({"snapshot", "--root", root, "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

void expect_same_report(const std::string& root) {
  std::string tarball = snapshot_of(root);
  EXPECT_EQ(replayed_node_json(root), replayed_node_json(tarball));
}

TEST(SnapshotReplay, ExampleRootGivesTheSameReport) {
  expect_same_report(GDRCHECK_EXAMPLE_ROOT);
}

TEST(SnapshotReplay, PortDownVariantGivesTheSameReport) {
  expect_same_report(testing::node_root("dgx-h100", {"port-down"}));
}

TEST(SnapshotReplay, PeermemMissingVariantGivesTheSameReport) {
  expect_same_report(testing::node_root("dgx-h100", {"peermem-missing"}));
}

TEST(SnapshotReplay, ExistingOutputIsNeverOverwritten) {
  std::string tarball = snapshot_of(GDRCHECK_EXAMPLE_ROOT);
  auto r = run_gdrcheck({"snapshot", "--root", GDRCHECK_EXAMPLE_ROOT, "-o", tarball});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("already exists; not overwritten"), std::string::npos);
}

TEST(SnapshotReplay, LiveMachineHoldsOnlyListedPaths) {
  std::string tarball = snapshot_of("/");
  std::string manifest_text;
  auto names = entries_of(tarball, &manifest_text);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], "gdrcheck-snapshot.json");
  // The fixed list and what this machine's ld.so.conf and nccl.conf add.
  const CaptureList list = host_capture_list(Root("/"));
  for (std::size_t i = 1; i < names.size(); ++i) {
    const std::string& n = names[i];
    EXPECT_TRUE(list.rule_for(n) || list.may_hold(n)) << n << " is not on the capture list";
    EXPECT_FALSE(n.rfind("home", 0) == 0 || n.rfind("root", 0) == 0) << n;
    if (n.rfind("proc/", 0) == 0) {
      EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(n[5]))) << n;
    }
    EXPECT_EQ(n.find("environ"), std::string::npos) << n;
  }
  auto m = nlohmann::json::parse(manifest_text);
  EXPECT_EQ(m["schema"], "gdrcheck.snapshot/1");
  EXPECT_TRUE(m["uid"].is_number());
  EXPECT_EQ(m["captured"].size(), names.size() - 1);
  // No NVIDIA driver on a test machine: said, not silently absent.
  bool driver_missing = false;
  for (const auto& miss : m["missing"])
    driver_missing =
        driver_missing || miss["path"] == "/proc/driver/nvidia/version" || miss["path"] == "/proc/driver/nvidia";
  EXPECT_TRUE(driver_missing) << m["missing"].dump();
}

}  // namespace
}  // namespace gdrcheck

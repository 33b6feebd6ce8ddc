// `gdrcheck gds` on roots built from tests/data/nodes/gds-server.json and
// its variants: each case the GDS checks must tell apart, end to end
// through the real binary (docs/fixtures.md lists the variants).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_root;
using testing::run_gdrcheck;

json gds_fixture_json(const std::vector<std::string>& variants, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"gds", "--json", "--root", node_root("gds-server", variants)};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_gdrcheck(args);
  EXPECT_TRUE(r.err.empty()) << r.err;
  return json::parse(r.out);
}

// The one finding of `check` about `subject`; null json when none.
json finding_in(const json& report, const std::string& check, const std::string& subject) {
  for (const auto& f : report["findings"])
    if (f["check"] == check && f["subject"] == subject) return f;
  return json();
}

TEST(GdsFixture, DrivesBelowTheGpusSwitchesOnMdRaid0AreAllOk) {
  json j = gds_fixture_json({});
  EXPECT_EQ(j["status"], "OK") << j.dump(1);
  json nvme0 = finding_in(j, "gds.placement", "nvme0");
  ASSERT_FALSE(nvme0.is_null()) << j.dump(1);
  EXPECT_EQ(nvme0["status"], "OK");
  EXPECT_NE(nvme0["summary"].get<std::string>().find("shares a PCIe switch with GPU0 (PIX)"), std::string::npos)
      << nvme0["summary"];
  EXPECT_NE(finding_in(j, "gds.placement", "nvme1")["summary"].get<std::string>().find("GPU1 (PIX)"),
            std::string::npos);
  json raid = finding_in(j, "gds.mount", "/raid");
  ASSERT_FALSE(raid.is_null());
  EXPECT_EQ(raid["status"], "OK");
  EXPECT_NE(raid["summary"].get<std::string>().find("md RAID raid0"), std::string::npos) << raid["summary"];
  // The node checks' judgements on the drives' paths, in the gds family.
  EXPECT_EQ(finding_in(j, "gds.iommu", "nvme0")["status"], "OK");
  EXPECT_EQ(finding_in(j, "gds.link", "nvme0")["status"], "OK");
  bool acs = false;
  for (const auto& f : j["findings"]) acs |= f["check"] == "gds.acs";
  EXPECT_TRUE(acs) << "the switch ports between each GPU and its drive are judged";
}

TEST(GdsFixture, ADriveOnTheOtherSocketIsAWarning) {
  json j = gds_fixture_json({"nvme-other-socket"});
  json nvme2 = finding_in(j, "gds.placement", "nvme2");
  ASSERT_FALSE(nvme2.is_null()) << j.dump(1);
  EXPECT_EQ(nvme2["status"], "WARNING");
  EXPECT_NE(nvme2["summary"].get<std::string>().find("SYS"), std::string::npos);
  EXPECT_EQ(j["status"], "WARNING");
}

TEST(GdsFixture, NvidiaFsMissingLeavesTheRaidWithoutARoute) {
  json j = gds_fixture_json({"nvidia-fs-missing"});
  EXPECT_EQ(finding_in(j, "gds.driver", "host")["status"], "WARNING");
  json raid = finding_in(j, "gds.mount", "/raid");
  EXPECT_EQ(raid["status"], "WARNING");
  EXPECT_NE(raid["summary"].get<std::string>().find("nvidia-fs is not loaded"), std::string::npos);
}

TEST(GdsFixture, TheP2pdmaRouteServesXfsOnNvmeWithoutNvidiaFs) {
  json j = gds_fixture_json({"p2pdma-route"});
  json data = finding_in(j, "gds.mount", "/data");
  EXPECT_EQ(data["status"], "OK") << data.dump(1);
  EXPECT_EQ(finding_in(j, "gds.cufile", "p2pdma")["status"], "OK");  // both keys set
}

TEST(GdsFixture, TheP2pdmaRoutesPrerequisitesGoodBadAndUnknown) {
  json good = gds_fixture_json({"p2pdma-route"});
  for (const char* subject : {"kernel", "driver", "multipath", "registry"})
    EXPECT_EQ(finding_in(good, "gds.p2pdma", subject)["status"], "OK") << subject << good.dump(1);
  json bad = gds_fixture_json({"p2pdma-route", "p2pdma-unready"});
  for (const char* subject : {"kernel", "driver", "multipath", "registry"})
    EXPECT_EQ(finding_in(bad, "gds.p2pdma", subject)["status"], "WARNING") << subject << bad.dump(1);
  EXPECT_NE(finding_in(bad, "gds.p2pdma", "driver")["summary"].get<std::string>().find("proprietary"),
            std::string::npos);
  json unknown = gds_fixture_json({"p2pdma-route", "p2pdma-unknown"});
  EXPECT_EQ(finding_in(unknown, "gds.p2pdma", "kernel")["status"], "UNKNOWN");
  EXPECT_EQ(finding_in(unknown, "gds.p2pdma", "multipath")["status"], "UNKNOWN");
  // Not judged when cufile.json leaves the route off.
  const json base = gds_fixture_json({});  // named: a range over a temporary's member would dangle
  for (const auto& f : base["findings"]) EXPECT_NE(f["check"], "gds.p2pdma");
}

TEST(GdsFixture, StorageNicsCufileIsToldToUse) {
  json j = gds_fixture_json({"rdma-storage"});
  json listed = finding_in(j, "gds.rdma", "192.168.50.11");
  EXPECT_EQ(listed["status"], "OK") << j.dump(1);
  EXPECT_NE(listed["summary"].get<std::string>().find("mlx5_0 port 1 (ACTIVE), nearest GPU0 (PIX)"), std::string::npos)
      << listed["summary"];
  EXPECT_EQ(finding_in(j, "gds.rdma", "192.168.60.7")["status"], "UNKNOWN");  // no GID, no address list
  EXPECT_EQ(finding_in(j, "gds.iommu", "mlx5_0")["status"], "OK");            // the NIC's own path is judged

  json recorded = gds_fixture_json({"rdma-storage", "rdma-addresses-recorded"});
  json plain = finding_in(recorded, "gds.rdma", "192.168.60.7");
  EXPECT_EQ(plain["status"], "WARNING") << recorded.dump(1);
  EXPECT_NE(plain["summary"].get<std::string>().find("eno1, which is not an RDMA NIC"), std::string::npos);
  json foreign = finding_in(recorded, "gds.rdma", "10.9.9.9");
  EXPECT_EQ(foreign["status"], "WARNING");
  EXPECT_NE(foreign["summary"].get<std::string>().find("not an address of this host"), std::string::npos);

  json down = finding_in(gds_fixture_json({"rdma-storage", "rdma-port-down"}), "gds.rdma", "192.168.50.11");
  EXPECT_EQ(down["status"], "WARNING");
  EXPECT_NE(down["summary"].get<std::string>().find("not ACTIVE"), std::string::npos);
  const json base = gds_fixture_json({});
  for (const auto& f : base["findings"]) {  // no list, no user-space RDMA: neither is judged
    EXPECT_NE(f["check"], "gds.rdma");
    EXPECT_NE(f["check"], "gds.peermem");
  }
}

TEST(GdsFixture, UserSpaceRdmaWithoutPeerMemory) {
  json j = gds_fixture_json({"wekafs-no-peermem"});
  json weka = finding_in(j, "gds.mount", "/mnt/weka");
  EXPECT_EQ(weka["status"], "WARNING") << j.dump(1);
  EXPECT_NE(weka["summary"].get<std::string>().find("nvidia-peermem"), std::string::npos);
  json peermem = finding_in(j, "gds.peermem", "host");
  ASSERT_FALSE(peermem.is_null()) << j.dump(1);
  EXPECT_NE(peermem["status"], "OK");
}

TEST(GdsFixture, ForcedCompatModeIsCritical) {
  json j = gds_fixture_json({"compat-forced"});
  EXPECT_EQ(finding_in(j, "gds.cufile", "compat")["status"], "CRITICAL");
  EXPECT_EQ(j["status"], "CRITICAL");
}

TEST(GdsFixture, ACufileWithCommentsAndASyntaxErrorIsNamedWithItsLine) {
  json j = gds_fixture_json({"cufile-syntax-error"});
  bool named = false;
  for (const auto& f : j["findings"])
    if (f["check"] == "gds.cufile" && f["status"] == "WARNING")
      named |= f["summary"].get<std::string>().find("line 6") != std::string::npos ||
               f.dump().find("line 6") != std::string::npos;
  EXPECT_TRUE(named) << j.dump(1);
}

TEST(GdsFixture, Ext4WithoutExplicitOrderedAndLvmBreakTheDirectPath) {
  json ext4 = finding_in(gds_fixture_json({"ext4-implicit-ordered"}), "gds.mount", "/raid");
  EXPECT_EQ(ext4["status"], "WARNING");
  EXPECT_NE(ext4["summary"].get<std::string>().find("data=ordered"), std::string::npos);
  json lvm = finding_in(gds_fixture_json({"lvm-volume"}), "gds.mount", "/raid");
  EXPECT_EQ(lvm["status"], "WARNING");
  EXPECT_NE(lvm["summary"].get<std::string>().find("LVM logical volume"), std::string::npos) << lvm.dump(1);
}

TEST(GdsFixture, ALustreMountGoesDirectOverLnetThroughItsRdmaNics) {
  json j = gds_fixture_json({"lustre-mount"});
  json lustre = finding_in(j, "gds.mount", "/lustre");
  EXPECT_EQ(lustre["status"], "OK") << j.dump(1);
  EXPECT_NE(lustre["summary"].get<std::string>().find("Lustre over LNet"), std::string::npos);
  json ni = finding_in(j, "gds.lnet", "10.10.0.21@o2ib");
  EXPECT_EQ(ni["status"], "OK") << j.dump(1);
  EXPECT_NE(ni["summary"].get<std::string>().find("mlx5_0 port 1 (ACTIVE), nearest GPU0 (PIX)"), std::string::npos)
      << ni["summary"];
  EXPECT_NE(finding_in(j, "gds.lnet", "10.10.0.22@o2ib")["summary"].get<std::string>().find("GPU1 (PIX)"),
            std::string::npos);
  json tcp = finding_in(gds_fixture_json({"lustre-mount", "lustre-over-tcp"}), "gds.lnet", "lnet");
  EXPECT_EQ(tcp["status"], "WARNING");
  EXPECT_NE(tcp["summary"].get<std::string>().find("TCP only"), std::string::npos);
  EXPECT_EQ(finding_in(gds_fixture_json({"lustre-mount", "lustre-lnet-unknown"}), "gds.lnet", "lnet")["status"],
            "UNKNOWN");
  const json base = gds_fixture_json({});
  for (const auto& f : base["findings"]) EXPECT_NE(f["check"], "gds.lnet");  // no Lustre mount
}

TEST(GdsFixture, PathJudgesTheMountThatHoldsIt) {
  json j = gds_fixture_json({}, {"--path", "/raid/imagenet"});
  json raid = finding_in(j, "gds.mount", "/raid");
  EXPECT_EQ(raid["status"], "OK");
  EXPECT_EQ(raid["summary"].get<std::string>().rfind("/raid/imagenet: ", 0), 0u) << raid["summary"];
  EXPECT_TRUE(finding_in(j, "gds.mount", "other mounts").is_null());  // only the mount holding the path
  auto missing = run_gdrcheck({"gds", "--root", node_root("gds-server"), "--path", "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("/nonexistent: not found in the root"), std::string::npos) << missing.err;
}

TEST(GdsFixture, NodeGdsAddsTheSameFindingsToTheNodeReport) {
  const std::string root = node_root("gds-server", {"compat-forced"});
  auto plain = run_gdrcheck({"node", "--json", "--root", root});
  json without = json::parse(plain.out);
  for (const auto& f : without["findings"])
    EXPECT_NE(f["check"].get<std::string>().rfind("gds.", 0), 0u) << "gds findings only with --gds";
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  auto with_gds = run_gdrcheck({"node", "--json", "--gds", "--root", root});
  json j = json::parse(with_gds.out);
  EXPECT_EQ(with_gds.exit_code, 2);  // forced compat mode is CRITICAL in the node report too
  EXPECT_EQ(finding_in(j, "gds.cufile", "compat")["status"], "CRITICAL");
  EXPECT_EQ(finding_in(j, "gds.placement", "nvme0")["status"], "OK");
  EXPECT_TRUE(finding_in(j, "gds.gpu", "host").is_null());
  // The findings are those of `gdrcheck gds` on the same root.
  json gds = gds_fixture_json({"compat-forced"});
  for (const auto& f : gds["findings"]) {
    json in_node = finding_in(j, f["check"], f["subject"]);
    in_node.erase("affects");  // the node report also names the GPUs and drives a bridge is on
    EXPECT_EQ(in_node, f) << f.dump();
  }
  auto refused = run_gdrcheck({"node", "--gds", "--topo", testing::test_data("pairs/PROVENANCE.md")});
  EXPECT_EQ(refused.exit_code, 64) << refused.err;
}

}  // namespace
}  // namespace gdrcheck

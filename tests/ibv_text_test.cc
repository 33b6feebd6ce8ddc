// Tests for the pasted ibstat / ibv_devinfo reader. The real outputs in
// tests/data/ibv were posted publicly (see PROVENANCE.md); each test checks
// facts read off that paste by eye.
#include "evidence/ibv_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

std::string ibv_output(const std::string& name) {
  return testing::read_test_data("ibv/" + name);
}

IbvReport load_ibv(const std::string& name) {
  return parse_ibv_text(ibv_output(name));
}

// ---------------------------------------------------------- real outputs

TEST(IbvTextReal, L2fwdIbstatTwoRoceCas) {
  IbvReport r = load_ibv("l2fwd-nv-6-ibstat-roce-2ca.txt");
  EXPECT_EQ(r.kind, IbvKind::Ibstat);
  ASSERT_EQ(r.devices.size(), 2u);
  const IbvDevice& d = r.devices[1];
  EXPECT_EQ(d.name, "mlx5_1");
  EXPECT_EQ(d.ca_type, "MT4125");
  EXPECT_EQ(d.fw, "22.32.2004");
  EXPECT_EQ(d.node_guid, "0c42:a103:001d:d12b");
  ASSERT_EQ(d.ports.size(), 1u);
  const IbvPort& p = d.ports[0];
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.state_raw, "Active");
  EXPECT_EQ(p.physical_state, "LinkUp");
  EXPECT_EQ(p.rate_gbps, 100.0);
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.lid, 0);
  EXPECT_EQ(p.sm_lid, 0);
  EXPECT_EQ(p.port_guid, "0e42:a1ff:fe1d:d12b");
  EXPECT_TRUE(r.notes.empty());
}

TEST(IbvTextReal, DeepEp303IbstatNdr400Cut) {
  IbvReport r = load_ibv("deepep-303-ibstat-ndr-400-cut.txt");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].ca_type, "MT4129");
  EXPECT_EQ(r.devices[0].fw, "28.43.2026");
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 400.0);
  EXPECT_EQ(r.devices[0].ports[0].lid, 50);
  EXPECT_EQ(r.devices[1].ports[0].lid, 49);
  EXPECT_EQ(r.devices[1].ports[0].link_layer, "InfiniBand");
  // The paste stops after mlx5_2's physical state: no rate, no link layer.
  const IbvPort& cut = r.devices[2].ports[0];
  EXPECT_EQ(cut.state, "ACTIVE");
  EXPECT_EQ(cut.physical_state, "LinkUp");
  EXPECT_FALSE(cut.rate_gbps.has_value());
  EXPECT_EQ(cut.link_layer, "");
}

TEST(IbvTextReal, Gpud482DownPollingWithRedactedGuids) {
  IbvReport r = load_ibv("gpud-482-ibstat-down-polling-redacted.txt");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "mlx5_10");
  EXPECT_EQ(r.devices[0].node_guid, "...");  // redacted by the poster; kept as printed
  const IbvPort& p = r.devices[0].ports[0];
  EXPECT_EQ(p.state, "DOWN");
  EXPECT_EQ(p.physical_state, "Polling");
  EXPECT_EQ(p.rate_gbps, 10.0);  // a down port's default, not a real rate
  EXPECT_EQ(p.lid, 868);
  EXPECT_EQ(p.sm_lid, 334);
  EXPECT_TRUE(has_note(r, "not ACTIVE"));
}

TEST(IbvTextReal, Gpud99TrimmedAfterPhysicalState) {
  IbvReport r = load_ibv("gpud-99-ibstat-down-disabled-trimmed.txt");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].fw, "22.39.1002");
  EXPECT_EQ(r.devices[0].node_guid, "e8eb:d303:0033:07df");
  ASSERT_EQ(r.devices[0].ports.size(), 1u);
  EXPECT_EQ(r.devices[0].ports[0].state, "DOWN");
  EXPECT_EQ(r.devices[0].ports[0].physical_state, "Disabled");
  EXPECT_FALSE(r.devices[0].ports[0].rate_gbps.has_value());
}

TEST(IbvTextReal, Gpud752PartialOutputWithIbpanic) {
  IbvReport r = load_ibv("gpud-752-ibstat-partial-ibpanic.txt");
  // mlx5_8 is listed because ibstat said it could not read it: no ports.
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1].name, "mlx5_8");
  EXPECT_TRUE(r.devices[1].unreadable);
  EXPECT_TRUE(r.devices[1].ports.empty());
  EXPECT_FALSE(r.devices[0].unreadable);
  EXPECT_EQ(r.devices[0].name, "mlx5_7");
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 200.0);
  EXPECT_EQ(r.devices[0].ports[0].lid, 13305);
  EXPECT_TRUE(has_note(r, "stat of IB device 'mlx5_8' failed"));
}

// ibstat could not read a device that the same paste's ibstatus lists
// (before or after the ibpanic line): the listing stands, no placeholder.
TEST(IbvTextDamage, UnreadableDeviceListedByAnotherToolIsKnown) {
  for (bool panic_first : {true, false}) {
    std::string panic = "ibpanic: [1] main: stat of IB device 'mlx5_1' failed: No such file or directory\n";
    std::string listing =
        "Infiniband device 'mlx5_1' port 1 status:\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n";
    IbvReport r = parse_ibv_text(panic_first ? panic + listing : listing + panic);
    ASSERT_EQ(r.devices.size(), 1u) << panic_first;
    EXPECT_EQ(r.devices[0].name, "mlx5_1");
    ASSERT_EQ(r.devices[0].ports.size(), 1u);
    EXPECT_EQ(r.devices[0].ports[0].state, "ACTIVE");
  }
  // Unlisted, it stays, unreadable and without ports.
  IbvReport alone = parse_ibv_text(
      "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"
      "ibpanic: [1] main: stat of IB device 'mlx5_1' failed: No such file or directory\n");
  ASSERT_EQ(alone.devices.size(), 2u);
  EXPECT_TRUE(alone.devices[1].unreadable);
}

TEST(IbvTextReal, Mooncake1999RoceAndDisabledCa) {
  IbvReport r = load_ibv("mooncake-1999-ibstat-roce-and-disabled-cut.txt");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 200.0);
  EXPECT_EQ(r.devices[0].ports[0].link_layer, "Ethernet");
  EXPECT_EQ(r.devices[2].name, "mlx5_10");
  EXPECT_EQ(r.devices[2].ca_type, "MT4125");
  EXPECT_EQ(r.devices[2].ports[0].state, "DOWN");
  EXPECT_EQ(r.devices[2].ports[0].physical_state, "Disabled");
}

TEST(IbvTextReal, RdmaCore847DualPortMlx4WithIbwarnNoise) {
  IbvReport r = load_ibv("rdma-core-847-ibstat-mlx4-dual-port-ibwarn-cut.txt");
  ASSERT_EQ(r.devices.size(), 1u);
  const IbvDevice& d = r.devices[0];
  EXPECT_EQ(d.name, "mlx4_0");
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.ports[0].port, 1);
  EXPECT_EQ(d.ports[0].state, "DOWN");
  EXPECT_EQ(d.ports[0].physical_state, "Disabled");
  EXPECT_EQ(d.ports[0].lid, 38);
  EXPECT_EQ(d.ports[1].port, 2);
  EXPECT_EQ(d.ports[1].state, "ACTIVE");
  EXPECT_EQ(d.ports[1].rate_gbps, 56.0);  // 4X FDR
}

TEST(IbvTextReal, DeepEp60IbvDevinfoRoceDown) {
  IbvReport r = load_ibv("deepep-60-ibv-devinfo-roce-down-cut.txt");
  EXPECT_EQ(r.kind, IbvKind::IbvDevinfo);
  ASSERT_EQ(r.devices.size(), 2u);
  const IbvDevice& d = r.devices[0];
  EXPECT_EQ(d.name, "mlx5_12");
  EXPECT_EQ(d.fw, "22.38.1900");
  EXPECT_EQ(d.node_guid, "a088:c203:0030:9a0d");
  EXPECT_EQ(d.board_id, "MT_0000000436");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].state, "DOWN");
  EXPECT_EQ(d.ports[0].state_raw, "PORT_DOWN (1)");
  EXPECT_EQ(d.ports[0].active_mtu, 1024);
  EXPECT_EQ(d.ports[0].link_layer, "Ethernet");
  EXPECT_FALSE(d.ports[0].rate_gbps.has_value());  // plain ibv_devinfo prints no speed
  EXPECT_EQ(r.devices[1].name, "mlx5_13");
  EXPECT_EQ(r.devices[1].board_id, "MT_0000000838");
  EXPECT_TRUE(r.devices[1].ports.empty());  // cut before its port
}

TEST(IbvTextReal, DeepEp55StartsInsideADevice) {
  IbvReport r = load_ibv("deepep-55-ibv-devinfo-ib-starts-mid-device-cut.txt");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].name, "");  // its hca_id line is above the paste
  ASSERT_EQ(r.devices[0].ports.size(), 1u);
  EXPECT_EQ(r.devices[0].ports[0].lid, 1691);
  EXPECT_EQ(r.devices[1].name, "mlx5_3");
  EXPECT_EQ(r.devices[1].ports[0].port, 1);
  EXPECT_EQ(r.devices[1].ports[0].lid, 1690);
  EXPECT_EQ(r.devices[1].ports[0].sm_lid, 1);
  EXPECT_EQ(r.devices[2].name, "mlx5_4");
  EXPECT_TRUE(has_note(r, "device name unknown"));
}

TEST(IbvTextReal, HeioyBooksDualPortMlx4WithDevicePortsLine) {
  IbvReport r = load_ibv("heioy-books-ibv-devinfo-mlx4-dual-port.txt");
  ASSERT_EQ(r.devices.size(), 2u);
  for (const auto& d : r.devices) {
    ASSERT_EQ(d.ports.size(), 2u) << d.name;
    EXPECT_EQ(d.ports[0].state, "ACTIVE");
    EXPECT_EQ(d.ports[1].state, "DOWN");
    EXPECT_EQ(d.ports[1].port, 2);
    EXPECT_EQ(d.fw, "2.42.5000");
  }
  EXPECT_EQ(r.devices[0].name, "mlx4_1");
  EXPECT_EQ(r.devices[0].ports[0].lid, 22);
  EXPECT_EQ(r.devices[1].name, "mlx4_0");
  EXPECT_EQ(r.devices[1].node_guid, "e41d:2d03:00e0:c740");
  EXPECT_EQ(r.devices[1].ports[0].sm_lid, 18);
}

TEST(IbvTextReal, RxeSoftRoceWithoutLinkLayer) {
  IbvReport r = load_ibv("rxe-dev-46-ibv-devinfo-softroce-no-link-layer.txt");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "rxe0");
  EXPECT_EQ(r.devices[0].fw, "0.0.0");
  EXPECT_EQ(r.devices[0].ports[0].state, "ACTIVE");
  EXPECT_EQ(r.devices[0].ports[0].link_layer, "");
  EXPECT_EQ(r.devices[0].ports[0].active_mtu, 1024);
}

TEST(IbvTextReal, EveryRealFileIsDetected) {
  for (const char* name :
       {"l2fwd-nv-6-ibstat-roce-2ca.txt", "deepep-303-ibstat-ndr-400-cut.txt",
        "gpud-482-ibstat-down-polling-redacted.txt", "gpud-99-ibstat-down-disabled-trimmed.txt",
        "gpud-752-ibstat-partial-ibpanic.txt", "mooncake-1999-ibstat-roce-and-disabled-cut.txt",
        "rdma-core-847-ibstat-mlx4-dual-port-ibwarn-cut.txt", "deepep-60-ibv-devinfo-roce-down-cut.txt",
        "deepep-55-ibv-devinfo-ib-starts-mid-device-cut.txt", "heioy-books-ibv-devinfo-mlx4-dual-port.txt",
        "rxe-dev-46-ibv-devinfo-softroce-no-link-layer.txt"})
    EXPECT_TRUE(looks_like_ibv_text(ibv_output(name))) << name;
}

// ---------------------------------------------------- synthetic outputs

TEST(IbvTextSynthetic, VerboseWidthTimesSpeedGivesRate) {
  IbvReport r = load_ibv("synthetic-ibv-devinfo-v-ndr-ib-and-roce-down.txt");
  ASSERT_EQ(r.devices.size(), 2u);
  const IbvPort& ndr = r.devices[0].ports[0];
  EXPECT_EQ(ndr.width, "4X");
  EXPECT_EQ(ndr.speed, "100.0 Gbps");
  EXPECT_EQ(ndr.rate_gbps, 400.0);
  EXPECT_EQ(ndr.physical_state, "LinkUp");
  EXPECT_EQ(ndr.physical_state_raw, "LINK_UP (5)");
  const IbvPort& down = r.devices[1].ports[0];
  EXPECT_EQ(down.physical_state, "Polling");
  EXPECT_EQ(down.rate_gbps, 40.0);  // the 4X QDR default of a down RoCE port
  EXPECT_TRUE(has_note(r, "not ACTIVE"));
}

TEST(IbvTextSynthetic, GrepFilteredVerboseWithoutPortLines) {
  IbvReport r = load_ibv("synthetic-ibv-devinfo-v-grep-no-port-lines.txt");
  ASSERT_EQ(r.devices.size(), 2u);
  // mlx5_0 repeats the same keys: two ports, numbers unknown.
  ASSERT_EQ(r.devices[0].ports.size(), 2u);
  EXPECT_EQ(r.devices[0].ports[1].port, 0);
  EXPECT_EQ(r.devices[0].ports[1].rate_gbps, 200.0);  // 2X × 100 Gbps (NDR200)
  ASSERT_EQ(r.devices[1].ports.size(), 1u);
  EXPECT_EQ(r.devices[1].ports[0].state, "INIT");
  EXPECT_EQ(r.devices[1].ports[0].rate_gbps, 200.0);  // 4X × 50 Gbps (HDR)
  EXPECT_TRUE(has_note(r, "port numbers unknown"));
}

// ------------------------------------------------------------- quirks

TEST(IbvTextQuirks, StateAndPhysicalStateSpellings) {
  IbvReport r = parse_ibv_text(
      "hca_id: a\n port: 1\n state: PORT_INIT (2)\n phys_state: PORT_CONFIGURATION TRAINING (4)\n"
      " port: 2\n state: PORT_ARMED (3)\n phys_state: LINK_ERROR_RECOVERY (6)\n"
      " port: 3\n state: PORT_ACTIVE_DEFER (5)\n phys_state: SLEEP (1)\n"
      " port: 4\n state: weird (4)\n phys_state: unknown (7)\n");
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& p = r.devices[0].ports;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].state, "INIT");
  EXPECT_EQ(p[0].physical_state, "PortConfigurationTraining");
  EXPECT_EQ(p[1].state, "ARMED");
  EXPECT_EQ(p[1].physical_state, "LinkErrorRecovery");
  EXPECT_EQ(p[2].state, "ACTIVE_DEFER");
  EXPECT_EQ(p[2].physical_state, "Sleep");
  EXPECT_EQ(p[3].state, "ACTIVE");            // unknown word, number 4
  EXPECT_EQ(p[3].physical_state, "PhyTest");  // unknown word, number 7
  IbvReport s = parse_ibv_text("CA 'x'\n\tPort 1:\n\t\tState: Initializing\n\t\tPhysical state: LinkErrorRecovery\n");
  EXPECT_EQ(s.devices[0].ports[0].state, "INIT");
  EXPECT_EQ(s.devices[0].ports[0].physical_state, "LinkErrorRecovery");
}

TEST(IbvTextQuirks, SpeedNamesAndOddWidths) {
  IbvReport r = parse_ibv_text(
      "hca_id: a\n port: 1\n state: PORT_ACTIVE (4)\n active_width: 4X (2)\n active_speed: NDR\n"
      " port: 2\n state: PORT_ACTIVE (4)\n active_width: 1X (1)\n active_speed: 14.0 Gbps (16)\n"
      " port: 3\n state: PORT_ACTIVE (4)\n active_width: 12X (8)\n active_speed: 2.5 Gbps (1)\n"
      " port: 4\n state: PORT_ACTIVE (4)\n active_width: 4X (2)\n active_speed: invalid speed (0)\n");
  const auto& p = r.devices.at(0).ports;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].rate_gbps, 400.0);
  EXPECT_EQ(p[1].rate_gbps, 14.0);
  EXPECT_EQ(p[2].rate_gbps, 30.0);
  EXPECT_FALSE(p[3].rate_gbps.has_value());
}

TEST(IbvTextQuirks, IbstatRateForms) {
  IbvReport r = parse_ibv_text(
      "CA 'a'\n Port 1:\n  State: Active\n  Rate: 2.5\n Port 2:\n  State: Active\n  Rate: "
      "100 Gb/sec (4X EDR)\n Port 3:\n  State: Active\n  Rate: fast\n");
  const auto& p = r.devices.at(0).ports;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].rate_gbps, 2.5);
  EXPECT_EQ(p[1].rate_gbps, 100.0);
  EXPECT_FALSE(p[2].rate_gbps.has_value());
}

TEST(IbvTextQuirks, FlattenedMarkdownPasteReadsTheSame) {
  std::string tabs = ibv_output("heioy-books-ibv-devinfo-mlx4-dual-port.txt");
  std::string flat;
  for (char c : tabs)
    if (c != '\t') flat += c;
  IbvReport a = parse_ibv_text(tabs), b = parse_ibv_text(flat);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (std::size_t i = 0; i < a.devices.size(); ++i) {
    EXPECT_EQ(a.devices[i].name, b.devices[i].name);
    ASSERT_EQ(a.devices[i].ports.size(), b.devices[i].ports.size());
    for (std::size_t k = 0; k < a.devices[i].ports.size(); ++k)
      EXPECT_EQ(a.devices[i].ports[k].state, b.devices[i].ports[k].state);
  }
}

TEST(IbvTextQuirks, MailQuotedIbstat) {
  IbvReport r = parse_ibv_text(
      "> CA 'rxe0'\n>          CA type:\n>          Firmware version:\n>          Node GUID: 0x4a51c5fffef6e159\n"
      ">          Port 1:\n>                  State: Active\n>                  Rate: 2.5\n"
      ">                  Link layer: Ethernet\n");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "rxe0");
  EXPECT_EQ(r.devices[0].fw, "");
  EXPECT_EQ(r.devices[0].node_guid, "4a51:c5ff:fef6:e159");
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 2.5);
}

TEST(IbvTextQuirks, BothToolsInOneFile) {
  std::string text =
      ibv_output("l2fwd-nv-6-ibstat-roce-2ca.txt") + ibv_output("deepep-60-ibv-devinfo-roce-down-cut.txt");
  IbvReport r = parse_ibv_text(text);
  EXPECT_EQ(r.kind, IbvKind::Ibstat);
  EXPECT_EQ(r.devices.size(), 4u);
  EXPECT_TRUE(has_note(r, "also holds ibv_devinfo"));
}

TEST(IbvTextQuirks, PortsWithoutAnyDeviceLine) {
  IbvReport r = parse_ibv_text("\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "");
  ASSERT_EQ(r.devices[0].ports.size(), 1u);
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 400.0);
  EXPECT_TRUE(has_note(r, "device name unknown"));
}

// ------------------------------------------------------ garbage, limits

TEST(IbvTextGarbage, EmptyAndUnrelatedText) {
  EXPECT_TRUE(parse_ibv_text("").devices.empty());
  EXPECT_TRUE(has_note(parse_ibv_text("hello world\n"), "no ibstat"));
  EXPECT_FALSE(looks_like_ibv_text(""));
  EXPECT_FALSE(looks_like_ibv_text("# nThread 1 nGpus 1 minBytes 8\n"));
  EXPECT_FALSE(looks_like_ibv_text(" NVMe : Supported\n IOMMU: disabled\n"));
  EXPECT_FALSE(looks_like_ibv_text("state: running\n"));
}

// `ibstatus` prints one block per port; a second port joins its device.
TEST(IbvTextIbstatus, TwoPortsOfOneDevice) {
  IbvReport r = parse_ibv_text(
      "Infiniband device 'mlx4_0' port 1 status:\n"
      "\tdefault gid:\t fe80:0000:0000:0000:0002:c903:0031:fdc1\n"
      "\tbase lid:\t 0x1f\n"
      "\tsm lid:\t\t 0x1\n"
      "\tstate:\t\t 4: ACTIVE\n"
      "\tphys state:\t 5: LinkUp\n"
      "\trate:\t\t 40 Gb/sec (4X QDR)\n"
      "\tlink_layer:\t InfiniBand\n"
      "\n"
      "Infiniband device 'mlx4_0' port 2 status:\n"
      "\tstate:\t\t 1: DOWN\n"
      "\tphys state:\t 2: Polling\n");
  EXPECT_EQ(r.kind, IbvKind::Ibstatus);
  ASSERT_EQ(r.devices.size(), 1u);
  ASSERT_EQ(r.devices[0].ports.size(), 2u);
  EXPECT_EQ(r.devices[0].ports[0].lid, 31);
  EXPECT_EQ(r.devices[0].ports[0].sm_lid, 1);
  EXPECT_EQ(r.devices[0].ports[0].rate_gbps, 40.0);
  EXPECT_EQ(r.devices[0].ports[1].port, 2);
  EXPECT_EQ(r.devices[0].ports[1].state, "DOWN");
  EXPECT_EQ(r.devices[0].ports[1].physical_state, "Polling");
  EXPECT_FALSE(has_note(r, "also holds"));
}

// Inline-code backticks around the whole paste stick to its first and last
// lines.
TEST(IbvTextDamage, InlineCodeBackticks) {
  IbvReport r = parse_ibv_text("`CA 'mlx5_0'\nPort 1:\nState: Active\nLink layer: Ethernet`\n");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "mlx5_0");
  ASSERT_EQ(r.devices[0].ports.size(), 1u);
  EXPECT_EQ(r.devices[0].ports[0].link_layer, "Ethernet");
}

TEST(IbvTextGarbage, DeviceAndPortCaps) {
  std::string many;
  for (int i = 0; i < 1100; ++i) many += "CA 'd" + std::to_string(i) + "'\n";
  IbvReport r = parse_ibv_text(many);
  EXPECT_EQ(r.devices.size(), 1024u);
  EXPECT_TRUE(has_note(r, "more than 1024 devices"));
  std::string ports = "hca_id: x\n";
  for (int i = 0; i < 100; ++i) ports += " port: " + std::to_string(i % 200) + "\n state: PORT_ACTIVE (4)\n";
  IbvReport q = parse_ibv_text(ports);
  EXPECT_EQ(q.devices[0].ports.size(), 64u);
}

TEST(IbvTextGarbage, HostileValues) {
  IbvReport r = parse_ibv_text(
      "hca_id: x\n port: 99999999999999999999\n state: PORT_ACTIVE (99999999999999999999)\n"
      " active_width: 999999999999X (2)\n active_speed: 1e999 Gbps\n port_lid: -5\n node_guid: zz\n"
      "CA '\n CA ''\n Port -1:\n Port 1:x\n");
  ASSERT_FALSE(r.devices.empty());
  for (const auto& d : r.devices)
    for (const auto& p : d.ports) EXPECT_FALSE(p.rate_gbps.has_value());
}

TEST(IbvTextGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  std::string alphabet = "CA 'mlx5_0'\n\t:Port 1StateActivephys_statePORT_(4)Rate: 400XGbps.0123456789hca_id>";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 3000; ++i) text += alphabet[rng() % alphabet.size()];
    IbvReport r = parse_ibv_text(text);
    EXPECT_LE(r.devices.size(), 1024u);
    EXPECT_LE(r.notes.size(), 50u);
  }
}

}  // namespace
}  // namespace gdrcheck

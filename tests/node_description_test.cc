// The node-description loader: resolution of the shipped fixtures, the
// compact forms (defaults, repeats, variants), and error messages that name
// the file and the JSON path of the problem.
#include "fixture/node_description.h"

#include <gtest/gtest.h>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck::fixture {
namespace {

using gdrcheck::testing::test_data;

std::string node_file(const std::string& name) {
  return test_data("nodes/" + name + ".json");
}

const PciFunctionSpec& at(const NodeDescription& d, const std::string& bdf) {
  const PciFunctionSpec* f = d.find(*PciAddress::parse(bdf));
  if (!f) throw std::runtime_error("no function " + bdf);
  return *f;
}

const char* const kGpu = R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])";

// A minimal valid description; tests splice one bad piece into it.
std::string minimal(const std::string& pci_children = kGpu, const std::string& extra = "") {
  return R"({"hostname": "h", "kernel": "6.8.0", )" + extra +
         R"("pci": [{"host_bridge": "0000:01", "numa": 0, "children": [
             {"kind": "root_port", "bdf": "0000:01:01.0", "vendor": "0x8086", "device": "0x2030", "children": )" +
         pci_children + "}]}]}";
}

// The InputError message for a description text, or "" when it loads.
std::string error_of(const std::string& text, const std::vector<std::string>& variants = {}) {
  try {
    parse_node_description(text, "mem.json", variants);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mem.json");
    return e.what();
  }
  return "";
}

// ---- the shipped fixtures -------------------------------------------------------

TEST(NodeDescriptionFixtures, DgxH100NamesFollowTheUserGuide) {
  NodeDescription d = load_node_description(node_file("dgx-h100"));
  EXPECT_EQ(d.name, "dgx-h100");
  // ibp24s0 = mlx5_0 (GPU0) ... ibp220s0 = mlx5_11 (GPU7); storage NICs take 1/2 and 7/8.
  const std::vector<std::pair<std::string, std::string>> compute = {
      {"0000:18:00.0", "mlx5_0"}, {"0000:40:00.0", "mlx5_3"}, {"0000:4f:00.0", "mlx5_4"},  {"0000:5e:00.0", "mlx5_5"},
      {"0000:9a:00.0", "mlx5_6"}, {"0000:c0:00.0", "mlx5_9"}, {"0000:ce:00.0", "mlx5_10"}, {"0000:dc:00.0", "mlx5_11"}};
  for (const auto& [bdf, rdma] : compute) {
    EXPECT_EQ(at(d, bdf).nic.rdma, rdma) << bdf;
    EXPECT_EQ(at(d, bdf).nic.netdev, "ibp" + std::to_string(PciAddress::parse(bdf)->bus) + "s0") << bdf;
  }
  EXPECT_EQ(at(d, "0000:29:00.1").nic.rdma, "mlx5_2");
  EXPECT_EQ(at(d, "0000:29:00.1").nic.netdev, "enp41s0f1np1");
  EXPECT_EQ(at(d, "0000:aa:00.0").nic.rdma, "mlx5_7");
}

TEST(NodeDescriptionFixtures, DgxH100BusRangesAndIds) {
  NodeDescription d = load_node_description(node_file("dgx-h100"));
  const auto& rp = at(d, "0000:13:01.0");
  EXPECT_EQ(rp.kind, NodeKind::RootPort);
  EXPECT_EQ(rp.config.secondary_bus, 0x14);
  EXPECT_EQ(rp.config.subordinate_bus, 0x1b);
  const auto& sub = at(d, "0000:19:00.0");  // GPU0's virtual sub-switch
  EXPECT_EQ(sub.config.subsystem_device, 0x1003);
  const auto& dsp = at(d, "0000:1a:00.0");
  EXPECT_EQ(dsp.kind, NodeKind::DownstreamPort);
  EXPECT_EQ(dsp.config.device, 0xc030);  // inherited from its switch
  EXPECT_EQ(dsp.config.subsystem_device, 0x1003);
  ASSERT_TRUE(dsp.config.acs);
  EXPECT_EQ(dsp.config.acs->capability, 0x005f);
  EXPECT_EQ(dsp.config.acs->control, 0x0000);
  const auto& gpu = at(d, "0000:df:00.0");
  EXPECT_EQ(gpu.numa_node, 1);
  EXPECT_EQ(gpu.config.class_code, 0x030200u);
  EXPECT_EQ(gpu.driver, "nvidia");
  ASSERT_TRUE(gpu.config.pcie);
  EXPECT_EQ(gpu.config.pcie->link_cap.speed_code, 5);
  EXPECT_EQ(gpu.config.pcie->link_cap.width, 16);
  EXPECT_EQ(at(d, "0000:18:00.0").config.class_code, 0x020700u);  // InfiniBand
  EXPECT_EQ(at(d, "0000:29:00.0").config.class_code, 0x020000u);  // Ethernet
  // The NVSwitch downstream ports are siblings: one bus, device numbers stepped.
  EXPECT_EQ(at(d, "0000:e5:03.0").config.secondary_bus, 0xe9);
  EXPECT_EQ(at(d, "0000:e9:00.0").kind, NodeKind::NvSwitch);
}

TEST(NodeDescriptionFixtures, GroupsGuidsAndGids) {
  NodeDescription d = load_node_description(node_file("dgx-h100"));
  std::set<int> groups;
  for (const auto* f : d.functions()) {
    ASSERT_TRUE(f->iommu_group) << f->address.str();
    EXPECT_TRUE(groups.insert(*f->iommu_group).second) << "one group per function";
  }
  const auto& ib = at(d, "0000:18:00.0").nic;
  ASSERT_EQ(ib.ports.size(), 1u);
  ASSERT_EQ(ib.ports[0].gids.size(), 1u);
  EXPECT_EQ(ib.ports[0].gids[0].gid, "fe80:0000:0000:0000:" + ib.node_guid);
  const auto &eth0 = at(d, "0000:29:00.0").nic, &eth1 = at(d, "0000:29:00.1").nic;
  EXPECT_NE(eth0.node_guid, eth1.node_guid);
  EXPECT_EQ(eth0.ports[0].gids[1].type, "RoCE v2");
  EXPECT_EQ(eth0.ports[0].gids[1].ndev, "enp41s0f0np0");
}

TEST(NodeDescriptionFixtures, RoceGidTableHasIpv4AtIndexThree) {
  NodeDescription d = load_node_description(node_file("roce-node"));
  const auto& nic = at(d, "0000:2a:00.0").nic;  // second copy of the template: {i} = 1
  EXPECT_EQ(nic.ipv4, "10.10.1.12");
  ASSERT_EQ(nic.ports[0].gids.size(), 4u);
  EXPECT_EQ(nic.ports[0].gids[3].gid, "0000:0000:0000:0000:0000:ffff:0a0a:010c");
  EXPECT_EQ(nic.ports[0].gids[3].type, "RoCE v2");
  EXPECT_EQ(nic.netdev, "enp42s0np0");
  EXPECT_EQ(nic.mtu, 9000);
}

TEST(NodeDescriptionFixtures, VmHasVfsWithoutPhysfnAndNoIommu) {
  NodeDescription d = load_node_description(node_file("vm-flattened"));
  EXPECT_FALSE(d.iommu.enabled());
  int vfs = 0;
  for (const auto* f : d.functions()) {
    if (f->kind != NodeKind::Nic) continue;
    ++vfs;
    EXPECT_EQ(f->config.device, 0x101e);
    EXPECT_FALSE(f->nic.physfn);
    EXPECT_FALSE(f->iommu_group);
  }
  EXPECT_EQ(vfs, 8);
  EXPECT_EQ(at(d, "0000:00:03.0").numa_node, -1);
  EXPECT_FALSE(at(d, "0000:80:00.0").config.acs);  // emulated root port without ACS
}

TEST(NodeDescriptionFixtures, ListVariants) {
  auto v = list_variants(node_file("dgx-h100"));
  std::set<std::string> names;
  for (const auto& x : v) names.insert(x.name);
  for (const char* n : {"peermem-missing", "peermem-unregistered", "acs-redirect", "iommu-translated", "port-down",
                        "nic-slow", "gpu-x8", "rootless", "stray-nccl-conf"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const auto& x : v) EXPECT_FALSE(x.summary.empty()) << x.name;
}

// ---- compact forms ----------------------------------------------------------------

TEST(NodeDescriptionForms, DefaultsLayerUnderTheNode) {
  std::string text = minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "link": "Gen4 x8"}])",
                             R"("defaults": {"all": {"link": "Gen5 x16"}, "gpu": {"device": "0x20b2"}}, )");
  NodeDescription d = parse_node_description(text, "mem.json");
  const auto& gpu = at(d, "0000:02:00.0");
  EXPECT_EQ(gpu.config.device, 0x20b2);
  EXPECT_EQ(gpu.config.pcie->link_cap.speed_code, 4);  // the node wins
  EXPECT_EQ(gpu.config.pcie->link_cap.width, 8);
  EXPECT_EQ(at(d, "0000:01:01.0").config.pcie->link_cap.speed_code, 5);
}

TEST(NodeDescriptionForms, RepeatWithBusAndDeviceSteps) {
  std::string text =
      minimal(R"([{"kind": "switch", "bdf": "0000:02:00.0", "vendor": "0x10b5", "device": "0x8796", "downstream": [
      {"repeat": {"count": 3, "bus_step": 2, "device_step": 8},
       "template": {"bdf": "0000:03:00.0", "children": [{"kind": "nic", "bdf": "0000:04:00.0", "device": "0x1021", "rdma": "mlx5_{i}"}]}}]}])");
  NodeDescription d = parse_node_description(text, "mem.json");
  EXPECT_EQ(at(d, "0000:03:08.0").config.secondary_bus, 0x06);
  EXPECT_EQ(at(d, "0000:08:00.0").nic.rdma, "mlx5_2");
  EXPECT_EQ(at(d, "0000:02:00.0").config.subordinate_bus, 0x08);
  EXPECT_EQ(at(d, "0000:01:01.0").config.subordinate_bus, 0x08);
}

TEST(NodeDescriptionForms, RepeatInstancesMergeFields) {
  std::string text = R"({"hostname": "h", "kernel": "6.8.0", "cpu": {"sockets": 2},
    "pci": [{"repeat": [{"bus_offset": 0}, {"bus_offset": "0x40", "numa": 1}],
             "template": {"host_bridge": "0000:10", "numa": 0, "children": [{"kind": "gpu", "bdf": "0000:10:00.0", "device": "0x2330"}]}}]})";
  NodeDescription d = parse_node_description(text, "mem.json");
  ASSERT_EQ(d.host_bridges.size(), 2u);
  EXPECT_EQ(d.host_bridges[1].bus, 0x50);
  EXPECT_EQ(at(d, "0000:50:00.0").numa_node, 1);
  EXPECT_EQ(at(d, "0000:10:00.0").numa_node, 0);
}

TEST(NodeDescriptionForms, VariantsPatchMergeAndDevicesInOrder) {
  std::string text = minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])", R"("variants": {
      "a": {"patch": [{"op": "replace", "path": "/hostname", "value": "patched"}]},
      "b": {"merge": {"kernel": "5.4.0", "files": {"/etc/nccl.conf": "X=1\n"}}},
      "c": {"devices": {"0000:02:00.0": {"current_link": "Gen4 x8"}, "0000:01": {"numa": -1}}},
      "d": {"devices": {"0000:02:00.0": {"current_link": "Gen4 x4"}}}}, )");
  NodeDescription d = parse_node_description(text, "mem.json", {"a", "b", "c", "d"});
  EXPECT_EQ(d.hostname, "patched");
  EXPECT_EQ(d.kernel, "5.4.0");
  EXPECT_EQ(d.files.at("/etc/nccl.conf"), "X=1\n");
  EXPECT_EQ(at(d, "0000:02:00.0").config.pcie->link_status.width, 4);  // d after c
  EXPECT_EQ(at(d, "0000:02:00.0").numa_node, -1);
  EXPECT_TRUE(at(d, "0000:02:00.0").local_cpus_all);
  EXPECT_EQ(d.variants, (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(NodeDescriptionForms, JsonCommentsAreAllowed) {
  std::string text = "// a fixture\n" + minimal();
  EXPECT_NO_THROW(parse_node_description(text, "mem.json"));
}

// ---- errors name the file and the JSON path ---------------------------------------

TEST(NodeDescriptionErrors, BadJson) {
  std::string e = error_of(R"({"hostname": "h", "kernel": })");
  EXPECT_NE(e.find("mem.json: not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("line 1"), std::string::npos) << e;
}

TEST(NodeDescriptionErrors, UnknownField) {
  std::string e =
      error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "acs_contrl": "0x1d"}])"));
  EXPECT_NE(e.find("mem.json: /pci/0/children/0/children/0/acs_contrl: unknown field for a gpu"), std::string::npos)
      << e;
}

TEST(NodeDescriptionErrors, UnknownKindAndWrongType) {
  std::string kind = error_of(minimal(R"([{"kind": "fpga", "bdf": "0000:02:00.0"}])"));
  EXPECT_NE(kind.find("/pci/0/children/0/children/0/kind: \"fpga\" is not one of"), std::string::npos) << kind;
  std::string type =
      error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "numa_node": "one"}])"));
  EXPECT_NE(type.find("/children/0/numa_node: expected an integer"), std::string::npos) << type;
  std::string hex = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "2330"}])"));
  EXPECT_NE(hex.find("/children/0/device: expected a number"), std::string::npos) << hex;
}

TEST(NodeDescriptionErrors, UnknownVariantListsTheDefinedOnes) {
  std::string e = error_of(minimal(kGpu, R"("variants": {"x": {"merge": {}}, "y": {"merge": {}}}, )"), {"z"});
  EXPECT_NE(e.find("mem.json: /variants: unknown variant \"z\" (defined: x, y)"), std::string::npos) << e;
  std::string none = error_of(minimal(), {"z"});
  EXPECT_NE(none.find("(defined: none)"), std::string::npos) << none;
}

TEST(NodeDescriptionErrors, BadBusIds) {
  std::string syntax = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:20.0", "device": "0x2330"}])"));
  EXPECT_NE(syntax.find("/children/0/bdf: \"0000:02:20.0\" is not a bus id"), std::string::npos) << syntax;
  std::string no_domain = error_of(minimal(R"([{"kind": "gpu", "bdf": "02:00.0", "device": "0x2330"}])"));
  EXPECT_NE(no_domain.find("is not a bus id"), std::string::npos) << no_domain;
  std::string wrong_bus = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:05:00.0", "device": "0x2330"},
                                               {"kind": "gpu", "bdf": "0000:06:00.0", "device": "0x2330"}])"));
  EXPECT_NE(wrong_bus.find("/children/1/bdf: 0000:06:00.0: every function below 0000:01:01.0 must be on bus 05"),
            std::string::npos)
      << wrong_bus;
  std::string dup = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"},
                                         {"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])"));
  EXPECT_NE(dup.find("0000:02:00.0 is already used at /pci/0/children/0/children/0"), std::string::npos) << dup;
  std::string below = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:01:00.0", "device": "0x2330"}])"));
  EXPECT_NE(below.find("must be above its own"), std::string::npos) << below;
}

TEST(NodeDescriptionErrors, OverridesMustMatchADevice) {
  std::string e =
      error_of(minimal(kGpu, R"("variants": {"v": {"devices": {"0000:09:00.0": {"acs_control": "0x1d"}}}}, )"), {"v"});
  EXPECT_NE(e.find("/variants/v/devices/0000:09:00.0: no device or root bus 0000:09:00.0"), std::string::npos) << e;
  std::string kind = error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])",
                                      R"("variants": {"v": {"devices": {"0000:02:00.0": {"kind": "nic"}}}}, )"),
                              {"v"});
  EXPECT_NE(kind.find("cannot change a device's kind"), std::string::npos) << kind;
  std::string patch =
      error_of(minimal(kGpu, R"("variants": {"v": {"patch": [{"op": "remove", "path": "/nothing"}]}}, )"), {"v"});
  EXPECT_NE(patch.find("/variants/v/patch: JSON Patch failed"), std::string::npos) << patch;
}

TEST(NodeDescriptionErrors, OtherProblemsNameTheirPath) {
  EXPECT_NE(error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "link": "PCIe5 x16"}])"))
                .find("/children/0/link: \"PCIe5 x16\" is not \"GenN xW\""),
            std::string::npos);
  EXPECT_NE(error_of(minimal(kGpu, R"("files": {"etc/nccl.conf": "x"}, )"))
                .find("/files/etc/nccl.conf: expected an absolute"),
            std::string::npos);
  EXPECT_NE(error_of(minimal(R"([{"repeat": {"count": 2}}])")).find("a repeat needs a \"template\""),
            std::string::npos);
  EXPECT_NE(error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "numa_node": 3}])"))
                .find("numa_node: NUMA node 3 does not exist"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"kernel": "6.8.0", "pci": []})").find("mem.json: /hostname: missing"), std::string::npos);
  EXPECT_NE(error_of(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": 4294967296}])"))
                .find("/children/0/device: expected a number"),
            std::string::npos);
  EXPECT_NE(error_of(minimal(R"([{"kind": "switch", "bdf": "0000:02:00.0", "vendor": "0x10b5", "device": "0x8796",
                                  "downstream": [{"kind": "gpu", "bdf": "0000:03:00.0"}]}])"))
                .find("/children/0/downstream/0/kind: a downstream port has no kind"),
            std::string::npos);
  EXPECT_NE(
      error_of(minimal(kGpu, R"("peer_memory": {"module": "nvidia_peermem"}, )")).find("/peer_memory/version: missing"),
      std::string::npos);
}

TEST(NodeDescriptionErrors, MissingFileNamesIt) {
  try {
    load_node_description("/nonexistent/node.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/node.json");
  }
}

}  // namespace
}  // namespace gdrcheck::fixture

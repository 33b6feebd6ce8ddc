// The node-description loader: resolution of the shipped fixtures, the
// compact forms (defaults, repeats, variants), and error messages that name
// the file and the JSON path of the problem.
#include "fixture/node_description.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck::fixture {
namespace {

using gdrcheck::testing::test_data;

std::string node_file(const std::string& name) {
  return test_data("nodes/" + name + ".json");
}

const PciFunctionSpec& function_at(const NodeDescription& d, const std::string& bdf) {
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
std::string description_error(const std::string& text, const std::vector<std::string>& variants = {}) {
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
    EXPECT_EQ(function_at(d, bdf).nic.rdma, rdma) << bdf;
    EXPECT_EQ(function_at(d, bdf).nic.netdev, "ibp" + std::to_string(PciAddress::parse(bdf)->bus) + "s0") << bdf;
  }
  EXPECT_EQ(function_at(d, "0000:29:00.1").nic.rdma, "mlx5_2");
  EXPECT_EQ(function_at(d, "0000:29:00.1").nic.netdev, "enp41s0f1np1");
  EXPECT_EQ(function_at(d, "0000:aa:00.0").nic.rdma, "mlx5_7");
}

TEST(NodeDescriptionFixtures, DgxH100BusRangesAndIds) {
  NodeDescription d = load_node_description(node_file("dgx-h100"));
  const auto& rp = function_at(d, "0000:13:01.0");
  EXPECT_EQ(rp.kind, NodeKind::RootPort);
  EXPECT_EQ(rp.config.secondary_bus, 0x14);
  EXPECT_EQ(rp.config.subordinate_bus, 0x1b);
  const auto& sub = function_at(d, "0000:19:00.0");  // GPU0's virtual sub-switch
  EXPECT_EQ(sub.config.subsystem_device, 0x1003);
  const auto& dsp = function_at(d, "0000:1a:00.0");
  EXPECT_EQ(dsp.kind, NodeKind::DownstreamPort);
  EXPECT_EQ(dsp.config.device, 0xc030);  // inherited from its switch
  EXPECT_EQ(dsp.config.subsystem_device, 0x1003);
  ASSERT_TRUE(dsp.config.acs);
  EXPECT_EQ(dsp.config.acs->capability, 0x005f);
  EXPECT_EQ(dsp.config.acs->control, 0x0000);
  const auto& gpu = function_at(d, "0000:df:00.0");
  EXPECT_EQ(gpu.numa_node, 1);
  EXPECT_EQ(gpu.config.class_code, 0x030200u);
  EXPECT_EQ(gpu.driver, "nvidia");
  ASSERT_TRUE(gpu.config.pcie);
  EXPECT_EQ(gpu.config.pcie->link_cap.speed_code, 5);
  EXPECT_EQ(gpu.config.pcie->link_cap.width, 16);
  EXPECT_EQ(function_at(d, "0000:18:00.0").config.class_code, 0x020700u);  // InfiniBand
  EXPECT_EQ(function_at(d, "0000:29:00.0").config.class_code, 0x020000u);  // Ethernet
  // The NVSwitch downstream ports are siblings: one bus, device numbers stepped.
  EXPECT_EQ(function_at(d, "0000:e5:03.0").config.secondary_bus, 0xe9);
  EXPECT_EQ(function_at(d, "0000:e9:00.0").kind, NodeKind::NvSwitch);
}

TEST(NodeDescriptionFixtures, GroupsGuidsAndGids) {
  NodeDescription d = load_node_description(node_file("dgx-h100"));
  std::set<int> groups;
  for (const auto* f : d.functions()) {
    ASSERT_TRUE(f->iommu_group) << f->address.str();
    EXPECT_TRUE(groups.insert(*f->iommu_group).second) << "one group per function";
  }
  const auto& ib = function_at(d, "0000:18:00.0").nic;
  ASSERT_EQ(ib.ports.size(), 1u);
  ASSERT_EQ(ib.ports[0].gids.size(), 1u);
  EXPECT_EQ(ib.ports[0].gids[0].gid, "fe80:0000:0000:0000:" + ib.node_guid);
  const auto &eth0 = function_at(d, "0000:29:00.0").nic, &eth1 = function_at(d, "0000:29:00.1").nic;
  EXPECT_NE(eth0.node_guid, eth1.node_guid);
  EXPECT_EQ(eth0.ports[0].gids[1].type, "RoCE v2");
  EXPECT_EQ(eth0.ports[0].gids[1].ndev, "enp41s0f0np0");
}

TEST(NodeDescriptionFixtures, RoceGidTableHasIpv4AtIndexThree) {
  NodeDescription d = load_node_description(node_file("roce-node"));
  const auto& nic = function_at(d, "0000:2a:00.0").nic;  // second copy of the template: {i} = 1
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
  EXPECT_EQ(function_at(d, "0000:00:03.0").numa_node, -1);
  EXPECT_FALSE(function_at(d, "0000:80:00.0").config.acs);  // emulated root port without ACS
}

TEST(NodeDescriptionFixtures, ListVariants) {
  auto v = list_variants(node_file("dgx-h100"));
  std::set<std::string> names;
  for (const auto& x : v) names.insert(x.name);
  for (const char* n : {"peermem-missing", "peermem-unregistered", "acs-redirect", "iommu-translated", "port-down",
                        "nic-slow", "gpu-x8", "rootless", "stray-nccl-conf", "ports-all-down", "no-uverbs",
                        "peermem-new-stack", "nccl-2.18", "nccl-2.21-and-wheel-2.23", "nic-removed"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const auto& x : v) EXPECT_FALSE(x.summary.empty()) << x.name;
}

// Every description builds with each of its variants alone, and says what
// each variant models.
TEST(NodeDescriptionFixtures, EveryVariantLoads) {
  for (const auto& entry : std::filesystem::directory_iterator(test_data("nodes"))) {
    std::string path = entry.path().string();
    NodeDescription base = load_node_description(path);
    EXPECT_FALSE(base.summary.empty()) << path;
    for (const auto& v : list_variants(path)) {
      EXPECT_FALSE(v.summary.empty()) << path << " " << v.name;
      EXPECT_NO_THROW(load_node_description(path, {v.name})) << path << " " << v.name;
    }
  }
}

TEST(NodeDescriptionFixtures, AwsP5HasEfaDevicesNamedByPciPath) {
  NodeDescription d = load_node_description(node_file("aws-p5"));
  int efa = 0;
  for (const auto* f : d.functions()) {
    if (f->kind != NodeKind::Nic) continue;
    ++efa;
    EXPECT_EQ(f->nic.family, NicFamily::Efa);
    EXPECT_EQ(f->driver, "efa");
    EXPECT_TRUE(f->nic.netdev.empty()) << "an EFA function has no netdev";
    EXPECT_EQ(f->nic.ports[0].link_layer, "Unknown");
    EXPECT_EQ(f->config.class_code, 0x020000u);
  }
  EXPECT_EQ(efa, 32);
  // The EFA buses of AWS's p5 topology file: switch 45 holds 4f-52, switch bc holds c6-c9.
  EXPECT_EQ(function_at(d, "0000:4f:00.0").nic.rdma, "rdmap79s0");
  EXPECT_EQ(function_at(d, "0000:c9:00.0").nic.rdma, "rdmap201s0");
  EXPECT_EQ(function_at(d, "0000:53:00.0").kind, NodeKind::Gpu);
  EXPECT_EQ(function_at(d, "0000:ca:00.0").numa_node, 1);
}

TEST(NodeDescriptionFixtures, AzureVmBusIdsAreTheTopologyFiles) {
  NodeDescription d = load_node_description(node_file("azure-ndv4-vm"));
  // numaid of each device in tests/data/recorded/azhpc-images/ndv4-topo.xml.
  const std::map<std::string, int> numa = {
      {"0003:00:00.0", 0}, {"0103:00:00.0", 0}, {"0004:00:00.0", 0}, {"0104:00:00.0", 0},
      {"0001:00:00.0", 1}, {"0101:00:00.0", 1}, {"0002:00:00.0", 1}, {"0102:00:00.0", 1},
      {"000d:00:00.0", 2}, {"0107:00:00.0", 2}, {"000e:00:00.0", 2}, {"0108:00:00.0", 2},
      {"000b:00:00.0", 3}, {"0105:00:00.0", 3}, {"000c:00:00.0", 3}, {"0106:00:00.0", 3}};
  for (const auto& [bdf, node] : numa) EXPECT_EQ(function_at(d, bdf).numa_node, node) << bdf;
  EXPECT_EQ(d.functions().size(), numa.size());
  EXPECT_EQ(function_at(d, "0001:00:00.0").config.device, 0x20b0);
  EXPECT_EQ(function_at(d, "0101:00:00.0").config.device, 0x101c);
  EXPECT_EQ(function_at(d, "0101:00:00.0").nic.rdma, "mlx5_ib0");
  EXPECT_EQ(function_at(d, "0001:00:00.0").config.pcie->port_type, PciePortType::Endpoint);
  EXPECT_EQ(d.files.at("/opt/microsoft/ndv4-topo.xml").content,
            gdrcheck::testing::read_test_data("recorded/azhpc-images/ndv4-topo.xml"));
}

TEST(NodeDescriptionFixtures, Gh200IsAarch64WithAGpuMemoryNode) {
  NodeDescription d = load_node_description(node_file("gh200"));
  EXPECT_EQ(d.cpu.arch, "aarch64");
  EXPECT_EQ(d.cpu.numa_nodes(), 1);
  EXPECT_EQ(d.cpu.all_numa_nodes(), 2);
  ASSERT_EQ(d.cpu.memory_nodes.size(), 1u);
  EXPECT_EQ(d.cpu.memory_nodes[0].memory_gib, 96);
  const auto& gpu = function_at(d, "0009:01:00.0");
  EXPECT_EQ(gpu.config.device, 0x2342);
  EXPECT_EQ(gpu.numa_node, 0);
  EXPECT_EQ(d.peer_memory.module, PeerMemoryModule::NvidiaPeermem);
  EXPECT_FALSE(d.peer_memory.registered);
}

TEST(NodeDescriptionFixtures, RoceDualPortAddsASecondFunctionPerNic) {
  NodeDescription d = load_node_description(node_file("roce-node"), {"dual-port"});
  EXPECT_EQ(function_at(d, "0000:19:00.0").nic.rdma, "mlx5_0");
  EXPECT_EQ(function_at(d, "0000:19:00.1").nic.rdma, "mlx5_1");
  EXPECT_EQ(function_at(d, "0000:2a:00.1").nic.rdma, "mlx5_3");
  EXPECT_EQ(function_at(d, "0000:2a:00.1").nic.ipv4, "10.11.1.12");
  EXPECT_EQ(function_at(d, "0000:19:00.1").nic.netdev, "enp25s0f1np1");
  EXPECT_EQ(function_at(d, "0000:19:00.1").nic.ports[0].rate, "200 Gb/sec (4X HDR)");
}

// ---- compact forms ----------------------------------------------------------------

TEST(NodeDescriptionForms, DefaultsLayerUnderTheNode) {
  std::string text = minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "link": "Gen4 x8"}])",
                             R"("defaults": {"all": {"link": "Gen5 x16"}, "gpu": {"device": "0x20b2"}}, )");
  NodeDescription d = parse_node_description(text, "mem.json");
  const auto& gpu = function_at(d, "0000:02:00.0");
  EXPECT_EQ(gpu.config.device, 0x20b2);
  EXPECT_EQ(gpu.config.pcie->link_cap.speed_code, 4);  // the node wins
  EXPECT_EQ(gpu.config.pcie->link_cap.width, 8);
  EXPECT_EQ(function_at(d, "0000:01:01.0").config.pcie->link_cap.speed_code, 5);
}

TEST(NodeDescriptionForms, RepeatWithBusAndDeviceSteps) {
  std::string text =
      minimal(R"([{"kind": "switch", "bdf": "0000:02:00.0", "vendor": "0x10b5", "device": "0x8796", "downstream": [
      {"repeat": {"count": 3, "bus_step": 2, "device_step": 8},
       "template": {"bdf": "0000:03:00.0", "children": [{"kind": "nic", "bdf": "0000:04:00.0", "device": "0x1021", "rdma": "mlx5_{i}"}]}}]}])");
  NodeDescription d = parse_node_description(text, "mem.json");
  EXPECT_EQ(function_at(d, "0000:03:08.0").config.secondary_bus, 0x06);
  EXPECT_EQ(function_at(d, "0000:08:00.0").nic.rdma, "mlx5_2");
  EXPECT_EQ(function_at(d, "0000:02:00.0").config.subordinate_bus, 0x08);
  EXPECT_EQ(function_at(d, "0000:01:01.0").config.subordinate_bus, 0x08);
}

TEST(NodeDescriptionForms, RepeatInstancesMergeFields) {
  std::string text = R"({"hostname": "h", "kernel": "6.8.0", "cpu": {"sockets": 2},
    "pci": [{"repeat": [{"bus_offset": 0}, {"bus_offset": "0x40", "numa": 1}],
             "template": {"host_bridge": "0000:10", "numa": 0, "children": [{"kind": "gpu", "bdf": "0000:10:00.0", "device": "0x2330"}]}}]})";
  NodeDescription d = parse_node_description(text, "mem.json");
  ASSERT_EQ(d.host_bridges.size(), 2u);
  EXPECT_EQ(d.host_bridges[1].bus, 0x50);
  EXPECT_EQ(function_at(d, "0000:50:00.0").numa_node, 1);
  EXPECT_EQ(function_at(d, "0000:10:00.0").numa_node, 0);
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
  EXPECT_EQ(d.files.at("/etc/nccl.conf").content, "X=1\n");
  EXPECT_EQ(function_at(d, "0000:02:00.0").config.pcie->link_status.width, 4);  // d after c
  EXPECT_EQ(function_at(d, "0000:02:00.0").numa_node, -1);
  EXPECT_TRUE(function_at(d, "0000:02:00.0").local_cpus_all);
  EXPECT_EQ(d.variants, (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(NodeDescriptionForms, JsonCommentsAreAllowed) {
  std::string text = "// a fixture\n" + minimal();
  EXPECT_NO_THROW(parse_node_description(text, "mem.json"));
}

TEST(NodeDescriptionForms, UverbsTopLevelDefaultAndPerNic) {
  const std::string nics = R"([{"kind": "nic", "bdf": "0000:02:00.0", "device": "0x1021"},
                               {"kind": "nic", "bdf": "0000:02:00.1", "device": "0x1021", "uverbs": false},
                               {"kind": "nic", "bdf": "0000:02:00.2", "device": "0x1021"}])";
  NodeDescription d = parse_node_description(minimal(nics), "mem.json");
  EXPECT_EQ(function_at(d, "0000:02:00.0").nic.uverbs, 0);
  EXPECT_FALSE(function_at(d, "0000:02:00.1").nic.has_uverbs);
  EXPECT_EQ(function_at(d, "0000:02:00.1").nic.uverbs, -1);
  EXPECT_EQ(function_at(d, "0000:02:00.2").nic.uverbs, 1);  // numbering skips the device without one
  EXPECT_EQ(function_at(d, "0000:02:00.2").nic.probe_index, 2);
  NodeDescription none = parse_node_description(minimal(nics, R"("uverbs": false, )"), "mem.json");
  for (const auto* f : none.functions()) {
    if (f->kind == NodeKind::Nic) {
      EXPECT_FALSE(f->nic.has_uverbs) << f->address.str();
    }
  }
}

TEST(NodeDescriptionForms, NullOverrideRemovesAFunctionAndItsBridgeKeepsTheBus) {
  std::string text = minimal(kGpu, R"("variants": {"gone": {"devices": {"0000:02:00.0": null}}}, )");
  NodeDescription d = parse_node_description(text, "mem.json", {"gone"});
  EXPECT_EQ(d.find(*PciAddress::parse("0000:02:00.0")), nullptr);
  EXPECT_TRUE(function_at(d, "0000:01:01.0").children.empty());
  EXPECT_EQ(function_at(d, "0000:01:01.0").config.secondary_bus, 0x02);
  EXPECT_EQ(function_at(d, "0000:01:01.0").config.subordinate_bus, 0x02);
  std::string e =
      description_error(minimal(kGpu, R"("variants": {"v": {"devices": {"0000:09:00.0": null}}}, )"), {"v"});
  EXPECT_NE(e.find("/variants/v/devices/0000:09:00.0: no device 0000:09:00.0 in this description to remove"),
            std::string::npos)
      << e;
}

TEST(NodeDescriptionForms, EfaFamilyDefaults) {
  NodeDescription d = parse_node_description(
      minimal(R"([{"kind": "nic", "bdf": "0000:02:00.0", "vendor": "0x1d0f", "device": "0xefa1"}])"), "mem.json");
  const auto& n = function_at(d, "0000:02:00.0");
  EXPECT_EQ(n.nic.family, NicFamily::Efa);
  EXPECT_EQ(n.nic.rdma, "rdmap2s0");
  EXPECT_EQ(n.nic.node_type, "7: unspecified");
  EXPECT_EQ(n.nic.node_guid, "0000:0000:0000:0000");
  EXPECT_EQ(n.nic.ports[0].link_layer, "Unknown");
  EXPECT_EQ(n.nic.ports[0].rate, "100 Gb/sec (4X EDR)");
  EXPECT_TRUE(n.nic.ports[0].counters.empty()) << "no MAD interface, no PMA counters";
  ASSERT_EQ(n.nic.ports[0].gids.size(), 1u);
  EXPECT_EQ(n.nic.ports[0].gids[0].gid.rfind("fe80:0000:0000:0000:", 0), 0u);
  EXPECT_EQ(n.driver, "efa");
  std::string board = description_error(minimal(
      R"([{"kind": "nic", "bdf": "0000:02:00.0", "vendor": "0x1d0f", "device": "0xefa1", "board_id": "MT_1"}])"));
  EXPECT_NE(board.find("/children/0/board_id: an EFA function has no such attribute"), std::string::npos) << board;
  std::string vendor =
      description_error(minimal(R"([{"kind": "nic", "bdf": "0000:02:00.0", "vendor": "0x14e4", "device": "0x1750"}])"));
  EXPECT_NE(vendor.find("/children/0/vendor: a nic is a Mellanox (0x15b3, mlx5) or Amazon EFA (0x1d0f)"),
            std::string::npos)
      << vendor;
  std::string layer = description_error(
      minimal(R"([{"kind": "nic", "bdf": "0000:02:00.0", "device": "0x1021", "link_layer": "Unspecified"}])"));
  EXPECT_NE(layer.find("link_layer: \"Unspecified\" is not one of"), std::string::npos) << layer;
}

TEST(NodeDescriptionForms, AttributesAndPortType) {
  NodeDescription d = parse_node_description(
      minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "attributes": {"p2p": "NVIDIA"}}])"),
      "mem.json");
  EXPECT_EQ(function_at(d, "0000:02:00.0").attributes.at("p2p"), "NVIDIA");
  std::string bad = description_error(
      minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "attributes": {"../x": "1"}}])"));
  EXPECT_NE(bad.find("/children/0/attributes/../x: expected a file name relative"), std::string::npos) << bad;
  std::string root_bus = R"({"hostname": "h", "kernel": "6.8.0", "pci": [{"host_bridge": "0001:00", "children": [
      {"kind": "gpu", "bdf": "0001:00:00.0", "device": "0x20b0"},
      {"kind": "gpu", "bdf": "0001:00:01.0", "device": "0x20b0", "port_type": "endpoint"}]}]})";
  NodeDescription v = parse_node_description(root_bus, "mem.json");
  EXPECT_EQ(function_at(v, "0001:00:00.0").config.pcie->port_type, PciePortType::RootComplexIntegrated);
  EXPECT_EQ(function_at(v, "0001:00:01.0").config.pcie->port_type, PciePortType::Endpoint);
}

TEST(NodeDescriptionForms, Aarch64CpuAndMemoryOnlyNodes) {
  std::string text = minimal(kGpu, R"("cpu": {"arch": "aarch64", "part": "0xd4f", "cores_per_socket": 4,
                                              "memory_only_nodes": [{"memory_gib": 96, "distance": 80}]}, )");
  NodeDescription d = parse_node_description(text, "mem.json");
  EXPECT_EQ(d.cpu.arch, "aarch64");
  EXPECT_EQ(d.cpu.part, 0xd4f);
  EXPECT_EQ(d.cpu.all_numa_nodes(), 2);
  std::string x86 = description_error(minimal(kGpu, R"("cpu": {"arch": "aarch64", "vendor": "GenuineIntel"}, )"));
  EXPECT_NE(x86.find("/cpu/vendor: not shown by an aarch64 /proc/cpuinfo"), std::string::npos) << x86;
  std::string arm = description_error(minimal(kGpu, R"("cpu": {"implementer": "0x41"}, )"));
  EXPECT_NE(arm.find("/cpu/implementer: only for \"arch\": \"aarch64\""), std::string::npos) << arm;
  // A device may sit on the memory-only node.
  EXPECT_NO_THROW(
      parse_node_description(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "numa_node": 1}])",
                                     R"("cpu": {"memory_only_nodes": [{"memory_gib": 96}]}, )"),
                             "mem.json"));
}

// ---- files: inline, copied from test data, symbolic links -----------------------

namespace fs = std::filesystem;

// A data directory like tests/data: data/nodes/<description>, data/recorded/...
struct DataDir {
  std::string base = gdrcheck::testing::scratch_dir();
  DataDir() {
    fs::create_directories(base + "/data/nodes");
    fs::create_directories(base + "/data/recorded");
    std::ofstream(base + "/data/recorded/topo.xml") << "<system version=\"1\"/>\n";
    std::ofstream(base + "/secret.txt") << "not test data\n";
  }
  std::string description(const std::string& files) const {
    std::string path = base + "/data/nodes/n.json";
    std::ofstream(path) << minimal(kGpu, R"("files": )" + files + ", ");
    return path;
  }
  std::string error(const std::string& files) const {
    try {
      load_node_description(description(files));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(NodeDescriptionFiles, CopyReadsTheTestDataFile) {
  DataDir data;
  NodeDescription d = load_node_description(data.description(R"({"/opt/t.xml": {"copy": "../recorded/topo.xml"}})"));
  const ExtraFile& f = d.files.at("/opt/t.xml");
  EXPECT_EQ(f.kind, ExtraFile::Kind::Text);
  EXPECT_EQ(f.content, "<system version=\"1\"/>\n");
  EXPECT_EQ(f.copied_from, fs::weakly_canonical(data.base + "/data/recorded/topo.xml").string());
}

TEST(NodeDescriptionFiles, CopyRefusesPathsOutsideTheDataDirectory) {
  DataDir data;
  std::string absolute = data.error(R"({"/x": {"copy": ")" + data.base + R"(/data/recorded/topo.xml"}})");
  EXPECT_NE(absolute.find("/files//x/copy: \"" + data.base + "/data/recorded/topo.xml\" is absolute"),
            std::string::npos)
      << absolute;
  std::string escaping = data.error(R"({"/x": {"copy": "../../secret.txt"}})");
  EXPECT_NE(escaping.find("/files//x/copy: \"../../secret.txt\" leaves "), std::string::npos) << escaping;
  std::string sneaky = data.error(R"({"/x": {"copy": "../recorded/../../secret.txt"}})");
  EXPECT_NE(sneaky.find("leaves"), std::string::npos) << sneaky;
  fs::create_symlink(data.base + "/secret.txt", data.base + "/data/recorded/link.txt");
  std::string via_link = data.error(R"({"/x": {"copy": "../recorded/link.txt"}})");
  EXPECT_NE(via_link.find("leaves"), std::string::npos) << via_link;
  std::string missing = data.error(R"({"/x": {"copy": "../recorded/none.xml"}})");
  EXPECT_NE(missing.find("none.xml is not a readable file"), std::string::npos) << missing;
}

TEST(NodeDescriptionFiles, SymlinksStayInsideTheRoot) {
  DataDir data;
  NodeDescription d = load_node_description(data.description(R"({
      "/usr/lib/libnccl.so.2": {"symlink": "libnccl.so.2.18.6"},
      "/usr/lib/libnccl.so": {"symlink": "/usr/lib/libnccl.so.2"},
      "/usr/lib/x/y": {"symlink": "../../../etc/z"}})"));
  EXPECT_EQ(d.files.at("/usr/lib/libnccl.so.2").kind, ExtraFile::Kind::Symlink);
  EXPECT_EQ(d.files.at("/usr/lib/libnccl.so.2").content, "libnccl.so.2.18.6");
  EXPECT_EQ(d.files.at("/usr/lib/libnccl.so").content, "/usr/lib/libnccl.so.2");
  std::string above = data.error(R"({"/usr/lib/x": {"symlink": "../../../etc/passwd"}})");
  EXPECT_NE(above.find("/files//usr/lib/x/symlink: \"../../../etc/passwd\" points above the root"), std::string::npos)
      << above;
  std::string both = data.error(R"({"/x": {"symlink": "a", "copy": "b"}})");
  EXPECT_NE(both.find("/files//x: expected the file's content as a string, {\"copy\""), std::string::npos) << both;
}

// ---- errors name the file and the JSON path ---------------------------------------

TEST(NodeDescriptionErrors, BadJson) {
  std::string e = description_error(R"({"hostname": "h", "kernel": })");
  EXPECT_NE(e.find("mem.json: not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("line 1"), std::string::npos) << e;
}

TEST(NodeDescriptionErrors, UnknownField) {
  std::string e = description_error(
      minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "acs_contrl": "0x1d"}])"));
  EXPECT_NE(e.find("mem.json: /pci/0/children/0/children/0/acs_contrl: unknown field for a gpu"), std::string::npos)
      << e;
}

TEST(NodeDescriptionErrors, UnknownKindAndWrongType) {
  std::string kind = description_error(minimal(R"([{"kind": "fpga", "bdf": "0000:02:00.0"}])"));
  EXPECT_NE(kind.find("/pci/0/children/0/children/0/kind: \"fpga\" is not one of"), std::string::npos) << kind;
  std::string type =
      description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "numa_node": "one"}])"));
  EXPECT_NE(type.find("/children/0/numa_node: expected an integer"), std::string::npos) << type;
  std::string hex = description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "2330"}])"));
  EXPECT_NE(hex.find("/children/0/device: expected a number"), std::string::npos) << hex;
}

TEST(NodeDescriptionErrors, UnknownVariantListsTheDefinedOnes) {
  std::string e = description_error(minimal(kGpu, R"("variants": {"x": {"merge": {}}, "y": {"merge": {}}}, )"), {"z"});
  EXPECT_NE(e.find("mem.json: /variants: unknown variant \"z\" (defined: x, y)"), std::string::npos) << e;
  std::string none = description_error(minimal(), {"z"});
  EXPECT_NE(none.find("(defined: none)"), std::string::npos) << none;
}

TEST(NodeDescriptionErrors, BadBusIds) {
  std::string syntax = description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:20.0", "device": "0x2330"}])"));
  EXPECT_NE(syntax.find("/children/0/bdf: \"0000:02:20.0\" is not a bus id"), std::string::npos) << syntax;
  std::string no_domain = description_error(minimal(R"([{"kind": "gpu", "bdf": "02:00.0", "device": "0x2330"}])"));
  EXPECT_NE(no_domain.find("is not a bus id"), std::string::npos) << no_domain;
  std::string wrong_bus = description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:05:00.0", "device": "0x2330"},
                                               {"kind": "gpu", "bdf": "0000:06:00.0", "device": "0x2330"}])"));
  EXPECT_NE(wrong_bus.find("/children/1/bdf: 0000:06:00.0: every function below 0000:01:01.0 must be on bus 05"),
            std::string::npos)
      << wrong_bus;
  std::string dup = description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"},
                                         {"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])"));
  EXPECT_NE(dup.find("0000:02:00.0 is already used at /pci/0/children/0/children/0"), std::string::npos) << dup;
  std::string below = description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:01:00.0", "device": "0x2330"}])"));
  EXPECT_NE(below.find("must be above its own"), std::string::npos) << below;
}

TEST(NodeDescriptionErrors, OverridesMustMatchADevice) {
  std::string e = description_error(
      minimal(kGpu, R"("variants": {"v": {"devices": {"0000:09:00.0": {"acs_control": "0x1d"}}}}, )"), {"v"});
  EXPECT_NE(e.find("/variants/v/devices/0000:09:00.0: no device or root bus 0000:09:00.0"), std::string::npos) << e;
  std::string kind =
      description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330"}])",
                                R"("variants": {"v": {"devices": {"0000:02:00.0": {"kind": "nic"}}}}, )"),
                        {"v"});
  EXPECT_NE(kind.find("cannot change a device's kind"), std::string::npos) << kind;
  std::string patch = description_error(
      minimal(kGpu, R"("variants": {"v": {"patch": [{"op": "remove", "path": "/nothing"}]}}, )"), {"v"});
  EXPECT_NE(patch.find("/variants/v/patch: JSON Patch failed"), std::string::npos) << patch;
}

TEST(NodeDescriptionErrors, OtherProblemsNameTheirPath) {
  EXPECT_NE(
      description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "link": "PCIe5 x16"}])"))
          .find("/children/0/link: \"PCIe5 x16\" is not \"GenN xW\""),
      std::string::npos);
  EXPECT_NE(description_error(minimal(kGpu, R"("files": {"etc/nccl.conf": "x"}, )"))
                .find("/files/etc/nccl.conf: expected an absolute"),
            std::string::npos);
  EXPECT_NE(description_error(minimal(R"([{"repeat": {"count": 2}}])")).find("a repeat needs a \"template\""),
            std::string::npos);
  EXPECT_NE(
      description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": "0x2330", "numa_node": 3}])"))
          .find("numa_node: NUMA node 3 does not exist"),
      std::string::npos);
  EXPECT_NE(description_error(R"({"kernel": "6.8.0", "pci": []})").find("mem.json: /hostname: missing"),
            std::string::npos);
  EXPECT_NE(description_error(minimal(R"([{"kind": "gpu", "bdf": "0000:02:00.0", "device": 4294967296}])"))
                .find("/children/0/device: expected a number"),
            std::string::npos);
  EXPECT_NE(
      description_error(minimal(R"([{"kind": "switch", "bdf": "0000:02:00.0", "vendor": "0x10b5", "device": "0x8796",
                                  "downstream": [{"kind": "gpu", "bdf": "0000:03:00.0"}]}])"))
          .find("/children/0/downstream/0/kind: a downstream port has no kind"),
      std::string::npos);
  EXPECT_NE(description_error(minimal(kGpu, R"("peer_memory": {"module": "nvidia_peermem"}, )"))
                .find("/peer_memory/version: missing"),
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

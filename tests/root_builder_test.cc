// The fixture builder, checked the way the product reads a root: hwloc
// through read_sysfs_topology (inventory, RDMA names, NUMA placement, path
// classes), decode_config on the written config bytes, Root for links and
// files. Each dgx-h100 variant is compared file by file with the base tree
// so that it provably changes only what it claims to.
#include "fixture/root_builder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "fixture/node_description.h"
#include "host/root.h"
#include "pcie/config_space.h"
#include "recorded_fixtures.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"
#include "topology/nccl_view.h"
#include "topology/path_class.h"

namespace gdrcheck::fixture {
namespace {

namespace fs = std::filesystem;
using gdrcheck::testing::test_data;

std::string description_file(const std::string& name) {
  return test_data("nodes/" + name + ".json");
}

// A directory path that does not exist yet, removed when the test process exits.
std::string scratch() {
  return gdrcheck::testing::scratch_dir() + "/out";
}

std::string built(const std::string& fixture, const std::vector<std::string>& variants = {}) {
  return gdrcheck::testing::node_root(fixture, variants);
}

NodeDescription described(const std::string& fixture, const std::vector<std::string>& variants = {}) {
  return load_node_description(description_file(fixture), variants);
}

std::string dev_path(const std::string& fixture, const std::string& bdf) {
  return sysfs_device_path(described(fixture), *PciAddress::parse(bdf));
}

std::string trimmed_value(const std::string& root, const std::string& inside) {
  return Root(root).read(inside).trimmed();
}

ConfigSpace config_of(const std::string& root, const std::string& bdf) {
  return decode_config(Root(root).read("/sys/bus/pci/devices/" + bdf + "/config").content);
}

// ---- reading back through the product's sysfs reader ------------------------------

struct ReadBack {
  Topology topo;
  Topology nccl;
  explicit ReadBack(const std::string& root) : topo(read_sysfs_topology(Root(root))), nccl(nccl_view(topo)) {}

  const Endpoint& by(const std::string& name_or_bdf) const {
    for (const auto& e : topo.endpoints)
      if (e.name == name_or_bdf || (e.address && e.address->str() == name_or_bdf)) return e;
    throw std::runtime_error("no endpoint " + name_or_bdf);
  }
  std::string smi(const std::string& a, const std::string& b) const { return smi_class(topo, by(a), by(b)).code(); }
  std::string nccl_path(const std::string& a, const std::string& b) const {
    const Endpoint* x = nccl.find(by(a).id);
    const Endpoint* y = nccl.find(by(b).id);
    return nccl_path_name(nccl_class(nccl, *x, *y).path);
  }
  std::size_t count(DeviceRole r) const { return topo.with_role(r).size(); }
};

TEST(RootBuilderReadBack, DgxH100Inventory) {
  ReadBack r(built("dgx-h100"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 12u);
  EXPECT_EQ(r.count(DeviceRole::Nvme), 2u);
  EXPECT_EQ(r.count(DeviceRole::NvSwitch), 4u);
  EXPECT_EQ(r.topo.numa_count, 2);
  for (const Endpoint* n : r.topo.with_role(DeviceRole::Nic)) {
    EXPECT_TRUE(n->rdma_device) << n->name;
    EXPECT_EQ(n->attributes.at("driver"), "mlx5_core");
  }
  EXPECT_EQ(r.by("mlx5_0").address->str(), "0000:18:00.0");
  EXPECT_EQ(r.by("mlx5_11").address->str(), "0000:dc:00.0");
  EXPECT_EQ(r.by("0000:1b:00.0").attributes.at("driver"), "nvidia");
  EXPECT_TRUE(r.topo.notes.empty()) << r.topo.notes.front();
}

TEST(RootBuilderReadBack, DgxH100LocalityIsKnownEverywhere) {
  ReadBack r(built("dgx-h100"));
  for (const auto& e : r.topo.endpoints) {
    ASSERT_TRUE(e.locality.known()) << e.id << " " << e.name;
    int expected = e.address->bus < 0x80 ? 0 : 1;
    EXPECT_EQ(e.locality.numa, expected) << e.id;
    EXPECT_EQ(e.locality.cpus, expected ? "8-15,24-31" : "0-7,16-23") << e.id;
  }
}

TEST(RootBuilderReadBack, DgxH100PathClasses) {
  ReadBack r(built("dgx-h100"));
  // GPU and NIC under two virtual sub-switches of one PEX89000: PXB by the
  // nvidia-smi rule, PIX for NCCL once it flattens the Broadcom switch.
  for (const auto& [gpu, nic] : std::vector<std::pair<std::string, std::string>>{{"0000:1b:00.0", "mlx5_0"},
                                                                                 {"0000:43:00.0", "mlx5_3"},
                                                                                 {"0000:9d:00.0", "mlx5_6"},
                                                                                 {"0000:df:00.0", "mlx5_11"}}) {
    EXPECT_EQ(r.smi(gpu, nic), "PXB") << gpu;
    EXPECT_EQ(r.nccl_path(gpu, nic), "PIX") << gpu;
  }
  Topology unflattened = nccl_view(r.topo, NcclViewOptions{false});
  EXPECT_EQ(nccl_path_name(nccl_class(unflattened, *unflattened.find(r.by("0000:1b:00.0").id),
                                      *unflattened.find(r.by("mlx5_0").id))
                               .path),
            std::string("PXB"));
  EXPECT_EQ(r.smi("0000:1b:00.0", "mlx5_3"), "NODE");
  EXPECT_EQ(r.nccl_path("0000:1b:00.0", "mlx5_3"), "PHB");
  EXPECT_EQ(r.smi("0000:1b:00.0", "mlx5_1"), "NODE");  // storage NIC, own root complex
  EXPECT_EQ(r.smi("0000:1b:00.0", "mlx5_6"), "SYS");
  EXPECT_EQ(r.smi("mlx5_1", "mlx5_2"), "PIX");  // two ports of one adapter below one root port
  EXPECT_EQ(r.smi("0000:1b:00.0", "0000:71:00.0"), "NODE");
  EXPECT_EQ(r.smi("0000:9d:00.0", "0000:71:00.0"), "SYS");
}

TEST(RootBuilderReadBack, DgxA100) {
  ReadBack r(built("dgx-a100"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 10u);
  EXPECT_EQ(r.count(DeviceRole::Nvme), 4u);
  EXPECT_EQ(r.topo.numa_count, 8);
  EXPECT_NE(r.by("mlx5_0").model.find("ConnectX-6"), std::string::npos);
  // Two GPUs, two NICs and an NVMe per switch: PIX among them, SYS elsewhere (NPS4).
  EXPECT_EQ(r.smi("0000:07:00.0", "mlx5_0"), "PIX");
  EXPECT_EQ(r.smi("0000:07:00.0", "mlx5_1"), "PIX");
  EXPECT_EQ(r.smi("0000:0f:00.0", "0000:03:00.0"), "PIX");
  EXPECT_EQ(r.nccl_path("0000:07:00.0", "mlx5_1"), "PIX");
  EXPECT_EQ(r.smi("0000:07:00.0", "mlx5_2"), "SYS");
  EXPECT_EQ(r.by("0000:07:00.0").locality.numa, 3);
  EXPECT_EQ(r.by("0000:47:00.0").locality.numa, 1);
  EXPECT_EQ(r.by("0000:87:00.0").locality.numa, 7);
  EXPECT_EQ(r.by("0000:b7:00.0").locality.numa, 5);
  EXPECT_EQ(r.by("mlx5_8").locality.numa, 4);  // storage NIC on a NUMA node without GPUs
}

TEST(RootBuilderReadBack, PcieServerNicOnTheOtherSocket) {
  ReadBack r(built("pcie-server-nic-remote"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 4u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 2u);
  EXPECT_EQ(r.smi("0000:18:00.0", "mlx5_0"), "SYS");
  EXPECT_EQ(r.smi("0000:4b:00.0", "mlx5_1"), "SYS");
  EXPECT_EQ(r.smi("0000:99:00.0", "mlx5_0"), "NODE");
  EXPECT_EQ(r.smi("0000:b2:00.0", "mlx5_0"), "PHB");
  EXPECT_EQ(r.nccl_path("0000:99:00.0", "mlx5_0"), "PHB");
  EXPECT_EQ(r.nccl_path("0000:18:00.0", "mlx5_0"), "SYS");
}

TEST(RootBuilderReadBack, RoceNodePairsArePix) {
  ReadBack r(built("roce-node"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 8u);
  const std::vector<std::string> gpus = {"0000:18:00.0", "0000:29:00.0", "0000:3a:00.0", "0000:4b:00.0",
                                         "0000:98:00.0", "0000:a9:00.0", "0000:ba:00.0", "0000:cb:00.0"};
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::string nic = "mlx5_" + std::to_string(i);
    EXPECT_EQ(r.smi(gpus[i], nic), "PIX") << gpus[i];
    EXPECT_EQ(r.nccl_path(gpus[i], nic), "PIX") << gpus[i];
  }
  EXPECT_EQ(r.smi(gpus[0], "mlx5_1"), "NODE");
  EXPECT_EQ(r.smi(gpus[0], "mlx5_4"), "SYS");
}

TEST(RootBuilderReadBack, VmIsFlattened) {
  ReadBack r(built("vm-flattened"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 8u);
  EXPECT_NE(r.by("mlx5_0").model.find("Virtual Function"), std::string::npos);
  EXPECT_EQ(r.smi("0000:11:00.0", "mlx5_0"), "PHB");
  EXPECT_EQ(r.smi("0000:11:00.0", "mlx5_3"), "PHB");
  EXPECT_EQ(r.smi("0000:11:00.0", "mlx5_4"), "SYS");
  EXPECT_EQ(r.smi("0000:81:00.0", "mlx5_7"), "PHB");
  EXPECT_EQ(r.nccl_path("0000:11:00.0", "mlx5_0"), "PHB");
  EXPECT_EQ(r.by("0000:81:00.0").locality.numa, 1);
}

TEST(RootBuilderReadBack, AwsP5EfaSharesASwitchWithEachGpu) {
  ReadBack r(built("aws-p5"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 32u);
  // Switch 45:00.0 of AWS's p5 topology file: EFAs 4f-52 and GPU 53.
  for (const char* efa : {"rdmap79s0", "rdmap80s0", "rdmap81s0", "rdmap82s0"}) {
    EXPECT_EQ(r.smi("0000:53:00.0", efa), "PIX") << efa;
    EXPECT_EQ(r.nccl_path("0000:53:00.0", efa), "PIX") << efa;
  }
  EXPECT_EQ(r.smi("0000:53:00.0", "rdmap96s0"), "NODE");
  EXPECT_EQ(r.nccl_path("0000:53:00.0", "rdmap96s0"), "PHB");
  EXPECT_EQ(r.smi("0000:53:00.0", "rdmap201s0"), "SYS");
  EXPECT_EQ(r.nccl_path("0000:53:00.0", "rdmap201s0"), "SYS");
  EXPECT_EQ(r.by("rdmap201s0").address->str(), "0000:c9:00.0");
}

TEST(RootBuilderReadBack, AzureVmIsFlatOnOneDomainPerDevice) {
  ReadBack r(built("azure-ndv4-vm"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 8u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 8u);
  EXPECT_EQ(r.topo.numa_count, 4);
  EXPECT_EQ(r.by("mlx5_ib0").address->str(), "0101:00:00.0");
  // The topology file groups 0001/0002 with 0101/0102 under one switch;
  // sysfs shows only separate root buses of one NUMA node.
  EXPECT_EQ(r.smi("0001:00:00.0", "mlx5_ib0"), "NODE");
  EXPECT_EQ(r.nccl_path("0001:00:00.0", "mlx5_ib0"), "PHB");
  EXPECT_EQ(r.smi("0001:00:00.0", "mlx5_ib2"), "SYS");
  EXPECT_EQ(r.nccl_path("0001:00:00.0", "mlx5_ib2"), "SYS");
  EXPECT_EQ(r.by("0003:00:00.0").locality.numa, 0);
  EXPECT_EQ(r.by("0003:00:00.0").locality.cpus, "0-23");
}

TEST(RootBuilderReadBack, Gh200GpuAndNicMeetAtTheCpu) {
  ReadBack r(built("gh200"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 1u);
  EXPECT_EQ(r.count(DeviceRole::Nic), 1u);
  EXPECT_EQ(r.by("0009:01:00.0").locality.numa, 0);
  EXPECT_EQ(r.smi("0009:01:00.0", "mlx5_0"), "NODE");
  EXPECT_EQ(r.nccl_path("0009:01:00.0", "mlx5_0"), "PHB");
}

TEST(RootBuilderReadBack, GeforcePairsArePix) {
  ReadBack r(built("pcie-geforce"));
  EXPECT_EQ(r.count(DeviceRole::Gpu), 2u);  // VGA class 0x0300 counts; the audio functions do not
  EXPECT_EQ(r.count(DeviceRole::Nic), 1u);
  EXPECT_EQ(r.topo.nodes[r.by("0000:43:00.0").node].pci_class, 0x030000u);
  EXPECT_EQ(r.smi("0000:43:00.0", "mlx5_0"), "PIX");
  EXPECT_EQ(r.smi("0000:44:00.0", "mlx5_0"), "PIX");
  EXPECT_EQ(r.nccl_path("0000:43:00.0", "mlx5_0"), "PIX");
}

// Every variant of every description builds (cached: later tests reuse the roots).
TEST(RootBuilderReadBack, EveryVariantBuilds) {
  for (const auto& entry : fs::directory_iterator(gdrcheck::testing::test_data("nodes"))) {
    std::string name = entry.path().stem().string();
    EXPECT_TRUE(Root(built(name)).exists("/.gdrcheck-fixture")) << name;
    for (const auto& v : list_variants(entry.path().string()))
      EXPECT_TRUE(Root(built(name, {v.name})).exists("/.gdrcheck-fixture")) << name << " +" << v.name;
  }
}

// ---- config bytes, decoded -------------------------------------------------------

TEST(RootBuilderConfig, PortTypesLinksAndAcs) {
  std::string root = built("dgx-h100");
  ConfigSpace gpu = config_of(root, "0000:1b:00.0");
  EXPECT_EQ(gpu.access, ConfigAccess::Full);
  EXPECT_EQ(gpu.vendor, 0x10de);
  EXPECT_EQ(gpu.device, 0x2330);
  EXPECT_EQ(gpu.class_code, 0x030200u);
  ASSERT_TRUE(gpu.pcie);
  EXPECT_EQ(gpu.pcie->port_type, PciePortType::Endpoint);
  EXPECT_EQ(gpu.pcie->link_cap.speed_code, 5);
  EXPECT_EQ(gpu.pcie->link_cap.width, 16);
  EXPECT_EQ(gpu.pcie->link_status.width, 16);
  EXPECT_FALSE(gpu.acs);
  ConfigSpace rp = config_of(root, "0000:13:01.0");
  EXPECT_EQ(rp.pcie->port_type, PciePortType::RootPort);
  EXPECT_EQ(rp.secondary_bus, 0x14);
  EXPECT_EQ(rp.subordinate_bus, 0x1b);
  ASSERT_TRUE(rp.acs);
  EXPECT_EQ(rp.acs->capability, 0x005f);
  EXPECT_EQ(rp.acs->control, 0x0000);
  ConfigSpace usp = config_of(root, "0000:14:00.0");
  EXPECT_EQ(usp.pcie->port_type, PciePortType::UpstreamPort);
  EXPECT_FALSE(usp.acs);
  ConfigSpace dsp = config_of(root, "0000:1a:00.0");
  EXPECT_EQ(dsp.pcie->port_type, PciePortType::DownstreamPort);
  ASSERT_TRUE(dsp.acs);
  EXPECT_EQ(dsp.acs->control, 0x0000);
  EXPECT_EQ(config_of(root, "0000:18:00.0").pcie->max_read_request, 4096);
  EXPECT_EQ(config_of(root, "0000:71:00.0").pcie->link_cap.width, 4);
}

TEST(RootBuilderConfig, SysfsLinkFilesMatchTheRegisters) {
  std::string root = built("dgx-h100");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:1b:00.0/max_link_speed"), "32.0 GT/s PCIe");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:1b:00.0/current_link_width"), "16");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:71:00.0/max_link_speed"), "16.0 GT/s PCIe");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:1b:00.0/class"), "0x030200");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:1b:00.0/local_cpulist"), "0-7,16-23");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:1b:00.0/local_cpus"), "00ff00ff");
  // Functions without PCIe capability have no link files.
  std::string vm = built("vm-flattened");
  EXPECT_FALSE(Root(vm).exists("/sys/bus/pci/devices/0000:00:03.0/max_link_speed"));
  EXPECT_EQ(trimmed_value(vm, "/sys/bus/pci/devices/0000:00:03.0/numa_node"), "-1");
  EXPECT_EQ(trimmed_value(vm, "/sys/bus/pci/devices/0000:10:00.0/max_link_speed"), "2.5 GT/s PCIe");
  EXPECT_EQ(config_of(vm, "0000:11:00.0").pcie->port_type, PciePortType::Endpoint);
  EXPECT_FALSE(config_of(vm, "0000:10:00.0").acs);
}

// ---- links and files --------------------------------------------------------------

TEST(RootBuilderLinks, RelativeLinksResolveInsideTheRoot) {
  std::string root = built("dgx-h100");
  Root r(root);
  std::string nic = dev_path("dgx-h100", "0000:18:00.0");
  EXPECT_EQ(r.resolve("/sys/bus/pci/devices/0000:18:00.0"), nic);
  EXPECT_EQ(r.resolve("/sys/class/infiniband/mlx5_0/device"), nic);
  EXPECT_EQ(r.resolve("/sys/class/net/ibp24s0/device"), nic);
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband_verbs/uverbs0/ibdev"), "mlx5_0");
  auto driver = r.readlink("/sys/bus/pci/devices/0000:1b:00.0/driver");
  ASSERT_TRUE(driver);
  EXPECT_EQ(*driver, "../../../../../../../../bus/pci/drivers/nvidia");  // dangling, depth of its level
  auto group = r.resolve("/sys/bus/pci/devices/0000:1b:00.0/iommu_group");
  ASSERT_TRUE(group);
  EXPECT_EQ(group->rfind("/sys/kernel/iommu_groups/", 0), 0u);
  EXPECT_TRUE(r.exists(*group + "/devices/0000:1b:00.0"));
  EXPECT_EQ(r.resolve("/sys/block/nvme0n1/device"), dev_path("dgx-h100", "0000:71:00.0") + "/nvme/nvme0");
  EXPECT_EQ(r.resolve("/sys/class/pci_bus/0000:14/device"), dev_path("dgx-h100", "0000:13:01.0"));
  EXPECT_FALSE(r.list("/sys/class/iommu").empty());
  for (const auto& link : {"/sys/class/infiniband/mlx5_5", "/sys/bus/pci/devices/0000:df:00.0"})
    EXPECT_NE(r.readlink(link)->front(), '/') << link;
}

TEST(RootBuilderLinks, VfPointsToItsPf) {
  std::string text = R"({"hostname": "h", "kernel": "6.8.0", "pci": [{"host_bridge": "0000:20", "numa": 0, "children": [
      {"kind": "root_port", "bdf": "0000:20:01.0", "vendor": "0x8086", "device": "0x2030", "children": [
        {"kind": "nic", "bdf": "0000:21:00.0", "device": "0x1021"},
        {"kind": "nic", "bdf": "0000:21:00.1", "device": "0x101e", "vf_of": "0000:21:00.0"},
        {"kind": "nic", "bdf": "0000:21:00.2", "device": "0x101e", "vf_of": "0000:21:00.0"}]}]}]})";
  std::string dir = scratch();
  NodeDescription d = parse_node_description(text, "mem.json");
  build_root(d, dir);
  Root r(dir);
  EXPECT_EQ(r.resolve("/sys/bus/pci/devices/0000:21:00.2/physfn"),
            sysfs_device_path(d, *PciAddress::parse("0000:21:00.0")));
  EXPECT_EQ(r.resolve("/sys/bus/pci/devices/0000:21:00.0/virtfn1"),
            sysfs_device_path(d, *PciAddress::parse("0000:21:00.2")));
  EXPECT_EQ(trimmed_value(dir, "/sys/bus/pci/devices/0000:21:00.0/sriov_numvfs"), "2");
  EXPECT_EQ(trimmed_value(dir, "/sys/bus/pci/devices/0000:21:00.0/sriov_totalvfs"), "8");
  EXPECT_FALSE(r.exists("/sys/bus/pci/devices/0000:21:00.1/sriov_numvfs"));
  EXPECT_EQ(trimmed_value(dir, "/sys/class/infiniband/mlx5_2/sys_image_guid"),
            trimmed_value(dir, "/sys/class/infiniband/mlx5_0/node_guid"));
}

TEST(RootBuilderFiles, HostDriverAndPeerMemory) {
  std::string h100 = built("dgx-h100");
  EXPECT_EQ(trimmed_value(h100, "/proc/sys/kernel/hostname"), "dgx-h100-01");
  EXPECT_EQ(trimmed_value(h100, "/etc/hostname"), "dgx-h100-01");
  EXPECT_EQ(trimmed_value(h100, "/proc/sys/kernel/osrelease"), "5.15.0-1042-nvidia");
  EXPECT_NE(trimmed_value(h100, "/proc/cmdline").find("iommu=pt"), std::string::npos);
  EXPECT_EQ(trimmed_value(h100, "/proc/driver/nvidia/version")
                .rfind("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.90.07  Release Build", 0),
            0u);
  EXPECT_NE(trimmed_value(h100, "/proc/driver/nvidia/params").find("EnablePCIERelaxedOrderingMode: 0"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(h100, "/sys/module/nvidia/version"), "550.90.07");
  EXPECT_EQ(trimmed_value(h100, "/sys/module/nvidia/taint"), "OE");
  EXPECT_EQ(trimmed_value(h100, "/sys/module/nvidia_peermem/version"), "550.90.07");
  EXPECT_EQ(trimmed_value(h100, "/sys/kernel/mm/memory_peers/nv_mem/version"), "550.90.07");
  EXPECT_TRUE(Root(h100).exists("/sys/kernel/mm/memory_peers/nv_mem_nc/num_alloc_mrs"));
  EXPECT_EQ(trimmed_value(h100, "/sys/module/nvme_core/parameters/multipath"), "N");
  EXPECT_EQ(trimmed_value(h100, "/sys/kernel/iommu_groups/0/type"), "identity");
  EXPECT_NE(trimmed_value(h100, "/proc/driver/nvidia/gpus/0000:1b:00.0/information").find("NVIDIA H100 80GB HBM3"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(h100, "/sys/class/infiniband/mlx5_0/hca_type"), "MT4129");
  EXPECT_EQ(trimmed_value(h100, "/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");
  EXPECT_EQ(trimmed_value(h100, "/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/1"), "RoCE v2");
  std::string a100 = built("dgx-a100");
  EXPECT_EQ(trimmed_value(a100, "/proc/driver/nvidia/version")
                .rfind("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  ", 0),
            0u);
  EXPECT_EQ(trimmed_value(a100, "/sys/module/nvidia/taint"), "POE");
  EXPECT_EQ(trimmed_value(a100, "/sys/class/iommu/ivhd0/devices/0000:07:00.0/vendor"), "0x10de");
  std::string pcie = built("pcie-server-nic-remote");
  EXPECT_FALSE(Root(pcie).exists("/sys/module/nvidia_peermem"));
  EXPECT_FALSE(Root(pcie).exists("/sys/kernel/mm/memory_peers"));
  EXPECT_EQ(trimmed_value(built("roce-node"), "/etc/nccl.conf"), "NCCL_IB_GID_INDEX=3\nNCCL_IB_TC=106");
  EXPECT_TRUE(Root(built("vm-flattened")).list("/sys/kernel/iommu_groups").empty());
}

TEST(RootBuilderFiles, ExtraFilesCopiesAndLinks) {
  std::string base = gdrcheck::testing::scratch_dir();
  fs::create_directories(base + "/data/nodes");
  fs::create_directories(base + "/data/recorded");
  { std::ofstream(base + "/data/recorded/topo.xml") << "<system version=\"1\"/>\n"; }
  {
    std::ofstream(base + "/data/nodes/n.json") << R"({"hostname": "h", "kernel": "6.8.0", "files": {
        "/etc/nccl.conf": "NCCL_DEBUG=INFO\n",
        "/opt/t.xml": {"copy": "../recorded/topo.xml"},
        "/usr/lib/libnccl.so.2.21.5": "x",
        "/usr/lib/libnccl.so.2": {"symlink": "libnccl.so.2.21.5"},
        "/usr/lib/libnccl.so": {"symlink": "/usr/lib/libnccl.so.2"}},
      "pci": [{"host_bridge": "0000:01", "numa": 0, "children": [{"kind": "gpu", "bdf": "0000:01:00.0", "device": "0x2330"}]}]})";
  }
  std::string dir = base + "/root";
  build_root(load_node_description(base + "/data/nodes/n.json"), dir);
  Root r(dir);
  EXPECT_EQ(r.read("/etc/nccl.conf").content, "NCCL_DEBUG=INFO\n");
  EXPECT_EQ(r.read("/opt/t.xml").content, "<system version=\"1\"/>\n");
  EXPECT_EQ(r.readlink("/usr/lib/libnccl.so.2"), "libnccl.so.2.21.5");
  EXPECT_EQ(r.readlink("/usr/lib/libnccl.so"), "libnccl.so.2");  // absolute targets are written relative
  EXPECT_EQ(r.resolve("/usr/lib/libnccl.so"), "/usr/lib/libnccl.so.2.21.5");
  EXPECT_EQ(r.read("/usr/lib/libnccl.so").content, "x");
}

TEST(RootBuilderFiles, NicWithoutUverbs) {
  std::string text = R"({"hostname": "h", "kernel": "6.8.0", "pci": [{"host_bridge": "0000:20", "numa": 0, "children": [
      {"kind": "root_port", "bdf": "0000:20:01.0", "vendor": "0x8086", "device": "0x2030", "children": [
        {"kind": "nic", "bdf": "0000:21:00.0", "device": "0x1021", "uverbs": false},
        {"kind": "nic", "bdf": "0000:21:00.1", "device": "0x1021"}]}]}]})";
  std::string dir = scratch();
  NodeDescription d = parse_node_description(text, "mem.json");
  build_root(d, dir);
  Root r(dir);
  EXPECT_TRUE(r.exists("/sys/class/infiniband/mlx5_0/ports/1/state"));
  EXPECT_FALSE(r.exists(sysfs_device_path(d, *PciAddress::parse("0000:21:00.0")) + "/infiniband_verbs"));
  EXPECT_EQ(r.list("/sys/class/infiniband_verbs"), (std::vector<std::string>{"abi_version", "uverbs0"}));
  EXPECT_EQ(trimmed_value(dir, "/sys/class/infiniband_verbs/uverbs0/ibdev"), "mlx5_1");
}

TEST(RootBuilderFiles, EfaDevices) {
  std::string root = built("aws-p5");
  Root r(root);
  EXPECT_EQ(r.list("/sys/class/infiniband").size(), 32u);
  std::string efa = "/sys/class/infiniband/rdmap79s0";
  EXPECT_EQ(trimmed_value(root, efa + "/node_type"), "7: unspecified");
  EXPECT_EQ(trimmed_value(root, efa + "/node_guid"), "0000:0000:0000:0000");
  EXPECT_EQ(trimmed_value(root, efa + "/fw_ver"), "");
  EXPECT_FALSE(r.exists(efa + "/hca_type")) << "an mlx5_ib attribute";
  EXPECT_FALSE(r.exists(efa + "/board_id"));
  EXPECT_EQ(trimmed_value(root, efa + "/ports/1/link_layer"), "Unknown");
  EXPECT_EQ(trimmed_value(root, efa + "/ports/1/state"), "4: ACTIVE");
  EXPECT_EQ(trimmed_value(root, efa + "/ports/1/rate"), "100 Gb/sec (4X EDR)");
  EXPECT_FALSE(r.exists(efa + "/ports/1/counters"));
  EXPECT_EQ(r.resolve(efa + "/device"), dev_path("aws-p5", "0000:4f:00.0"));
  EXPECT_EQ(trimmed_value(root, efa + "/device/vendor"), "0x1d0f");
  EXPECT_EQ(trimmed_value(root, efa + "/device/device"), "0xefa1");
  EXPECT_EQ(trimmed_value(root, efa + "/device/p2p"), "NVIDIA");
  EXPECT_EQ(*r.readlink(efa + "/device/driver"), "../../../../../../bus/pci/drivers/efa");
  EXPECT_FALSE(r.exists(efa + "/device/net")) << "EFA has no netdev of its own";
  EXPECT_EQ(r.list("/sys/class/infiniband_verbs").size(), 33u);  // uverbs0-31 and abi_version
  EXPECT_EQ(trimmed_value(root, "/sys/module/efa/version"), "2.13.0g");
  EXPECT_FALSE(r.exists("/sys/module/nvidia_peermem"));
  EXPECT_FALSE(r.exists("/opt/amazon/ofi-nccl"));
}

TEST(RootBuilderFiles, GraceCpuinfoAndGpuMemoryNode) {
  std::string root = built("gh200");
  Root r(root);
  std::string cpuinfo = trimmed_value(root, "/proc/cpuinfo");
  EXPECT_NE(cpuinfo.find("CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f"),
            std::string::npos);
  EXPECT_EQ(cpuinfo.find("vendor_id"), std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/online"), "0-1");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/has_cpu"), "0");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/has_memory"), "0-1");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/has_normal_memory"), "0");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/node1/cpulist"), "");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/node1/distance"), "80 10");
  EXPECT_NE(trimmed_value(root, "/sys/devices/system/node/node1/meminfo").find("Node 1 MemTotal:       100663296 kB"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0009:01:00.0/numa_node"), "0");
  EXPECT_EQ(trimmed_value(root, "/proc/sys/kernel/osrelease"), "6.8.0-1013-nvidia-64k");
  EXPECT_EQ(trimmed_value(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"), "536870912");
  EXPECT_EQ(trimmed_value(root, "/proc/driver/nvidia/version")
                .rfind("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  560.35.03", 0),
            0u);
  EXPECT_NE(trimmed_value(root, "/proc/driver/nvidia/gpus/0009:01:00.0/information").find("NVIDIA GH200 480GB"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/sys/module/nvidia_peermem/version"), "560.35.03");
  EXPECT_FALSE(r.exists("/sys/kernel/mm/memory_peers"));
  EXPECT_TRUE(r.list("/sys/class/iommu").front().rfind("smmu3.0x", 0) == 0);
}

TEST(RootBuilderFiles, GeforceBar1AndAudioFunction) {
  std::string root = built("pcie-geforce");
  std::string resource = trimmed_value(root, "/sys/bus/pci/devices/0000:43:00.0/resource");
  std::string bar1 =
      resource.substr(resource.find('\n') + 1, resource.find('\n', resource.find('\n') + 1) - resource.find('\n') - 1);
  unsigned long long start = 0, end = 0, flags = 0;
  ASSERT_EQ(std::sscanf(bar1.c_str(), "%llx %llx %llx", &start, &end, &flags), 3) << bar1;
  EXPECT_EQ(end - start + 1, 256ull << 20);  // no Resizable BAR
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:43:00.0/class"), "0x030000");
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:43:00.1/class"), "0x040300");
  EXPECT_NE(trimmed_value(root, "/proc/driver/nvidia/gpus/0000:43:00.0/information").find("NVIDIA GeForce RTX 4090"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/sys/kernel/mm/memory_peers/nv_mem/version"), "560.35.03");
}

TEST(RootBuilderFiles, AzureVmTopologyFileIsTheRecordedOne) {
  std::string recorded = gdrcheck::testing::read_test_data("recorded/azhpc-images/ndv4-topo.xml");
  std::string root = built("azure-ndv4-vm");
  Root r(root);
  EXPECT_EQ(r.read("/opt/microsoft/ndv4-topo.xml").content, recorded);
  EXPECT_NE(trimmed_value(root, "/etc/nccl.conf").find("NCCL_TOPO_FILE=/opt/microsoft/ndv4-topo.xml"),
            std::string::npos);
  // Every device and CPU mask of the file is in the root: <cpu numaid=N affinity=M> above <pci busid=B>.
  std::size_t matched = 0;
  for (std::size_t cpu = recorded.find("<cpu numaid=\""); cpu != std::string::npos;
       cpu = recorded.find("<cpu numaid=\"", cpu + 1)) {
    std::string numa = recorded.substr(cpu + 13, 1);
    std::size_t a = recorded.find("affinity=\"", cpu) + 10;
    std::string affinity = recorded.substr(a, recorded.find('"', a) - a);
    std::size_t next = recorded.find("<cpu ", cpu + 1);
    for (std::size_t b = recorded.find("busid=\"", cpu); b < next; b = recorded.find("busid=\"", b + 1)) {
      std::string bdf = recorded.substr(b + 7, 12);
      if (bdf.rfind("ffff:", 0) == 0) continue;  // Azure's fake switches
      EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/" + bdf + "/numa_node"), numa) << bdf;
      EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/" + bdf + "/local_cpus"), affinity) << bdf;
      ++matched;
    }
  }
  EXPECT_EQ(matched, 16u);
  ConfigSpace gpu = config_of(root, "0001:00:00.0");
  EXPECT_EQ(gpu.pcie->port_type, PciePortType::Endpoint);  // passed through, though on a root bus
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_ib0/ports/1/rate"), "200 Gb/sec (4X HDR)");

  Root missing(built("azure-ndv4-vm", {"topo-file-missing"}));
  EXPECT_FALSE(missing.exists("/opt/microsoft/ndv4-topo.xml"));
  EXPECT_NE(missing.read("/etc/nccl.conf").content.find("NCCL_TOPO_FILE=/opt/microsoft/ndv4-topo.xml"),
            std::string::npos);
  Root virt(built("azure-ndv4-vm", {"virtual-topology"}));
  EXPECT_EQ(virt.read("/var/run/nvidia-topologyd/virtualTopology.xml").content, recorded);
  EXPECT_EQ(virt.read("/etc/nccl.conf").content.find("NCCL_TOPO_FILE"), std::string::npos);
  EXPECT_FALSE(virt.exists("/opt/microsoft/ndv4-topo.xml"));
}

TEST(RootBuilderFiles, LegacyNvPeerMemRegistersOnlyNvMem) {
  std::string root = built("dgx-a100", {"nv-peer-mem"});
  Root r(root);
  EXPECT_EQ(trimmed_value(root, "/sys/module/nv_peer_mem/version"), "1.3");
  EXPECT_EQ(trimmed_value(root, "/sys/module/nv_peer_mem/taint"), "OE");
  EXPECT_FALSE(r.exists("/sys/module/nvidia_peermem"));
  EXPECT_EQ(trimmed_value(root, "/sys/kernel/mm/memory_peers/nv_mem/version"), "1.3");
  EXPECT_FALSE(r.exists("/sys/kernel/mm/memory_peers/nv_mem_nc"));
  EXPECT_NE(trimmed_value(root, "/proc/modules").find("nv_peer_mem 65536 0 - Live 0x0000000000000000 (OE)"),
            std::string::npos);
}

TEST(RootBuilderFiles, CpuAndNumaTopology) {
  std::string root = built("dgx-h100");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/online"), "0-1");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/node1/cpulist"), "8-15,24-31");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/node/node1/cpumap"), "ff00ff00");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/cpu/cpu17/topology/thread_siblings_list"), "1,17");
  EXPECT_EQ(trimmed_value(root, "/sys/devices/system/cpu/cpu9/topology/physical_package_id"), "1");
  EXPECT_NE(trimmed_value(root, "/proc/cpuinfo").find("model name\t: Intel(R) Xeon(R) Platinum 8480C"),
            std::string::npos);
  EXPECT_EQ(trimmed_value(built("dgx-a100"), "/sys/devices/system/node/node3/cpulist"), "12-15,44-47");
}

// ---- variants change exactly what they claim ------------------------------------

// Every entry of a tree: file → "f" + content, link → "l" + target, dir → "d".
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    std::string rel = it->path().string().substr(root.size());
    if (it->is_symlink()) {
      out[rel] = "l" + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      out[rel] = "d";
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      out[rel] = "f" + std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  out.erase("/.gdrcheck-fixture");  // names the variants by design
  return out;
}

std::set<std::string> changed(const std::string& a, const std::string& b) {
  static std::map<std::string, std::map<std::string, std::string>> cache;
  auto& x = cache.try_emplace(a, snapshot(a)).first->second;
  auto y = snapshot(b);
  std::set<std::string> out;
  for (const auto& [k, v] : x)
    if (!y.count(k) || y[k] != v) out.insert(k);
  for (const auto& [k, v] : y)
    if (!x.count(k)) out.insert(k);
  return out;
}

std::set<std::string> variant_changes(const std::string& variant) {
  return changed(built("dgx-h100"), built("dgx-h100", {variant}));
}

bool starts_with_any(const std::string& s, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (s.rfind(p, 0) == 0) return true;
  return false;
}

TEST(RootBuilderVariants, AcsRedirectTouchesOnePort) {
  std::string dsp = dev_path("dgx-h100", "0000:1a:00.0");
  EXPECT_EQ(variant_changes("acs-redirect"), std::set<std::string>{dsp + "/config"});
  std::string root = built("dgx-h100", {"acs-redirect"});
  EXPECT_EQ(config_of(root, "0000:1a:00.0").acs->control, 0x001d);
  for (const char* other : {"0000:13:01.0", "0000:15:01.0", "0000:17:00.0", "0000:42:00.0"})
    EXPECT_EQ(config_of(root, other).acs->control, 0x0000) << other;
}

TEST(RootBuilderVariants, RootlessTruncatesEveryConfig) {
  auto diff = variant_changes("rootless");
  EXPECT_EQ(diff.size(), described("dgx-h100").functions().size());
  for (const auto& p : diff) EXPECT_TRUE(p.ends_with("/config")) << p;
  std::string root = built("dgx-h100", {"rootless"});
  ConfigSpace c = config_of(root, "0000:13:01.0");
  EXPECT_EQ(c.size, 64u);
  EXPECT_EQ(c.access, ConfigAccess::HeaderOnly);
  EXPECT_EQ(c.vendor, 0x8086);
  EXPECT_EQ(c.secondary_bus, 0x14);  // bus numbers are in the first 64 bytes
  EXPECT_FALSE(c.acs_known());
  ReadBack r(root);  // hwloc still nests the tree from the header
  EXPECT_EQ(r.smi("0000:1b:00.0", "mlx5_0"), "PXB");
}

TEST(RootBuilderVariants, GpuX8) {
  std::string gpu = dev_path("dgx-h100", "0000:52:00.0");
  EXPECT_EQ(variant_changes("gpu-x8"), (std::set<std::string>{gpu + "/config", gpu + "/current_link_width"}));
  std::string root = built("dgx-h100", {"gpu-x8"});
  ConfigSpace c = config_of(root, "0000:52:00.0");
  EXPECT_EQ(c.pcie->link_status.width, 8);
  EXPECT_EQ(c.pcie->link_cap.width, 16);
  EXPECT_EQ(trimmed_value(root, "/sys/bus/pci/devices/0000:52:00.0/max_link_width"), "16");
}

TEST(RootBuilderVariants, NicSlowAndPortDown) {
  std::string mlx5_3 = dev_path("dgx-h100", "0000:40:00.0") + "/infiniband/mlx5_3/ports/1";
  EXPECT_EQ(variant_changes("nic-slow"), std::set<std::string>{mlx5_3 + "/rate"});
  EXPECT_EQ(trimmed_value(built("dgx-h100", {"nic-slow"}), "/sys/class/infiniband/mlx5_3/ports/1/rate"),
            "200 Gb/sec (4X HDR)");
  std::string nic = dev_path("dgx-h100", "0000:18:00.0");
  std::string port = nic + "/infiniband/mlx5_0/ports/1";
  EXPECT_EQ(variant_changes("port-down"),
            (std::set<std::string>{port + "/state", port + "/phys_state", nic + "/net/ibp24s0/operstate",
                                   nic + "/net/ibp24s0/carrier"}));
  std::string root = built("dgx-h100", {"port-down"});
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_0/ports/1/state"), "1: DOWN");
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_0/ports/1/phys_state"), "3: Disabled");
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");  // stale
}

TEST(RootBuilderVariants, PortDownIsGpu0sNic) {
  // mlx5_0 is the NIC under GPU0's switch: NCCL's IB transport skips the
  // inactive port, leaving GPU0 only PHB NICs while GPU1 keeps mlx5_3.
  ReadBack r(built("dgx-h100", {"port-down"}));
  EXPECT_EQ(r.nccl_path("0000:1b:00.0", "mlx5_0"), "PIX");
  EXPECT_EQ(r.nccl_path("0000:1b:00.0", "mlx5_3"), "PHB");
  EXPECT_EQ(r.nccl_path("0000:43:00.0", "mlx5_3"), "PIX");
}

TEST(RootBuilderVariants, PortsAllDown) {
  for (const auto& p : variant_changes("ports-all-down"))
    EXPECT_TRUE(p.ends_with("/state") || p.ends_with("/phys_state") || p.ends_with("/operstate") ||
                p.ends_with("/carrier"))
        << p;
  std::string root = built("dgx-h100", {"ports-all-down"});
  auto devices = Root(root).list("/sys/class/infiniband");
  EXPECT_EQ(devices.size(), 12u);
  for (const auto& dev : devices) {
    EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/" + dev + "/ports/1/state"), "1: DOWN") << dev;
    EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/" + dev + "/ports/1/phys_state"), "3: Disabled") << dev;
  }
  EXPECT_EQ(trimmed_value(root, "/sys/class/net/enp41s0f0np0/operstate"), "down");
}

TEST(RootBuilderVariants, NoUverbs) {
  for (const auto& p : variant_changes("no-uverbs"))
    EXPECT_TRUE(p.find("infiniband_verbs") != std::string::npos || p == "/proc/modules" ||
                starts_with_any(p, {"/sys/module/ib_uverbs", "/sys/module/rdma_ucm"}))
        << p;
  std::string root = built("dgx-h100", {"no-uverbs"});
  Root r(root);
  EXPECT_FALSE(r.exists("/sys/class/infiniband_verbs"));
  EXPECT_FALSE(r.exists("/sys/module/ib_uverbs"));
  EXPECT_FALSE(r.exists("/sys/module/rdma_ucm"));
  EXPECT_EQ(trimmed_value(root, "/proc/modules").find("ib_uverbs"), std::string::npos);
  EXPECT_EQ(r.list("/sys/class/infiniband").size(), 12u);
  for (const char* bdf : {"0000:18:00.0", "0000:29:00.1", "0000:dc:00.0"})
    EXPECT_FALSE(r.exists(dev_path("dgx-h100", bdf) + "/infiniband_verbs")) << bdf;
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_0/ports/1/lid"),
            trimmed_value(built("dgx-h100"), "/sys/class/infiniband/mlx5_0/ports/1/lid"));
}

TEST(RootBuilderVariants, PeermemNewStack) {
  for (const auto& p : variant_changes("peermem-new-stack"))
    EXPECT_TRUE(p == "/proc/cmdline" || p == "/proc/modules" ||
                starts_with_any(p, {"/proc/sys/kernel/osrelease", "/proc/version", "/proc/driver/nvidia/version",
                                    "/sys/module/", "/sys/kernel/mm/memory_peers"}))
        << p;
  std::string root = built("dgx-h100", {"peermem-new-stack"});
  Root r(root);
  EXPECT_EQ(trimmed_value(root, "/sys/module/nvidia_peermem/version"), "550.127.05");
  EXPECT_FALSE(r.exists("/sys/kernel/mm/memory_peers"));
  EXPECT_EQ(trimmed_value(root, "/proc/sys/kernel/osrelease"), "6.8.0-1015-nvidia");
  EXPECT_NE(trimmed_value(root, "/proc/cmdline").find("vmlinuz-6.8.0-1015-nvidia"), std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/sys/module/mlx5_core/version"), "24.10-0.7.0");
  EXPECT_EQ(trimmed_value(root, "/sys/module/nvidia/taint"), "OE");
}

TEST(RootBuilderVariants, NcclInstalls) {
  EXPECT_EQ(
      variant_changes("nccl-2.18"),
      (std::set<std::string>{"/usr", "/usr/lib", "/usr/lib/x86_64-linux-gnu",
                             "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.6", "/usr/lib/x86_64-linux-gnu/libnccl.so.2",
                             "/usr/lib/x86_64-linux-gnu/libnccl.so", "/usr/include", "/usr/include/nccl.h"}));
  Root r(built("dgx-h100", {"nccl-2.18"}));
  EXPECT_EQ(r.readlink("/usr/lib/x86_64-linux-gnu/libnccl.so.2"), "libnccl.so.2.18.6");
  EXPECT_EQ(r.resolve("/usr/lib/x86_64-linux-gnu/libnccl.so"), "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.6");
  EXPECT_NE(r.read("/usr/lib/x86_64-linux-gnu/libnccl.so").content.find("NCCL version 2.18.6+cuda"), std::string::npos);
  std::string header = r.read("/usr/include/nccl.h").content;
  for (const char* line : {"#define NCCL_MAJOR 2\n", "#define NCCL_MINOR 18\n", "#define NCCL_PATCH 6\n",
                           "#define NCCL_VERSION_CODE 21806\n"})
    EXPECT_NE(header.find(line), std::string::npos) << line;

  for (const auto& p : variant_changes("nccl-2.21-and-wheel-2.23")) EXPECT_TRUE(p.rfind("/usr", 0) == 0) << p;
  Root w(built("dgx-h100", {"nccl-2.21-and-wheel-2.23"}));
  EXPECT_EQ(w.resolve("/usr/lib/x86_64-linux-gnu/libnccl.so.2"), "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5");
  EXPECT_FALSE(w.exists("/usr/include/nccl.h"));
  std::string metadata =
      w.read("/usr/local/lib/python3.10/dist-packages/nvidia_nccl_cu12-2.23.4.dist-info/METADATA").content;
  EXPECT_NE(metadata.find("\nName: nvidia-nccl-cu12\n"), std::string::npos);
  EXPECT_NE(metadata.find("\nVersion: 2.23.4\n"), std::string::npos);
  EXPECT_NE(w.read("/usr/local/lib/python3.10/dist-packages/nvidia/nccl/lib/libnccl.so.2").content.find("2.23.4"),
            std::string::npos);
}

TEST(RootBuilderVariants, NicRemovedLeavesGpu0NoPixNic) {
  std::string root = built("dgx-h100", {"nic-removed"});
  Root r(root);
  EXPECT_FALSE(r.exists("/sys/bus/pci/devices/0000:18:00.0"));
  std::string dsp = dev_path("dgx-h100", "0000:17:00.0");
  EXPECT_TRUE(r.is_dir(dsp));
  EXPECT_EQ(trimmed_value(root, dsp + "/secondary_bus_number"), "24");  // 0x18: the bus stays assigned
  EXPECT_EQ(config_of(root, "0000:17:00.0").secondary_bus, 0x18);
  EXPECT_EQ(r.list("/sys/class/infiniband").size(), 11u);
  ReadBack b(root);
  EXPECT_EQ(b.by("mlx5_0").address->str(), "0000:29:00.0");  // names shift in probe order
  EXPECT_EQ(b.by("mlx5_2").address->str(), "0000:40:00.0");
  for (const Endpoint* nic : b.topo.with_role(DeviceRole::Nic))
    EXPECT_NE(b.nccl_path("0000:1b:00.0", nic->name), "PIX") << nic->name;
  EXPECT_EQ(b.nccl_path("0000:1b:00.0", "mlx5_2"), "PHB");
  EXPECT_EQ(b.nccl_path("0000:43:00.0", "mlx5_2"), "PIX");  // GPU1, GPU0's NVLink peer
}

TEST(RootBuilderVariants, RoceDualPort) {
  std::string root = built("roce-node", {"dual-port"});
  ReadBack r(root);
  EXPECT_EQ(r.count(DeviceRole::Nic), 16u);
  for (const char* nic : {"mlx5_0", "mlx5_1"}) {
    EXPECT_EQ(trimmed_value(root, std::string("/sys/class/infiniband/") + nic + "/ports/1/state"), "4: ACTIVE");
    EXPECT_EQ(r.nccl_path("0000:18:00.0", nic), "PIX") << nic;
  }
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_1/sys_image_guid"),
            trimmed_value(root, "/sys/class/infiniband/mlx5_0/sys_image_guid"));
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_1/ports/1/gids/3"),
            "0000:0000:0000:0000:0000:ffff:0a0b:000c");
  EXPECT_EQ(trimmed_value(root, "/sys/class/infiniband/mlx5_1/ports/1/rate"), "200 Gb/sec (4X HDR)");
  EXPECT_EQ(r.smi("mlx5_0", "mlx5_1"), "PIX");
}

TEST(RootBuilderVariants, AwsP5OfiPlugin) {
  EXPECT_EQ(changed(built("aws-p5"), built("aws-p5", {"ofi-plugin"})),
            (std::set<std::string>{"/opt", "/opt/amazon", "/opt/amazon/ofi-nccl", "/opt/amazon/ofi-nccl/lib",
                                   "/opt/amazon/ofi-nccl/lib/libnccl-net.so", "/opt/amazon/efa", "/opt/amazon/efa/lib",
                                   "/opt/amazon/efa/lib/libfabric.so.1", "/etc/ld.so.conf.d/000_efa.conf"}));
  std::string root = built("aws-p5", {"ofi-plugin"});
  EXPECT_NE(trimmed_value(root, "/opt/amazon/ofi-nccl/lib/libnccl-net.so").find("aws-ofi-nccl"), std::string::npos);
  EXPECT_EQ(trimmed_value(root, "/etc/ld.so.conf.d/000_efa.conf"), "/opt/amazon/efa/lib\n/opt/amazon/ofi-nccl/lib");
}

TEST(RootBuilderVariants, PeerMemory) {
  auto unregistered = variant_changes("peermem-unregistered");
  EXPECT_FALSE(unregistered.empty());
  for (const auto& p : unregistered) EXPECT_TRUE(p.rfind("/sys/kernel/mm/memory_peers", 0) == 0) << p;
  std::string u = built("dgx-h100", {"peermem-unregistered"});
  EXPECT_TRUE(Root(u).exists("/sys/module/nvidia_peermem/version"));
  EXPECT_FALSE(Root(u).exists("/sys/kernel/mm/memory_peers"));
  EXPECT_TRUE(Root(u).exists("/sys/kernel/mm"));

  for (const auto& p : variant_changes("peermem-missing"))
    EXPECT_TRUE(starts_with_any(p, {"/sys/kernel/mm/memory_peers", "/sys/module/nvidia", "/proc/driver/nvidia/version",
                                    "/proc/driver/nvidia/params", "/proc/modules"}))
        << p;
  std::string m = built("dgx-h100", {"peermem-missing"});
  EXPECT_FALSE(Root(m).exists("/sys/module/nvidia_peermem"));
  EXPECT_FALSE(Root(m).exists("/sys/kernel/mm/memory_peers"));
  EXPECT_EQ(trimmed_value(m, "/sys/module/nvidia/taint"), "POE");
  EXPECT_EQ(trimmed_value(m, "/proc/driver/nvidia/version").find("Open"), std::string::npos);
}

TEST(RootBuilderVariants, IommuTranslated) {
  auto diff = variant_changes("iommu-translated");
  EXPECT_TRUE(diff.count("/proc/cmdline"));
  for (const auto& p : diff)
    EXPECT_TRUE(p == "/proc/cmdline" || (p.rfind("/sys/kernel/iommu_groups/", 0) == 0 && p.ends_with("/type"))) << p;
  EXPECT_EQ(diff.size(), described("dgx-h100").functions().size() + 1);
  std::string root = built("dgx-h100", {"iommu-translated"});
  EXPECT_EQ(trimmed_value(root, "/sys/kernel/iommu_groups/7/type"), "DMA-FQ");
  std::string cmdline = trimmed_value(root, "/proc/cmdline");
  EXPECT_NE(cmdline.find("intel_iommu=on"), std::string::npos);
  EXPECT_EQ(cmdline.find("iommu=pt"), std::string::npos);
}

TEST(RootBuilderVariants, StrayNcclConfigFiles) {
  EXPECT_EQ(variant_changes("stray-nccl-conf"), std::set<std::string>{"/etc/nccl.conf"});
  std::string conf = trimmed_value(built("dgx-h100", {"stray-nccl-conf"}), "/etc/nccl.conf");
  EXPECT_NE(conf.find("NCCL_IB_HCA=mlx5_1"), std::string::npos);
  EXPECT_NE(conf.find("NCCL_NET_GDR_LEVEL=LOC"), std::string::npos);
  EXPECT_EQ(variant_changes("stray-topo-file"), (std::set<std::string>{"/root", "/root/.nccl.conf"}));
}

// ---- the output directory ---------------------------------------------------------

TEST(RootBuilderOutdir, RefusesANonEmptyDirectory) {
  std::string dir = scratch();
  fs::create_directories(dir);
  { std::ofstream(dir + "/precious.txt") << "user data"; }
  NodeDescription d = described("roce-node");
  try {
    build_root(d, dir);
    FAIL() << "built into a non-empty directory";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir);
    EXPECT_NE(e.problem().find("not empty"), std::string::npos);
  }
  EXPECT_EQ(fs::directory_iterator(dir)->path().filename(), "precious.txt");
  std::ifstream in(dir + "/precious.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "user data");
}

TEST(RootBuilderOutdir, RefusesAFileAcceptsAnEmptyOrNewDirectory) {
  std::string base = scratch();
  fs::create_directories(base + "/empty");
  { std::ofstream(base + "/file") << "x"; }
  NodeDescription d = described("pcie-server-nic-remote");
  EXPECT_THROW(build_root(d, base + "/file"), InputError);
  BuildSummary s = build_root(d, base + "/empty");
  EXPECT_GT(s.files, 100u);
  EXPECT_GT(s.links, 10u);
  build_root(d, base + "/new/nested");
  EXPECT_EQ(trimmed_value(base + "/new/nested", "/proc/sys/kernel/hostname"), "gpu-pcie-03");
}

#ifdef GDRCHECK_MKROOT_BINARY
struct MkrootRun {
  int code = -1;
  std::string err;
};

// Runs gdrcheck-mkroot with an argument vector (no shell), capturing stderr.
MkrootRun mkroot(std::vector<std::string> args) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);  // the "wrote ..." line
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    std::vector<char*> argv{const_cast<char*>(GDRCHECK_MKROOT_BINARY)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  MkrootRun r;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.err.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(RootBuilderCli, BuildsRefusesAndReportsBadInput) {
  std::string base = scratch();
  EXPECT_EQ(mkroot({description_file("dgx-h100"), base + "/out", "--variant", "acs-redirect"}).code, 0);
  EXPECT_EQ(trimmed_value(base + "/out", "/.gdrcheck-fixture").find("variants: acs-redirect") != std::string::npos,
            true);
  MkrootRun again = mkroot({description_file("dgx-h100"), base + "/out"});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find(base + "/out: exists and is not empty"), std::string::npos) << again.err;
  { std::ofstream(base + "/bad.json") << "{\"hostname\": "; }
  MkrootRun bad = mkroot({base + "/bad.json", base + "/out2"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(base + "/bad.json: not valid JSON"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(base + "/out2"));
  MkrootRun variant = mkroot({description_file("dgx-h100"), base + "/out3", "--variant", "nope"});
  EXPECT_EQ(variant.code, 2);
  EXPECT_NE(variant.err.find("/variants: unknown variant \"nope\""), std::string::npos) << variant.err;
}
#endif

}  // namespace
}  // namespace gdrcheck::fixture

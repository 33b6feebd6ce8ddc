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

std::string node_file(const std::string& name) {
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
  return load_node_description(node_file(fixture), variants);
}

std::string dev_path(const std::string& fixture, const std::string& bdf) {
  return sysfs_device_path(described(fixture), *PciAddress::parse(bdf));
}

std::string read(const std::string& root, const std::string& inside) {
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
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:1b:00.0/max_link_speed"), "32.0 GT/s PCIe");
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:1b:00.0/current_link_width"), "16");
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:71:00.0/max_link_speed"), "16.0 GT/s PCIe");
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:1b:00.0/class"), "0x030200");
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:1b:00.0/local_cpulist"), "0-7,16-23");
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:1b:00.0/local_cpus"), "00ff00ff");
  // Functions without PCIe capability have no link files.
  std::string vm = built("vm-flattened");
  EXPECT_FALSE(Root(vm).exists("/sys/bus/pci/devices/0000:00:03.0/max_link_speed"));
  EXPECT_EQ(read(vm, "/sys/bus/pci/devices/0000:00:03.0/numa_node"), "-1");
  EXPECT_EQ(read(vm, "/sys/bus/pci/devices/0000:10:00.0/max_link_speed"), "2.5 GT/s PCIe");
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
  EXPECT_EQ(read(root, "/sys/class/infiniband_verbs/uverbs0/ibdev"), "mlx5_0");
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
  EXPECT_EQ(read(dir, "/sys/bus/pci/devices/0000:21:00.0/sriov_numvfs"), "2");
  EXPECT_EQ(read(dir, "/sys/bus/pci/devices/0000:21:00.0/sriov_totalvfs"), "8");
  EXPECT_FALSE(r.exists("/sys/bus/pci/devices/0000:21:00.1/sriov_numvfs"));
  EXPECT_EQ(read(dir, "/sys/class/infiniband/mlx5_2/sys_image_guid"),
            read(dir, "/sys/class/infiniband/mlx5_0/node_guid"));
}

TEST(RootBuilderFiles, HostDriverAndPeerMemory) {
  std::string h100 = built("dgx-h100");
  EXPECT_EQ(read(h100, "/proc/sys/kernel/hostname"), "dgx-h100-01");
  EXPECT_EQ(read(h100, "/etc/hostname"), "dgx-h100-01");
  EXPECT_EQ(read(h100, "/proc/sys/kernel/osrelease"), "5.15.0-1042-nvidia");
  EXPECT_NE(read(h100, "/proc/cmdline").find("iommu=pt"), std::string::npos);
  EXPECT_EQ(read(h100, "/proc/driver/nvidia/version")
                .rfind("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.90.07  Release Build", 0),
            0u);
  EXPECT_NE(read(h100, "/proc/driver/nvidia/params").find("EnablePCIERelaxedOrderingMode: 0"), std::string::npos);
  EXPECT_EQ(read(h100, "/sys/module/nvidia/version"), "550.90.07");
  EXPECT_EQ(read(h100, "/sys/module/nvidia/taint"), "OE");
  EXPECT_EQ(read(h100, "/sys/module/nvidia_peermem/version"), "550.90.07");
  EXPECT_EQ(read(h100, "/sys/kernel/mm/memory_peers/nv_mem/version"), "550.90.07");
  EXPECT_TRUE(Root(h100).exists("/sys/kernel/mm/memory_peers/nv_mem_nc/num_alloc_mrs"));
  EXPECT_EQ(read(h100, "/sys/module/nvme_core/parameters/multipath"), "N");
  EXPECT_EQ(read(h100, "/sys/kernel/iommu_groups/0/type"), "identity");
  EXPECT_NE(read(h100, "/proc/driver/nvidia/gpus/0000:1b:00.0/information").find("NVIDIA H100 80GB HBM3"),
            std::string::npos);
  EXPECT_EQ(read(h100, "/sys/class/infiniband/mlx5_0/hca_type"), "MT4129");
  EXPECT_EQ(read(h100, "/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");
  EXPECT_EQ(read(h100, "/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/1"), "RoCE v2");
  std::string a100 = built("dgx-a100");
  EXPECT_EQ(read(a100, "/proc/driver/nvidia/version")
                .rfind("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  ", 0),
            0u);
  EXPECT_EQ(read(a100, "/sys/module/nvidia/taint"), "POE");
  EXPECT_EQ(read(a100, "/sys/class/iommu/ivhd0/devices/0000:07:00.0/vendor"), "0x10de");
  std::string pcie = built("pcie-server-nic-remote");
  EXPECT_FALSE(Root(pcie).exists("/sys/module/nvidia_peermem"));
  EXPECT_FALSE(Root(pcie).exists("/sys/kernel/mm/memory_peers"));
  EXPECT_EQ(read(built("roce-node"), "/etc/nccl.conf"), "NCCL_IB_GID_INDEX=3\nNCCL_IB_TC=106");
  EXPECT_TRUE(Root(built("vm-flattened")).list("/sys/kernel/iommu_groups").empty());
}

TEST(RootBuilderFiles, LegacyNvPeerMemRegistersOnlyNvMem) {
  std::string root = built("dgx-a100", {"nv-peer-mem"});
  Root r(root);
  EXPECT_EQ(read(root, "/sys/module/nv_peer_mem/version"), "1.3");
  EXPECT_EQ(read(root, "/sys/module/nv_peer_mem/taint"), "OE");
  EXPECT_FALSE(r.exists("/sys/module/nvidia_peermem"));
  EXPECT_EQ(read(root, "/sys/kernel/mm/memory_peers/nv_mem/version"), "1.3");
  EXPECT_FALSE(r.exists("/sys/kernel/mm/memory_peers/nv_mem_nc"));
  EXPECT_NE(read(root, "/proc/modules").find("nv_peer_mem 65536 0 - Live 0x0000000000000000 (OE)"), std::string::npos);
}

TEST(RootBuilderFiles, CpuAndNumaTopology) {
  std::string root = built("dgx-h100");
  EXPECT_EQ(read(root, "/sys/devices/system/node/online"), "0-1");
  EXPECT_EQ(read(root, "/sys/devices/system/node/node1/cpulist"), "8-15,24-31");
  EXPECT_EQ(read(root, "/sys/devices/system/node/node1/cpumap"), "ff00ff00");
  EXPECT_EQ(read(root, "/sys/devices/system/cpu/cpu17/topology/thread_siblings_list"), "1,17");
  EXPECT_EQ(read(root, "/sys/devices/system/cpu/cpu9/topology/physical_package_id"), "1");
  EXPECT_NE(read(root, "/proc/cpuinfo").find("model name\t: Intel(R) Xeon(R) Platinum 8480C"), std::string::npos);
  EXPECT_EQ(read(built("dgx-a100"), "/sys/devices/system/node/node3/cpulist"), "12-15,44-47");
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
  EXPECT_EQ(read(root, "/sys/bus/pci/devices/0000:52:00.0/max_link_width"), "16");
}

TEST(RootBuilderVariants, NicSlowAndPortDown) {
  std::string mlx5_3 = dev_path("dgx-h100", "0000:40:00.0") + "/infiniband/mlx5_3/ports/1";
  EXPECT_EQ(variant_changes("nic-slow"), std::set<std::string>{mlx5_3 + "/rate"});
  EXPECT_EQ(read(built("dgx-h100", {"nic-slow"}), "/sys/class/infiniband/mlx5_3/ports/1/rate"), "200 Gb/sec (4X HDR)");
  std::string nic = dev_path("dgx-h100", "0000:18:00.0");
  std::string port = nic + "/infiniband/mlx5_0/ports/1";
  EXPECT_EQ(variant_changes("port-down"),
            (std::set<std::string>{port + "/state", port + "/phys_state", nic + "/net/ibp24s0/operstate",
                                   nic + "/net/ibp24s0/carrier"}));
  std::string root = built("dgx-h100", {"port-down"});
  EXPECT_EQ(read(root, "/sys/class/infiniband/mlx5_0/ports/1/state"), "1: DOWN");
  EXPECT_EQ(read(root, "/sys/class/infiniband/mlx5_0/ports/1/phys_state"), "3: Disabled");
  EXPECT_EQ(read(root, "/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");  // stale
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
  EXPECT_EQ(read(m, "/sys/module/nvidia/taint"), "POE");
  EXPECT_EQ(read(m, "/proc/driver/nvidia/version").find("Open"), std::string::npos);
}

TEST(RootBuilderVariants, IommuTranslated) {
  auto diff = variant_changes("iommu-translated");
  EXPECT_TRUE(diff.count("/proc/cmdline"));
  for (const auto& p : diff)
    EXPECT_TRUE(p == "/proc/cmdline" || (p.rfind("/sys/kernel/iommu_groups/", 0) == 0 && p.ends_with("/type"))) << p;
  EXPECT_EQ(diff.size(), described("dgx-h100").functions().size() + 1);
  std::string root = built("dgx-h100", {"iommu-translated"});
  EXPECT_EQ(read(root, "/sys/kernel/iommu_groups/7/type"), "DMA-FQ");
  std::string cmdline = read(root, "/proc/cmdline");
  EXPECT_NE(cmdline.find("intel_iommu=on"), std::string::npos);
  EXPECT_EQ(cmdline.find("iommu=pt"), std::string::npos);
}

TEST(RootBuilderVariants, StrayNcclConfigFiles) {
  EXPECT_EQ(variant_changes("stray-nccl-conf"), std::set<std::string>{"/etc/nccl.conf"});
  std::string conf = read(built("dgx-h100", {"stray-nccl-conf"}), "/etc/nccl.conf");
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
  EXPECT_EQ(read(base + "/new/nested", "/proc/sys/kernel/hostname"), "gpu-pcie-03");
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
  EXPECT_EQ(mkroot({node_file("dgx-h100"), base + "/out", "--variant", "acs-redirect"}).code, 0);
  EXPECT_EQ(read(base + "/out", "/.gdrcheck-fixture").find("variants: acs-redirect") != std::string::npos, true);
  MkrootRun again = mkroot({node_file("dgx-h100"), base + "/out"});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find(base + "/out: exists and is not empty"), std::string::npos) << again.err;
  { std::ofstream(base + "/bad.json") << "{\"hostname\": "; }
  MkrootRun bad = mkroot({base + "/bad.json", base + "/out2"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(base + "/bad.json: not valid JSON"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(base + "/out2"));
  MkrootRun variant = mkroot({node_file("dgx-h100"), base + "/out3", "--variant", "nope"});
  EXPECT_EQ(variant.code, 2);
  EXPECT_NE(variant.err.find("/variants: unknown variant \"nope\""), std::string::npos) << variant.err;
}
#endif

}  // namespace
}  // namespace gdrcheck::fixture

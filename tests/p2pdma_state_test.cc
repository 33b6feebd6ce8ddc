// The PCI-P2PDMA route's prerequisites as read from a root: kallsyms first,
// the kernel's config when kallsyms is not there, the driver's registry
// line and the architecture.
#include "host/p2pdma_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

void write_in_root(const std::string& root, const std::string& inside, const std::string& text) {
  fs::path p = fs::path(root) / inside.substr(1);
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(P2pdmaState, KallsymsDecidesByWholeSymbolNames) {
  std::string root = testing::scratch_dir();
  write_in_root(root, "/proc/kallsyms",
                "0000000000000000 T pci_p2pdma_add_resource_x\n0000000000000000 t xp2pdma_pgmap_ops\n");
  EXPECT_EQ(read_p2pdma_state(Root(root)).kernel, false);
  write_in_root(root, "/proc/kallsyms", "0000000000000000 d p2pdma_pgmap_ops\t[nvme]\n");
  EXPECT_EQ(read_p2pdma_state(Root(root)).kernel, true);
}

TEST(P2pdmaState, TheKernelConfigDecidesWithoutKallsyms) {
  std::string root = testing::scratch_dir();
  write_in_root(root, "/proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
  P2pdmaState none = read_p2pdma_state(Root(root));
  EXPECT_FALSE(none.kernel);
  EXPECT_NE(none.kernel_evidence.find("/boot/config-6.8.0-45-generic: not found"), std::string::npos)
      << none.kernel_evidence;
  write_in_root(root, "/lib/modules/6.8.0-45-generic/config", "#\nCONFIG_ZONE_DEVICE=y\nCONFIG_PCI_P2PDMA=y\n");
  P2pdmaState s = read_p2pdma_state(Root(root));
  EXPECT_EQ(s.kernel, true);
  EXPECT_NE(s.kernel_evidence.find("/lib/modules/6.8.0-45-generic/config"), std::string::npos);
  write_in_root(root, "/boot/config-6.8.0-45-generic", "#\n# CONFIG_PCI_P2PDMA is not set\n");
  EXPECT_EQ(read_p2pdma_state(Root(root)).kernel, false);  // /boot's config is looked at first
}

TEST(P2pdmaState, RegistryLineAndArchitecture) {
  std::string root = testing::scratch_dir();
  EXPECT_FALSE(read_p2pdma_state(Root(root)).registry.value);
  EXPECT_FALSE(read_p2pdma_state(Root(root)).x86);
  write_in_root(root, "/proc/driver/nvidia/params",
                "EnableMSI: 1\nRegistryDwords: \"RMForceStaticBar1=1;RmForceDisableIomapWC=1\"\nRmMsg: \"\"\n");
  write_in_root(root, "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
  P2pdmaState s = read_p2pdma_state(Root(root));
  EXPECT_EQ(*s.registry.value, "RegistryDwords: \"RMForceStaticBar1=1;RmForceDisableIomapWC=1\"");
  EXPECT_EQ(s.x86, true);
  write_in_root(root, "/proc/cpuinfo", "processor\t: 0\nCPU implementer\t: 0x41\n");
  EXPECT_EQ(read_p2pdma_state(Root(root)).x86, false);
}

}  // namespace
}  // namespace gdrcheck

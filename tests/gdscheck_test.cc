// Tests for the pasted `gdscheck -p` reader. The real outputs in
// tests/data/gdscheck were posted publicly (see PROVENANCE.md); each test
// checks facts read off that paste by eye.
#include "evidence/gdscheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

std::string gdscheck_text(const std::string& name) {
  return testing::read_test_data("gdscheck/" + name);
}

GdscheckReport load_gdscheck(const std::string& name) {
  return parse_gdscheck(gdscheck_text(name));
}

bool in_list(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string config_value(const GdscheckReport& r, const std::string& key) {
  for (const auto& [k, v] : r.cufile_config)
    if (k == key) return v;
  return "<none>";
}

std::string driver(const GdscheckReport& r, const std::string& key) {
  for (const auto& [k, v] : r.driver_config)
    if (k == key) return v;
  return "<none>";
}

// ---------------------------------------------------------- real outputs

TEST(GdscheckReal, Gds10P1000Succeeded) {
  GdscheckReport r = load_gdscheck("onizuka-gds-1.0.0.82-p1000.txt");
  EXPECT_EQ(r.gds_version, "1.0.0.82");
  EXPECT_FALSE(r.beta);
  EXPECT_EQ(r.nvidia_fs_version, "2.7");
  EXPECT_EQ(r.libcufile_version, "2.4");
  EXPECT_EQ(r.transports.size(), 10u);
  EXPECT_EQ(r.supported, std::vector<std::string>{"NVMe"});
  EXPECT_EQ(r.unsupported.size(), 9u);
  EXPECT_TRUE(in_list(r.unsupported, "IBM Spectrum Scale"));
  EXPECT_TRUE(in_list(r.unsupported, "Userspace RDMA"));
  EXPECT_TRUE(r.compat_only.empty());
  EXPECT_EQ(r.peerdirect, true);
  EXPECT_EQ(driver(r, "rdma library"), "Not Loaded (libcufile_rdma.so)");
  EXPECT_EQ(driver(r, "rdma_device_status"), "Up: 0 Down: 0");
  EXPECT_EQ(r.compat_mode, true);  // properties.use_compat_mode : true
  EXPECT_FALSE(r.force_compat_mode.has_value());
  EXPECT_EQ(config_value(r, "properties.max_direct_io_size_kb"), "16384");
  EXPECT_EQ(config_value(r, "fs.lustre.posix_gds_min_kb"), "0");  // no space before the colon
  EXPECT_EQ(config_value(r, "properties.posix_pool_slab_size_kb"), "4 1024 16384");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].index, 0);
  EXPECT_EQ(r.gpus[0].name, "Quadro P1000");
  EXPECT_EQ(r.gpus[0].bar1_mib, 256);
  EXPECT_TRUE(r.gpus[0].supports_gds);
  EXPECT_EQ(r.iommu, "disabled");
  EXPECT_EQ(r.iommu_enabled, false);
  EXPECT_EQ(r.platform_verified, true);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("does not prove"), std::string::npos);
  EXPECT_EQ(r.notes.size(), 1u);
}

TEST(GdscheckReal, BetaLayoutP400) {
  GdscheckReport r = load_gdscheck("onizuka-beta-0.9.1.5-p400.txt");
  EXPECT_EQ(r.gds_version, "0.9.1.5");
  EXPECT_TRUE(r.beta);
  EXPECT_EQ(r.nvidia_fs_version, "2.4");
  EXPECT_EQ(r.libcufile_version, "2.3");
  EXPECT_EQ(r.transports.size(), 8u);
  EXPECT_TRUE(in_list(r.supported, "NVMe"));
  EXPECT_TRUE(in_list(r.unsupported, "USERSPACE RDMA"));
  EXPECT_TRUE(in_list(r.unsupported, "LUSTRE"));
  EXPECT_EQ(r.peerdirect, true);    // "--MOFED peer direct  : enabled"
  EXPECT_EQ(r.compat_mode, false);  // "properties.use_compat_mode : 0"
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].name, "Quadro P400");
  EXPECT_TRUE(r.gpus[0].supports_gds);
  EXPECT_EQ(r.iommu, "disabled");  // "IOMMU : disabled"
  EXPECT_EQ(r.platform_verified, true);
}

TEST(GdscheckReal, BetaLayoutK1200Failed) {
  GdscheckReport r = load_gdscheck("onizuka-beta-0.9.1.5-k1200-failed.txt");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].index, 0);
  EXPECT_EQ(r.gpus[0].name, "Quadro K1200");
  EXPECT_FALSE(r.gpus[0].supports_gds);
  EXPECT_EQ(r.gpus[0].detail, "does not have supported architecture, has 5 requires >= 6");
  EXPECT_EQ(r.platform_verified, false);
  EXPECT_EQ(r.errors.size(), 4u);
  EXPECT_TRUE(in_list(r.errors, "cufile initialization failed"));
  EXPECT_TRUE(in_list(r.errors, "GPUDirect Storage not supported on current platform"));
  EXPECT_TRUE(r.iommu.empty());
}

TEST(GdscheckReal, Aikitoria15Gds116CompatTokensNoNvidiaFs) {
  GdscheckReport r = load_gdscheck("aikitoria-15-gds-1.16.0-compat-tokens-cut.txt");
  EXPECT_EQ(r.gds_version, "1.16.0.49");
  EXPECT_EQ(r.nvidia_fs_version, "");
  EXPECT_EQ(r.nvidia_fs_min_version, "2.12");
  EXPECT_EQ(r.platform, "x86_64");
  EXPECT_EQ(r.transports.size(), 13u);
  EXPECT_EQ(r.compat_only.size(), 12u);
  EXPECT_TRUE(in_list(r.compat_only, "NVMe"));
  EXPECT_TRUE(in_list(r.compat_only, "VIRTIOFS"));
  EXPECT_TRUE(r.supported.empty());
  EXPECT_EQ(r.unsupported, std::vector<std::string>{"Userspace RDMA"});
  EXPECT_EQ(r.peerdirect, false);
  EXPECT_EQ(r.use_pci_p2pdma, false);
  EXPECT_EQ(r.compat_mode, true);
  EXPECT_EQ(r.force_compat_mode, false);
  EXPECT_EQ(config_value(r, "properties.per_buffer_cache_size_kb"), "1024");
  EXPECT_FALSE(r.platform_verified.has_value());
  EXPECT_TRUE(has_note(r, "nvidia-fs module is probably not loaded"));
  EXPECT_TRUE(has_note(r, "compat-only"));
  EXPECT_TRUE(has_note(r, "paste is cut"));
}

TEST(GdscheckReal, GdsNvidiaFs75Gds114H200Cut) {
  GdscheckReport r = load_gdscheck("gds-nvidia-fs-75-gds-1.14-h200-cut.txt");
  EXPECT_EQ(r.gds_version, "1.14.0.30");  // first line pasted without its leading space
  EXPECT_EQ(r.nvidia_fs_version, "2.27");
  EXPECT_EQ(r.libcufile_version, "2.12");
  EXPECT_EQ(r.transports.size(), 12u);
  EXPECT_EQ(r.transports[0], (std::pair<std::string, std::string>{"NVMe P2PDMA", "Unsupported"}));
  EXPECT_EQ(r.unsupported.size(), 12u);
  EXPECT_TRUE(r.supported.empty());
  EXPECT_FALSE(r.peerdirect.has_value());
}

TEST(GdscheckReal, GdsNvidiaFs77Gds1161EnvironmentSection) {
  GdscheckReport r = load_gdscheck("gds-nvidia-fs-77-gds-1.16.1-trace-env-cut.txt");
  EXPECT_EQ(r.gds_version, "1.16.1.26");
  EXPECT_EQ(r.nvidia_fs_version, "2.27");
  EXPECT_EQ(r.nvidia_fs_min_version, "2.12");
  ASSERT_EQ(r.environment.size(), 1u);
  EXPECT_EQ(r.environment[0], (std::pair<std::string, std::string>{"CUFILE_LOGGING_LEVEL", "TRACE"}));
  EXPECT_EQ(r.transports.size(), 13u);
  EXPECT_EQ(r.unsupported.size(), 13u);
  EXPECT_EQ(r.compat_mode, false);
  EXPECT_EQ(config_value(r, "properties.use_poll_mode"), "true");
  EXPECT_EQ(r.peerdirect, false);
}

TEST(GdscheckReal, GdsNvidiaFs8MarkdownFlattened) {
  GdscheckReport r = load_gdscheck("gds-nvidia-fs-8-markdown-flattened-cut.txt");
  EXPECT_EQ(r.gds_version, "");
  EXPECT_EQ(r.transports.size(), 11u);
  EXPECT_TRUE(in_list(r.unsupported, "BeeGFS"));
  EXPECT_EQ(r.peerdirect, false);
  EXPECT_EQ(driver(r, "rdma devices"), "Not configured");
  EXPECT_EQ(r.compat_mode, true);
  EXPECT_EQ(r.cufile_config.size(), 10u);
  EXPECT_TRUE(has_note(r, "starts after"));
}

TEST(GdscheckReal, EveryRealFileIsDetected) {
  for (const char* name :
       {"onizuka-gds-1.0.0.82-p1000.txt", "onizuka-beta-0.9.1.5-p400.txt", "onizuka-beta-0.9.1.5-k1200-failed.txt",
        "aikitoria-15-gds-1.16.0-compat-tokens-cut.txt", "gds-nvidia-fs-75-gds-1.14-h200-cut.txt",
        "gds-nvidia-fs-77-gds-1.16.1-trace-env-cut.txt", "gds-nvidia-fs-8-markdown-flattened-cut.txt"})
    EXPECT_TRUE(looks_like_gdscheck(gdscheck_text(name))) << name;
}

// ---------------------------------------------------- synthetic outputs

TEST(GdscheckSynthetic, Gds113LayoutWithPerGpuIommuAndAcs) {
  GdscheckReport r = load_gdscheck("synthetic-gds-1.13-layout-p2pdma-iommu-on.txt");
  EXPECT_TRUE(in_list(r.supported, "NVMe P2PDMA"));
  EXPECT_TRUE(in_list(r.supported, "DDN EXAScaler"));
  EXPECT_EQ(r.use_pci_p2pdma, true);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[1].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.gpus[1].bar1_mib, 131072);
  EXPECT_EQ(r.gpus[1].iommu_state, "Enabled");
  EXPECT_EQ(r.iommu_enabled, true);
  EXPECT_EQ(r.acs.size(), 1u);
  EXPECT_EQ(r.nvidia_driver_info, "Supported(Nvidia Open Driver Installed)");
  EXPECT_EQ(r.cuda_driver_version, "12040");
  EXPECT_EQ(r.platform, "ProLiant XL675d Gen10 Plus, Arch: x86_64(Linux 6.5.0-35-generic)");
  EXPECT_EQ(r.environment.size(), 1u);
  EXPECT_EQ(config_value(r, "execution.max_io_threads"), "4");
}

TEST(GdscheckSynthetic, Gds116RouteTokens) {
  GdscheckReport r = load_gdscheck("synthetic-gds-1.16-route-tokens.txt");
  EXPECT_TRUE(in_list(r.supported, "NVMe"));                // nvfs, p2pdma, compat
  EXPECT_TRUE(in_list(r.supported, "WekaFS"));              // nvidia_peermem, compat
  EXPECT_TRUE(in_list(r.supported, "IBM Spectrum Scale"));  // dmabuf
  EXPECT_EQ(r.compat_only, std::vector<std::string>{"SCSI"});
  EXPECT_EQ(r.unsupported, std::vector<std::string>{"VIRTIOFS"});
  EXPECT_EQ(r.compat_mode, false);  // properties.allow_compat_mode
  EXPECT_EQ(driver(r, "rdma_device_status"), "Up: 2 Down: 0");
  EXPECT_FALSE(has_note(r, "compat-only"));  // compat not allowed: no silent fallback
}

// ------------------------------------------------------------- quirks

TEST(GdscheckQuirks, AllowCompatModeWinsOverOldName) {
  GdscheckReport r = parse_gdscheck(" properties.allow_compat_mode : false\n properties.use_compat_mode : true\n");
  EXPECT_EQ(r.compat_mode, false);
  GdscheckReport s = parse_gdscheck(" properties.use_compat_mode : true\n properties.allow_compat_mode : false\n");
  EXPECT_EQ(s.compat_mode, false);
}

TEST(GdscheckQuirks, MarkdownBoldAndNvidiaFsStatsPeerDirect) {
  GdscheckReport r = parse_gdscheck(
      " **NVMe               : Unsupported**\n **--Mellanox PeerDirect : Disabled**\n"
      "Mellanox PeerDirect Supported: True\n");
  EXPECT_EQ(r.unsupported, std::vector<std::string>{"NVMe"});
  EXPECT_EQ(r.peerdirect, true);  // the later stats line
}

TEST(GdscheckQuirks, IommuEnabledAndGpuLineVariants) {
  GdscheckReport r = parse_gdscheck(
      " GPU index 3 Tesla T4 bar:1 bar size (MiB):256 supports GDS\n"
      " GPU index 4 NVIDIA L4 bar:1 bar size (MiB):16 does not support GDS\n"
      " IOMMU: enabled\n Platform verification failed\n");
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].index, 3);
  EXPECT_TRUE(r.gpus[0].supports_gds);
  EXPECT_EQ(r.gpus[1].name, "NVIDIA L4");
  EXPECT_EQ(r.gpus[1].bar1_mib, 16);
  EXPECT_FALSE(r.gpus[1].supports_gds);
  EXPECT_EQ(r.iommu_enabled, true);
  EXPECT_EQ(r.platform_verified, false);
}

TEST(GdscheckQuirks, LogLinesAndPromptsAreIgnored) {
  GdscheckReport r = parse_gdscheck(
      "xjhui@gpu-2:/usr/local/cuda-12.8/gds/tools$  ./gdscheck -p\n"
      "warn: error opening log file: Permission denied, logging will be disabled\n"
      " GDS release version: 1.13.0.11\n NFS                : Supported\n");
  EXPECT_EQ(r.gds_version, "1.13.0.11");
  EXPECT_EQ(r.supported, std::vector<std::string>{"NFS"});
  EXPECT_TRUE(r.environment.empty());
}

// ------------------------------------------------------ garbage, limits

TEST(GdscheckGarbage, EmptyAndUnrelatedText) {
  GdscheckReport r = parse_gdscheck("");
  EXPECT_TRUE(has_note(r, "no gdscheck"));
  EXPECT_NE(r.notes[0].find("does not prove"), std::string::npos);
  EXPECT_FALSE(looks_like_gdscheck(""));
  EXPECT_FALSE(looks_like_gdscheck("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"));
  EXPECT_FALSE(looks_like_gdscheck("# Avg bus bandwidth    : 37.7321\n"));
  EXPECT_FALSE(looks_like_gdscheck("state: Supported\n"));
}

TEST(GdscheckGarbage, ListsAreCapped) {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "T" + std::to_string(i) + " : Supported\nproperties.k" + std::to_string(i) + " : 1\n";
  for (int i = 0; i < 1000; ++i)
    text += "GPU index " + std::to_string(i % 50) + " X bar:1 bar size (MiB):1 supports GDS\n";
  GdscheckReport r = parse_gdscheck(text);
  EXPECT_LE(r.transports.size(), 256u);
  EXPECT_LE(r.supported.size(), 256u);
  EXPECT_LE(r.cufile_config.size(), 256u);
  EXPECT_LE(r.gpus.size(), 256u);
}

TEST(GdscheckGarbage, HostileValues) {
  GdscheckReport r = parse_gdscheck(
      "GPU index 99999999999999999999 X\nGPU index -1 Y\nGPU 7\nGPU index 1 Z bar:1 bar size "
      "(MiB):999999999999999999999 "
      "supports GDS\n: : :\n" +
      std::string(10000, ':') + "\nGDS release version:\n");
  ASSERT_EQ(r.gpus.size(), 2u);  // "GPU 7" and index 1
  EXPECT_FALSE(r.gpus[1].bar1_mib.has_value());
  EXPECT_EQ(r.gds_version, "");
}

TEST(GdscheckGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(3);
  std::string alphabet =
      "GPU index 0 bar:1 (MiB):256 supports GDS\n:--PeerDirect properties.IOMMU=Supportedcompat,nvfs";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 3000; ++i) text += alphabet[rng() % alphabet.size()];
    GdscheckReport r = parse_gdscheck(text);
    EXPECT_LE(r.gpus.size(), 256u);
  }
}

}  // namespace
}  // namespace gdrcheck

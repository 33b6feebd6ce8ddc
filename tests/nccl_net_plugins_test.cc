// NCCL net plugins found in built roots shaped like real nodes (AWS DLAMI,
// HPC-X, GCP gIB, a distribution package) and in hostile ones, and the file
// NCCL would load for an NCCL_NET_PLUGIN value.
#include "host/nccl_net_plugins.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

// Bytes shaped like a small shared object: an ELF start, padding and the
// given strings where .rodata would hold them.
std::string plugin_binary(const std::string& strings) {
  return std::string(
             "\x7f"
             "ELF\x02\x01\x01\0",
             8) +
         std::string(4096, '\0') + strings + std::string(64, '\0');
}

std::vector<std::string> paths_of(const std::vector<NetPluginFile>& files) {
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  return paths;
}

class NetPluginsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-netplugin-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    if (!outside_.empty()) fs::remove_all(outside_);
  }
  void folder(const std::string& inside) { fs::create_directories(dir_ + inside); }
  void file(const std::string& inside, const std::string& bytes = plugin_binary("")) {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    std::ofstream(dir_ + inside, std::ios::binary) << bytes;
  }
  void link(const std::string& inside, const std::string& target) {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    fs::create_symlink(target, dir_ + inside);
  }
  std::string outside() {
    char tmpl[] = "/tmp/gdrcheck-outside-XXXXXX";
    outside_ = ::mkdtemp(tmpl);
    return outside_;
  }
  std::vector<NetPluginFile> find() { return find_net_plugins(Root(dir_)); }

  std::string dir_, outside_;
};

TEST_F(NetPluginsTest, AwsDlamiOfiNccl) {
  file("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", plugin_binary("AWS Libfabric"));
  link("/opt/amazon/ofi-nccl/lib/libnccl-net.so", "libnccl-net-ofi.so");
  file("/opt/amazon/ofi-nccl/lib/libnccl-ofi-tuner.so");
  auto files = find();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], (NetPluginFile{"/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", "libnccl-net-ofi.so",
                                     "aws-ofi-nccl", "folder /opt/amazon/ofi-nccl/lib", false}));
  EXPECT_EQ(files[1].path, "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  EXPECT_EQ(files[1].plugin, "aws-ofi-nccl");
  EXPECT_FALSE(files[1].on_loader_path);  // used through the job's LD_LIBRARY_PATH
}

TEST_F(NetPluginsTest, WhatNcclLoadsForEachSetting) {
  file("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
  file("/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  auto files = find();
  ASSERT_EQ(files.size(), 2u);
  const NetPluginFile* ofi = &files[0];
  const NetPluginFile* net = &files[1];
  EXPECT_EQ(plugin_nccl_loads(files, ""), net);
  EXPECT_EQ(plugin_nccl_loads(files, "ofi"), ofi);
  EXPECT_EQ(plugin_nccl_loads(files, "libnccl-net-ofi.so"), ofi);  // a full library name
  EXPECT_EQ(plugin_nccl_loads(files, "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so"), ofi);
  EXPECT_EQ(plugin_nccl_loads(files, "none"), nullptr);
  EXPECT_EQ(plugin_nccl_loads(files, "NONE"), nullptr);
  EXPECT_EQ(plugin_nccl_loads(files, "gib"), nullptr);
  EXPECT_EQ(plugin_nccl_loads(files, "gib,ofi"), ofi);  // a list is tried in order
  EXPECT_EQ(plugin_nccl_loads(files, ",,ofi,"), ofi);
  EXPECT_EQ(plugin_nccl_loads(files, "/elsewhere/libnccl-net-ofi.so"), nullptr);
  // Only the whole value "none" disables; in a list it is a name like any other.
  EXPECT_EQ(plugin_nccl_loads(files, "none,ofi"), ofi);
  EXPECT_EQ(plugin_nccl_loads({}, ""), nullptr);
}

TEST_F(NetPluginsTest, OnlyTheOfiNameNeedsTheSetting) {
  // aws-ofi-nccl installs that ship only libnccl-net-ofi.so: without
  // NCCL_NET_PLUGIN=ofi NCCL finds no plugin and uses its own transports.
  file("/opt/amazon/ofi-nccl/lib64/libnccl-net-ofi.so");
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(plugin_nccl_loads(files, ""), nullptr);
  EXPECT_EQ(plugin_nccl_loads(files, "ofi"), &files[0]);
}

TEST_F(NetPluginsTest, HpcxSharpPluginBehindAVersionedFolder) {
  std::string hpcx = "/opt/hpcx-v2.18-gcc-mlnx_ofed-ubuntu22.04-cuda12-x86_64";
  file(hpcx + "/nccl_rdma_sharp_plugin/lib/libnccl-net.so.0.0.0", plugin_binary("IBext_v8"));
  link(hpcx + "/nccl_rdma_sharp_plugin/lib/libnccl-net.so.0", "libnccl-net.so.0.0.0");
  link(hpcx + "/nccl_rdma_sharp_plugin/lib/libnccl-net.so", "libnccl-net.so.0.0.0");
  file(hpcx + "/nccl_rdma_sharp_plugin/lib/libnccl-net.la", "# libtool");
  link("/opt/hpcx", hpcx.substr(5));
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, hpcx + "/nccl_rdma_sharp_plugin/lib/libnccl-net.so");
  EXPECT_EQ(files[0].plugin, "nccl-rdma-sharp-plugins");
  EXPECT_EQ(files[0].identified_by, "folder /opt/hpcx/nccl_rdma_sharp_plugin/lib");
}

TEST_F(NetPluginsTest, DistributionPackageIsIdentifiedByMarker) {
  file("/usr/lib/x86_64-linux-gnu/libnccl-net.so", plugin_binary(std::string("IBext_v8\0SHARP\0", 15)));
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "nccl-rdma-sharp-plugins");
  EXPECT_EQ(files[0].identified_by, "marker \"IBext\" in the first 4 MiB (heuristic)");
  EXPECT_TRUE(files[0].on_loader_path);  // a default loader folder
}

TEST_F(NetPluginsTest, GcpGibAndGkeFolders) {
  file("/usr/local/gib/lib64/libnccl-net.so");
  file("/usr/local/gib/lib64/libnccl-net_internal.so");  // not a name NCCL asks for
  file("/usr/local/nvidia/lib64/libnccl-net.so", plugin_binary(std::string("NET/gIB : Using\0", 16)));
  auto files = find();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].plugin, "gib");
  EXPECT_EQ(files[0].identified_by, "folder /usr/local/gib/lib64");
  EXPECT_EQ(files[1].path, "/usr/local/nvidia/lib64/libnccl-net.so");
  EXPECT_EQ(files[1].plugin, "gib");
  EXPECT_EQ(files[1].identified_by, "marker \"NET/gIB\" in the first 4 MiB (heuristic)");
}

TEST_F(NetPluginsTest, FolderListedInLdSoConfIsOnTheLoaderPath) {
  file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  file("/etc/ld.so.conf.d/ofi.conf", "/opt/site/ofi/lib\n");
  file("/opt/site/ofi/lib/libnccl-net.so", plugin_binary("aws-ofi-nccl 1.16.3"));
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "aws-ofi-nccl");
  EXPECT_TRUE(files[0].on_loader_path);
  EXPECT_EQ(files[0].identified_by, "marker \"aws-ofi-nccl\" in the first 4 MiB (heuristic)");
}

TEST_F(NetPluginsTest, PluginInstallFoldersComeBeforeLoaderAndLibraryFolders) {
  file("/usr/local/cuda/lib64/libnccl-net.so");
  file("/usr/lib/x86_64-linux-gnu/libnccl-net.so", plugin_binary("IBext"));
  file("/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  auto files = find();
  EXPECT_EQ(paths_of(files), (std::vector<std::string>{"/opt/amazon/ofi-nccl/lib/libnccl-net.so",
                                                       "/usr/lib/x86_64-linux-gnu/libnccl-net.so",
                                                       "/usr/local/cuda/lib64/libnccl-net.so"}));
  ASSERT_NE(plugin_nccl_loads(files, ""), nullptr);
  EXPECT_EQ(plugin_nccl_loads(files, "")->plugin, "aws-ofi-nccl");
  EXPECT_FALSE(files[2].on_loader_path);
  EXPECT_EQ(files[2].plugin, "unknown");
}

TEST_F(NetPluginsTest, UnknownPluginSaysWhy) {
  file("/usr/local/lib/libnccl-net.so", plugin_binary("some other transport"));
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "unknown");
  EXPECT_EQ(files[0].identified_by, "not identified: no known folder, name or marker");
}

TEST_F(NetPluginsTest, MarkerBeyondTheScannedStartIsNotSeen) {
  file("/usr/local/lib/libnccl-net.so", std::string(4u << 20, '\0') + "AWS Libfabric");
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "unknown");
}

TEST_F(NetPluginsTest, NamesNcclNeverAsksForAreIgnored) {
  for (const char* name : {"libnccl-net.so.0", "libnccl-net.so.bak", "libnccl-net-.so", "libnccl-net-ofi.so.1",
                           "libnccl-tuner-ofi.so", "libnccl-profiler.so", "libnccl.so.2.21.5", "libnccl-net.a"})
    file(std::string("/usr/lib/x86_64-linux-gnu/") + name);
  folder("/usr/lib64/libnccl-net.so");  // a folder
  EXPECT_TRUE(find().empty());
}

TEST_F(NetPluginsTest, LinksLeavingTheRootFindNothingOutsideIt) {
  std::string out = outside();
  fs::create_directories(out + "/lib64");
  std::ofstream(out + "/lib64/libnccl-net.so") << plugin_binary("NET/gIB");
  link("/usr/local/gib", out);
  link("/usr/lib/x86_64-linux-gnu/libnccl-net.so", out + "/lib64/libnccl-net.so");
  link("/usr/local/lib/libnccl-net-ofi.so", "../../../../../../../../.." + out + "/lib64/libnccl-net.so");
  file("/etc/ld.so.conf.d/escape.conf", "/../../../../.." + out + "/lib64\n");
  EXPECT_TRUE(find().empty());
}

TEST_F(NetPluginsTest, FifoNamedLikeAPluginDoesNotBlock) {
  folder("/usr/local/nvidia/lib64");
  ASSERT_EQ(::mkfifo((dir_ + "/usr/local/nvidia/lib64/libnccl-net.so").c_str(), 0600), 0);
  auto result = std::make_shared<std::promise<std::vector<NetPluginFile>>>();
  auto future = result->get_future();
  std::thread([root = Root(dir_), result] { result->set_value(find_net_plugins(root)); }).detach();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the search blocked on a FIFO";
  auto files = future.get();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "unknown");
  EXPECT_EQ(files[0].identified_by, "not identified: not a regular file");
}

TEST_F(NetPluginsTest, UnreadablePluginSaysSo) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file; the denied path needs an ordinary user";
  file("/usr/local/nvidia/lib64/libnccl-net.so", plugin_binary("AWS Libfabric"));
  ::chmod((dir_ + "/usr/local/nvidia/lib64/libnccl-net.so").c_str(), 0);
  auto files = find();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].plugin, "unknown");
  EXPECT_EQ(files[0].identified_by, "not identified: permission denied");
}

TEST_F(NetPluginsTest, CrowdedFoldersAreBounded) {
  for (int i = 0; i < 2000; ++i) file("/usr/lib/libnccl-net-" + std::to_string(1000 + i) + ".so", "x");
  for (int i = 0; i < 40; ++i) file("/usr/local/lib/libnccl-net-" + std::to_string(1000 + i) + ".so", "x");
  file("/opt/conda/lib/libnccl-net.so", "x");  // a folder searched after both
  auto files = find();
  EXPECT_EQ(files.size(), 64u);  // 32 from each crowded folder, none after the limit
  EXPECT_TRUE(
      std::none_of(files.begin(), files.end(), [](const NetPluginFile& f) { return f.path.starts_with("/opt"); }));
  auto not_scanned = std::count_if(files.begin(), files.end(), [](const NetPluginFile& f) {
    return f.identified_by == "not identified: more plugin files than are scanned";
  });
  EXPECT_EQ(not_scanned, 64 - 16);
}

TEST_F(NetPluginsTest, ManyDanglingPluginLinksCostABoundedNumberOfChecks) {
  for (int i = 100; i < 400; ++i) link("/usr/lib/libnccl-net-a" + std::to_string(i) + ".so", "gone");
  file("/usr/lib/libnccl-net-b.so");
  EXPECT_TRUE(find().empty());
}

TEST_F(NetPluginsTest, EmptyOrMissingRoot) {
  EXPECT_TRUE(find().empty());
  EXPECT_TRUE(find_net_plugins(Root(dir_ + "/no-such-root")).empty());
}

}  // namespace
}  // namespace gdrcheck

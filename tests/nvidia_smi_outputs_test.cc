// Tests for getting nvidia-smi's outputs: from a recorded root's capture
// files, and on a live root by running stand-in programs (written to a
// scratch directory) that replay real recorded outputs, hang, or fail.
#include "host/nvidia_smi_outputs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

void write_binary_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// An executable shell script standing in for nvidia-smi.
std::string write_stand_in(const std::string& dir, const std::string& name, const std::string& body) {
  std::string path = dir + "/" + name;
  write_binary_file(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  return path;
}

// A root that stands for a recorded host, with the given capture files.
std::string smi_outputs_root(const std::string& topo, const std::string& status) {
  std::string root = testing::scratch_dir() + "/root";
  fs::create_directories(root + "/sys");
  if (!topo.empty()) write_binary_file(root + kTopoMatrixCapture, topo);
  if (!status.empty()) write_binary_file(root + kNvlinkStatusCapture, status);
  return root;
}

bool all_printable(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// ------------------------------------------------------------ recorded root

TEST(NvidiaSmiOutputsRecorded, ReadsBothCapturesThroughTheRoot) {
  std::string topo = testing::read_test_data("nvlink/hpe-dl380a-2xh100-pcie-topo-m.txt");
  std::string status = testing::read_test_data("nvlink/hpe-dl380a-2xh100-pcie-nvlink-s.txt");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root(smi_outputs_root(topo, status)));
  ASSERT_TRUE(o.topo_matrix.ok()) << o.topo_matrix.missing;
  ASSERT_TRUE(o.nvlink_status.ok()) << o.nvlink_status.missing;
  EXPECT_EQ(*o.topo_matrix.text, topo);
  EXPECT_EQ(*o.nvlink_status.text, status);
  EXPECT_EQ(o.topo_matrix.command, "nvidia-smi topo -m");
  EXPECT_EQ(o.nvlink_status.origin, "/.gdrcheck/commands/nvidia-smi-nvlink-status.txt");
  EXPECT_EQ(o.nvlink_status.describe(),
            "nvidia-smi nvlink --status from /.gdrcheck/commands/nvidia-smi-nvlink-status.txt");
}

TEST(NvidiaSmiOutputsRecorded, MissingCaptureSaysNotCaptured) {
  std::string status = testing::read_test_data("nvlink/club3090-441-2x3090-bridge.txt");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root(smi_outputs_root("", status)));
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_EQ(o.topo_matrix.missing, "not captured (no /.gdrcheck/commands/nvidia-smi-topo-m.txt)");
  EXPECT_EQ(o.topo_matrix.describe(),
            "nvidia-smi topo -m: not captured (no /.gdrcheck/commands/nvidia-smi-topo-m.txt)");
  EXPECT_TRUE(o.nvlink_status.ok());
}

TEST(NvidiaSmiOutputsRecorded, EmptyCaptureIsAnEmptyTextNotAMissingOne) {
  std::string root = smi_outputs_root("", "");
  write_binary_file(root + kNvlinkStatusCapture, "");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root(root));
  ASSERT_TRUE(o.nvlink_status.ok());
  EXPECT_EQ(*o.nvlink_status.text, "");
}

TEST(NvidiaSmiOutputsRecorded, NeverRunsAProgramForARecordedRoot) {
  std::string dir = testing::scratch_dir();
  std::string marker = dir + "/ran";
  NvidiaSmiOptions opts;
  opts.program = write_stand_in(dir, "nvidia-smi", "touch " + marker + "\n");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root(smi_outputs_root("", "")), opts);
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_FALSE(fs::exists(marker));
}

TEST(NvidiaSmiOutputsRecorded, DirectoriesLinksOutOfTheRootAndHugeFilesAreRefused) {
  std::string root = smi_outputs_root("", "");
  fs::create_directories(root + kTopoMatrixCapture);  // a directory where the file should be
  // An absolute link resolves inside the root, never to this host's file.
  fs::create_symlink("/etc/hostname", root + kNvlinkStatusCapture);
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root(root));
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_EQ(o.topo_matrix.missing, "/.gdrcheck/commands/nvidia-smi-topo-m.txt: not a regular file");
  EXPECT_FALSE(o.nvlink_status.ok());
  EXPECT_TRUE(o.nvlink_status.missing.rfind("not captured", 0) == 0) << o.nvlink_status.missing;

  std::string big_root = smi_outputs_root(std::string(2048, 'x'), "GPU 0: A\n");
  NvidiaSmiOptions opts;
  opts.max_bytes = 1024;
  o = read_nvidia_smi_outputs(Root(big_root), opts);
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_EQ(o.topo_matrix.missing, "/.gdrcheck/commands/nvidia-smi-topo-m.txt is larger than 1 KiB; not read");
  EXPECT_TRUE(o.nvlink_status.ok());
}

// --------------------------------------------------------------- live host

TEST(NvidiaSmiOutputsLive, RunsBothCommandsAndKeepsTheirOutput) {
  std::string dir = testing::scratch_dir();
  write_binary_file(dir + "/topo.txt", testing::read_test_data("nvlink/siboehm-bench-3xa6000-topo-m.txt"));
  write_binary_file(dir + "/status.txt", testing::read_test_data("nvlink/siboehm-bench-3xa6000-one-bridge.txt"));
  NvidiaSmiOptions opts;
  opts.program = write_stand_in(dir, "nvidia-smi",
                                "echo \"$*\" >> " + dir +
                                    "/args\n"
                                    "case \"$1 $2\" in\n"
                                    "  'topo -m') cat " +
                                    dir +
                                    "/topo.txt ;;\n"
                                    "  'nvlink --status') cat " +
                                    dir +
                                    "/status.txt ;;\n"
                                    "  *) echo unexpected; exit 2 ;;\n"
                                    "esac\n");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"), opts);
  ASSERT_TRUE(o.topo_matrix.ok()) << o.topo_matrix.missing;
  ASSERT_TRUE(o.nvlink_status.ok()) << o.nvlink_status.missing;
  EXPECT_EQ(*o.topo_matrix.text, read_file(dir + "/topo.txt"));
  EXPECT_EQ(*o.nvlink_status.text, read_file(dir + "/status.txt"));
  EXPECT_EQ(read_file(dir + "/args"), "topo -m\nnvlink --status\n");
  EXPECT_EQ(o.nvlink_status.origin, opts.program + " nvlink --status");
}

TEST(NvidiaSmiOutputsLive, LooksTheProgramUpInPath) {
  std::string dir = testing::scratch_dir();
  write_stand_in(dir, "nvidia-smi", "echo \"GPU 0: from PATH ($1)\"\n");
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  ::setenv("PATH", (dir + ":" + saved).c_str(), 1);
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"));
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_TRUE(o.nvlink_status.ok()) << o.nvlink_status.missing;
  EXPECT_EQ(*o.nvlink_status.text, "GPU 0: from PATH (nvlink)\n");
  EXPECT_EQ(o.topo_matrix.origin, dir + "/nvidia-smi topo -m");
}

TEST(NvidiaSmiOutputsLive, NotFoundSaysSo) {
  NvidiaSmiOptions opts;
  opts.program = "nvidia-smi-that-is-not-installed-gdrcheck";
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"), opts);
  EXPECT_EQ(o.topo_matrix.missing, "nvidia-smi-that-is-not-installed-gdrcheck not found in PATH");
  EXPECT_EQ(o.nvlink_status.missing, "nvidia-smi-that-is-not-installed-gdrcheck not found in PATH");
  opts.program = testing::scratch_dir() + "/nvidia-smi";
  o = read_nvidia_smi_outputs(Root("/"), opts);
  EXPECT_EQ(o.nvlink_status.missing, opts.program + ": no such executable file");
}

TEST(NvidiaSmiOutputsLive, HangingProgramTimesOutOnceNotTwice) {
  std::string dir = testing::scratch_dir();
  NvidiaSmiOptions opts;
  opts.program = write_stand_in(dir, "nvidia-smi", "echo \"$*\" >> " + dir + "/args\nexec sleep 30\n");
  opts.timeout = milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"), opts);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_EQ(o.topo_matrix.missing, "timed out after 300 ms");
  EXPECT_EQ(o.nvlink_status.missing, "not run: nvidia-smi topo -m timed out after 300 ms");
  EXPECT_EQ(read_file(dir + "/args"), "topo -m\n");
  EXPECT_LT(took, std::chrono::seconds(10));

  opts.timeout = milliseconds(10000);
  EXPECT_EQ(
      read_nvidia_smi_outputs(Root("/"), NvidiaSmiOptions{opts.program, milliseconds(2000), 1024}).topo_matrix.missing,
      "timed out after 2 s");
}

TEST(NvidiaSmiOutputsLive, FailingProgramGivesItsExitStatusAndFirstLine) {
  std::string dir = testing::scratch_dir();
  NvidiaSmiOptions opts;
  // nvidia-smi writes its errors to stdout; some wrappers use stderr.
  opts.program = write_stand_in(dir, "nvidia-smi",
                                "if [ \"$1\" = topo ]; then printf '\\n  No devices were found\\n'; exit 6; fi\n"
                                "printf 'NVIDIA-SMI has failed because it couldn'\"'\"'t communicate with the NVIDIA "
                                "driver.\\033[31m\\r\\n' >&2; exit 9\n");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"), opts);
  EXPECT_FALSE(o.topo_matrix.ok());
  EXPECT_EQ(o.topo_matrix.missing, "exit status 6: No devices were found");
  EXPECT_FALSE(o.nvlink_status.ok());
  EXPECT_EQ(o.nvlink_status.missing,
            "exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.[31m");
  EXPECT_TRUE(all_printable(o.nvlink_status.missing));
}

TEST(NvidiaSmiOutputsLive, KilledProgramAndHugeOutputAreNotUsed) {
  std::string dir = testing::scratch_dir();
  NvidiaSmiOptions opts;
  opts.max_bytes = 1024;
  opts.program = write_stand_in(dir, "nvidia-smi",
                                "if [ \"$1\" = topo ]; then head -c 100000 /dev/zero | tr '\\0' x; exit 0; fi\n"
                                "kill -SEGV $$\n");
  NvidiaSmiOutputs o = read_nvidia_smi_outputs(Root("/"), opts);
  EXPECT_EQ(o.topo_matrix.missing, "output larger than 1 KiB; not used");
  EXPECT_EQ(o.nvlink_status.missing, "killed by signal 11 (SIGSEGV)");
}

}  // namespace
}  // namespace gdrcheck

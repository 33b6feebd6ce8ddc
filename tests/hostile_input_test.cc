// The real binary on files the operator names but someone else wrote:
// topology files and standard input for `topo`, logs and tool output for
// `analyze`, a site manifest, a bandwidth file, and the programs and output
// directory of `bench`. Invalid input is refused with the file named;
// nothing blocks, nothing is read from outside the input, nothing from the
// data reaches a terminal as a control byte, nothing is left in /tmp.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "hostile_run.h"
#include "terminal_checks.h"

namespace fs = std::filesystem;

namespace gdrcheck::testing {
namespace {

const std::string kXmlHead = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

std::string small_hwloc(const std::string& hostname_value) {
  return "<topology version=\"2.0\">\n"
         " <object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" allowed_cpuset=\"0x1\""
         " nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
         "  <info name=\"HostName\" value=\"" +
         hostname_value +
         "\"/>\n"
         "  <object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" gp_index=\"2\"/>\n"
         " </object>\n"
         "</topology>\n";
}

// A run that must neither leave files named gdrcheck-* in /tmp nor change
// anything in the test's directory.
HostileResult run_leaving_nothing(const HostileDir& dir, const HostileSpec& spec) {
  TreeSnapshot before = snapshot_tree(dir.base());
  HostileResult r = run_hostile(spec);
  EXPECT_EQ(tree_difference(before, snapshot_tree(dir.base())), "");
  EXPECT_TRUE(r.temp_left.empty()) << "left in TMPDIR: " << r.temp_left.front();
  return r;
}

HostileResult run_leaving_nothing(const HostileDir& dir, std::vector<std::string> args) {
  return run_leaving_nothing(dir, HostileSpec::command(std::move(args)));
}

TEST(HostileTopoFile, ExternalEntityIsRefusedAndNotRead) {
  HostileDir d;
  std::string file = d.write("ext.xml", kXmlHead + "<!DOCTYPE topology [<!ENTITY x SYSTEM \"file://" + d.canary_path() +
                                            "\">]>\n" + small_hwloc("&x;"));
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"topo", file}), d, file));
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"topo", "--kind", "hwloc-xml", file}), d, file));
}

TEST(HostileTopoFile, BillionLaughsEndsFastInBoundedMemory) {
  HostileDir d;
  std::string doctype = "<!DOCTYPE topology [\n<!ENTITY l0 \"lol\">\n";
  for (int i = 1; i <= 10; ++i) {
    doctype += "<!ENTITY l" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) doctype += "&l" + std::to_string(i - 1) + ";";
    doctype += "\">\n";
  }
  std::string file = d.write("laughs.xml", kXmlHead + doctype + "]>\n" + small_hwloc("&l10;"));
  HostileResult r = run_leaving_nothing(d, {"topo", file});
  EXPECT_TRUE(refused_naming(r, d, file));
  EXPECT_LT(r.peak_rss_kib, 512 * 1024);
  EXPECT_LT(r.elapsed, std::chrono::seconds(5));
}

TEST(HostileTopoFile, FifoAndDevZeroAreRefused) {
  HostileDir d;
  std::string fifo = d.in() + "/topo.xml";
  HostileDir::make_fifo(fifo);
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"topo", fifo}), d, fifo));
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"topo", "/dev/zero"}), d, "/dev/zero"));
}

TEST(HostileTopoFile, HugeStandardInputIsRefusedInBoundedMemory) {
  HostileDir d;
  HostileSpec spec = HostileSpec::command({"topo", "-"});
  spec.stdin_text = kXmlHead + "<topology version=\"2.0\">\n<!--" + std::string(70u << 20, 'x') + "-->\n</topology>\n";
  HostileResult r = run_leaving_nothing(d, spec);
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_NE(r.exit_code, kExitOk);
  EXPECT_LT(r.peak_rss_kib, 1024 * 1024);
}

// Text of each kind `analyze` reads, with hostile bytes where the data
// carries names: host names, device names, versions.
std::vector<std::pair<std::string, std::string>> hostile_tool_outputs() {
  const std::string h = kHostile;
  std::string host = "gpu01" + std::string("\x1b]0;x\x07") + "\xff";
  return {
      {"nccl.log", host + ":1234:1234 [0] NCCL INFO NCCL version 2.18.5+cuda12.2 " + h + "\n" + host +
                       ":1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA " + h + "\n" +
                       host + ":1234:1300 [0] NCCL INFO NET/IB : Using [0]mlx5_0\x1b[2J:1/IB ; OOB " + h + "\n"},
      {"nccl-tests.txt",
       "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5\n"
       "#  Rank  0 Group  0 Pid   1234 on " +
           host + " device  0 [0x1b] NVIDIA H100 " + h +
           "\n#       size         count      type   redop    root     time   algbw   busbw\n"
           "  8589934592    2147483648     float     sum      -1    45000  190.00  356.00      0\n"
           "# Avg bus bandwidth    : 356.00 " +
           h + "\n"},
      {"ibstat.txt", "CA 'mlx5_0" + h +
                         "'\n\tCA type: MT4129\x1b[31m\n\tNumber of ports: 1\n\tFirmware version: 28.39" + h +
                         "\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n"
                         "\t\tLink layer: InfiniBand\n"},
      {"gdscheck.txt",
       " GDS release version: 1.16.1.6" + h +
           "\n nvidia_fs version:  2.17 libcufile version: 2.12\n"
           " ============\n ENVIRONMENT:\n ============\n =====================\n DRIVER CONFIGURATION:\n"
           " =====================\n NVMe               : Supported\x1b[2J\n"},
      // Read by the readers of damaged pastes: messages without their
      // prefix, ibstatus blocks and an ibpanic line, a perftest paste in
      // Markdown. kHostile holds a line break, so it ends lines here.
      {"stripped.log", "NET/IB : Using [0]mlx5_0\x1b[31m:1/RoCE [RO]; OOB bond0:10.0.0.1<0> " + h +
                           "\n"
                           "> `Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0 " +
                           h +
                           "`\n"
                           "NET/IB : Got completion from peer 10.0.0.2<\x1b]0;x\x07> with status=12 opcode=0 " +
                           h + "\n"},
      {"ibstatus.txt",
       "Infiniband device 'mlx5_0\x1b[31m' port 1 status:\n\tstate:\t\t 1: DOWN\x1b[2J\n"
       "\trate:\t\t 400 Gb/sec (4X NDR) " +
           h +
           "\n"
           "ibpanic: [1] main: stat of IB device 'mlx5_1\x1b]0;x\x07' failed: " +
           h + "\n"},
      {"perftest.txt", "`ib_write_bw --use_cuda=0 -d mlx5_0 10.0.0.2` " + h +
                           "\n"
                           "                    RDMA_Write BW Test\n Device         : mlx5_0\x1b[31m " +
                           h +
                           "\n"
                           " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
                           " 65536      5000             **391.12**            390.87          0.745 " +
                           h + "\n"},
  };
}

TEST(HostileAnalyze, ControlBytesInToolOutputNeverReachTheTerminal) {
  HostileDir d;
  for (const auto& [name, text] : hostile_tool_outputs()) {
    SCOPED_TRACE(name);
    std::string file = d.write(name, text);
    EXPECT_TRUE(ran_safely(run_leaving_nothing(d, {"analyze", file}), d));
    EXPECT_TRUE(ran_safely(run_leaving_nothing(d, {"analyze", "--detail", file}), d));
    HostileResult json = run_leaving_nothing(d, {"analyze", "--json", file});
    EXPECT_TRUE(ran_safely(json, d));
    EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out.substr(0, 500);
  }
  HostileSpec piped = HostileSpec::command({"analyze", "-"});
  piped.stdin_text = hostile_tool_outputs().front().second;
  EXPECT_TRUE(ran_safely(run_leaving_nothing(d, piped), d));
}

TEST(HostileAnalyze, FifoAndDevZeroAreRefused) {
  HostileDir d;
  std::string fifo = d.in() + "/job.log";
  HostileDir::make_fifo(fifo);
  HostileSpec spec = HostileSpec::command({"analyze", fifo});
  spec.timeout = std::chrono::seconds(10);
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, spec), d, fifo));
  HostileResult zero = run_leaving_nothing(d, {"analyze", "/dev/zero"});
  EXPECT_TRUE(refused_naming(zero, d, "/dev/zero"));
  EXPECT_LT(zero.peak_rss_kib, 512 * 1024);
}

std::string deep_json(std::size_t levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

TEST(HostileManifest, InvalidManifestsAreRefusedNamingTheFile) {
  HostileDir d;
  // A manifest is checked against a node: the bundled example (no --root),
  // so the test needs no root of its own.
  const std::vector<std::pair<std::string, std::string>> manifests = {
      {"count-string.json", R"({"count": "8"})"},
      {"gpus-count-string.json", R"({"gpus": {"count": "8"}})"},
      {"empty.json", "{}"},
      {"unknown-key.json", R"({"gpus": {"count": 8}, "gpu_count_typo": 8})"},
      {"deep.json", "{\"gpus\": " + deep_json(100000) + "}"},
      {"not-utf8.json", "{\"driver\": \"550\xff\x1b[2J\"}"},
  };
  for (const auto& [name, text] : manifests) {
    SCOPED_TRACE(name);
    std::string file = d.write(name, text);
    EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"node", "--manifest", file}), d, file));
  }
  std::string fifo = d.in() + "/fifo.json";
  HostileDir::make_fifo(fifo);
  HostileSpec spec = HostileSpec::command({"node", "--manifest", fifo});
  spec.timeout = std::chrono::seconds(10);
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, spec), d, fifo));
}

TEST(HostileBandwidthFile, InvalidBandwidthFilesAreRefusedNamingTheFile) {
  HostileDir d;
  std::string log = d.write("job.log", "gpu01:1:1 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n");
  const std::vector<std::pair<std::string, std::string>> files = {
      {"ratio-string.json", R"({"schema": "gdrcheck.bandwidth/1", "pass_ratio": "0.9"})"},
      {"empty.json", "{}"},
      {"unknown-key.json", R"({"schema": "gdrcheck.bandwidth/1", "pass_ratoi": 0.9})"},
      {"huge.json", R"({"schema": "gdrcheck.bandwidth/1", "pass_ratio": 1e300})"},
      {"deep.json", "{\"schema\": \"gdrcheck.bandwidth/1\", \"nic_ceilings\": " + deep_json(100000) + "}"},
  };
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    std::string file = d.write(name, text);
    EXPECT_TRUE(refused_naming(run_leaving_nothing(d, {"analyze", "--bandwidth-file", file, log}), d, file));
  }
  std::string fifo = d.in() + "/bw-fifo.json";
  HostileDir::make_fifo(fifo);
  HostileSpec spec = HostileSpec::command({"analyze", "--bandwidth-file", fifo, log});
  spec.timeout = std::chrono::seconds(10);
  EXPECT_TRUE(refused_naming(run_leaving_nothing(d, spec), d, fifo));
}

TEST(HostileBench, WorldWritableTestProgramInPathIsNotRun) {
  HostileDir d;
  std::string ran = d.base() + "/planted-program-ran";
  std::string program = d.write("bin/all_reduce_perf", "#!/bin/sh\ntouch '" + ran + "'\n");
  chmod(program.c_str(), 0777);
  fs::create_directories(d.in() + "/out");
  HostileSpec spec = HostileSpec::command({"bench", "nccl", "--launcher", "local", "--nic-rate", "400", "--nics", "8",
                                           "--gpus-per-node", "1", "--timeout", "10", "--output-dir", d.in() + "/out"});
  spec.env_set = {{"PATH", d.in() + "/bin:" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin")}};
  HostileResult r = run_hostile(spec);
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_FALSE(fs::exists(ran)) << "a program anyone may replace was run as root";
  EXPECT_NE(r.exit_code, kExitOk);
  EXPECT_NE((r.out + r.err).find("writable"), std::string::npos) << r.out << r.err;
}

TEST(HostileBench, PlantedLinkAtTheRawOutputNameIsNotFollowed) {
  HostileDir d;
  std::string out = d.in() + "/out";
  fs::create_directories(out);
  std::string target = d.base() + "/victim";
  std::ofstream(target) << "precious\n";
  std::string perftest = d.write("bin/ib_write_bw", "#!/bin/sh\necho planted-output-$$\n");
  chmod(perftest.c_str(), 0755);
  std::string root = d.in() + "/root";
  build_example_root(root);
  // The first names the run uses are its PID (the shell's, kept by exec)
  // and the UTC second; links are planted for the next few seconds.
  std::string plant =
      "now=$(date +%s); for s in 0 1 2 3 4 5; do t=$(date -u -d @$((now+s)) +%Y%m%dT%H%M%SZ); "
      "for l in host-mlx5_0-client host-mlx5_0-server; do "
      "ln -s '" +
      target + "' '" + out + "/gdrcheck-bench-'\"$(hostname)\"\"-$t-$$-$l.log\"; done; done; exec \"$@\"";
  HostileSpec spec = HostileSpec::command({"bench", "rdma", "--root", root, "--launcher", "local", "--perftest",
                                           perftest, "--output-dir", out, "--duration", "1"});
  spec.wrapper = {"/bin/sh", "-c", plant, "sh"};
  spec.timeout = std::chrono::seconds(40);
  HostileResult r = run_hostile(spec);
  EXPECT_TRUE(ran_safely(r, d));
  std::ifstream f(target);
  std::string content((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(content, "precious\n");
  std::size_t links = 0;
  for (const auto& e : fs::directory_iterator(out))
    if (fs::is_symlink(e.symlink_status())) {
      ++links;
      EXPECT_EQ(fs::read_symlink(e.path()).string(), target);
    }
  EXPECT_EQ(links, 12u) << "the planted links are left as they were";
}

}  // namespace
}  // namespace gdrcheck::testing

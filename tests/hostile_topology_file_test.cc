// The real binary on topology files, edit files and logs someone else
// wrote, in the commands that judge a topology as a machine
// (`node --topo`, `--what-if`) and cross-check it with logs (`analyze
// TOPOLOGY LOG`): names with terminal controls and bytes that are not
// UTF-8 never reach the terminal, JSON stays valid, FIFOs and deep or
// malformed edit files are refused naming the file, nothing is left behind.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "host/address_space_limit.h"
#include "hostile_run.h"
#include "recorded_fixtures.h"

namespace gdrcheck::testing {
namespace {

// A matrix whose NIC legend and header carry OSC, CSI, BEL, CR and bytes
// that are not UTF-8.
std::string hostile_matrix() {
  return "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
         "GPU0\t X \tNV8\tPIX\tSYS\t0-15\t0\n"
         "GPU1\tNV8\t X \tSYS\tSYS\t16-31\t1\n"
         "NIC0\tPIX\tSYS\t X \tSYS\n"
         "NIC1\tSYS\tSYS\tSYS\t X \n"
         "\nNIC Legend:\n\n  NIC0: mlx5_\x1b]0;owned\x07\n  NIC1: ml\xff\xfex5\x1b[2J\r_1\n";
}

std::string hostile_log() {
  return "ho\x1b[31mst:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
         "ho\x1b[31mst:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_\x1b]0;x\x07:1/IB [1]\xff\xfe:1/IB ; OOB ib0\n"
         "ho\x1b[31mst:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to \x1b[2J\xc3\x28\n"
         "ho\x1b[31mst:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 "
         "commId 0x1 - Init START\n"
         "ho\x1b[31mst:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1/GDRDMA\n"
         "ho\x1b[31mst:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 1 (distance 9 > 4)\n";
}

TEST(HostileNodeTopo, NamesFromTheFileNeverReachTheTerminal) {
  HostileDir d;
  std::string topo = d.write("topo.txt", hostile_matrix());
  for (const auto& extra : std::vector<std::vector<std::string>>{{}, {"-v"}, {"--assume", "all=ok"}}) {
    std::vector<std::string> args{"node", "--topo", topo, "--color", "never"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_TRUE(ran_safely(run_hostile(HostileSpec::command(args)), d));
  }
  HostileResult json = run_hostile(HostileSpec::command({"node", "--topo", topo, "--json"}));
  EXPECT_TRUE(ran_safely(json, d));
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out.substr(0, 300);
  HostileSpec piped = HostileSpec::command({"node", "--topo", "-"});
  piped.stdin_text = hostile_matrix();
  EXPECT_TRUE(ran_safely(run_hostile(piped), d));
}

TEST(HostileNodeTopo, FifoTopologyAndBadEditFilesAreRefusedNamingTheFile) {
  HostileDir d;
  std::string fifo = d.in() + "/topo.xml";
  HostileDir::make_fifo(fifo);
  HostileSpec spec = HostileSpec::command({"node", "--topo", fifo});
  spec.timeout = std::chrono::seconds(10);
  EXPECT_TRUE(refused_naming(run_hostile(spec), d, fifo));

  std::string xml = std::string(GDRCHECK_TEST_DATA) + "/recorded/flux/ipa20-dell-xe8640-4xH100.xml";
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"deep.json", "{\"moves\": " + std::string(100000, '[') + std::string(100000, ']') + "}"},
           {"twice.json", R"({"moves": [], "moves": [{"device": "0000:da:00.0", "under": "0000:cb:00.0"}]})"},
           {"controls.json", "{\"moves\": [{\"device\": \"\x1b]0;x\x07\", \"under\": \"\xff\"}]}"}}) {
    SCOPED_TRACE(name);
    std::string edit = d.write(name, text);
    HostileResult r = run_hostile(HostileSpec::command({"node", "--topo", xml, "--what-if", edit}));
    EXPECT_TRUE(ran_safely(r, d));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
  }
  std::string edit_fifo = d.in() + "/edit.json";
  HostileDir::make_fifo(edit_fifo);
  HostileSpec edit = HostileSpec::command({"node", "--topo", xml, "--what-if", edit_fifo});
  edit.timeout = std::chrono::seconds(10);
  HostileResult r = run_hostile(edit);
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_NE(r.exit_code, 0);
}

// hwloc sizes its bitmaps by the largest CPU or NUMA-node number: one near
// 2^32 in a 200 KB file took 0.5-1 GiB before the address-space limit.
// Each file is refused naming the object, and stays small.
TEST(HostileNodeTopo, ImpossibleCpuAndNodeNumbersAreRefusedAndStaySmall) {
  if (sanitizer_reserves_address_space()) GTEST_SKIP() << "no address-space limit in a sanitizer build";
  HostileDir d;
  std::string real = read_test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml");
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = real;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  std::string pu = d.write("pu.xml", edited("type=\"PU\" os_index=\"0\"", "type=\"PU\" os_index=\"4294967290\""));
  std::string numa =
      d.write("numa.xml", edited("type=\"NUMANode\" os_index=\"0\"", "type=\"NUMANode\" os_indey=\"0\""));
  for (const auto& file : {pu, numa}) {
    HostileResult r = run_hostile({"topo", file});
    EXPECT_TRUE(refused_naming(r, d, file));
    EXPECT_NE(r.err.find("os_index"), std::string::npos) << r.err;
    EXPECT_LT(r.peak_rss_kib, 200 * 1024) << file;
  }
}

TEST(HostileCrosscheck, LogNamesNeverReachTheTerminal) {
  HostileDir d;
  std::string topo = d.write("topo.txt", hostile_matrix());
  std::string log = d.write("job.log", hostile_log());
  EXPECT_TRUE(ran_safely(run_hostile(HostileSpec::command({"analyze", topo, log})), d));
  HostileResult json = run_hostile(HostileSpec::command({"analyze", "--json", topo, log}));
  EXPECT_TRUE(ran_safely(json, d));
  ASSERT_TRUE(nlohmann::json::accept(json.out)) << json.out.substr(0, 300);
  EXPECT_EQ(nlohmann::json::parse(json.out)["crosscheck"].size(), 1u);
}

}  // namespace
}  // namespace gdrcheck::testing

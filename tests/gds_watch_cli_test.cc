// `gdrcheck gds --watch -- COMMAND` end to end: the real binary on roots
// built here, with tests/data/gds/replay-nvfs-stats.sh standing in for the
// workload. It replaces the root's /proc/driver/nvidia-fs/stats with a real
// recorded output (tests/data/gds/stats); the test puts the "before"
// reading in place first (the same file, or it with named counters set
// back, since no public thread shows both readings of one machine).
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_binary.h"

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::run_gdrcheck;
using testing::test_data;

const std::string kReplay = test_data("gds/replay-nvfs-stats.sh");

std::string stats_path(const std::string& name) {
  return test_data("gds/stats/" + name);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const nlohmann::json* watch_finding(const nlohmann::json& j, const std::string& subject) {
  for (const auto& f : j["findings"])
    if (f["check"] == "gds.watch" && f["subject"] == subject) return &f;
  return nullptr;
}

class GdsWatchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gdrcheck-gds-watch-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    // A node the other gds checks pass on (as in gds_cli_test.cc), so that
    // the exit code is the watch's.
    for (const char* d : {"sys/module", "proc/driver", "sys/bus/pci/devices", "sys/class/nvme", "etc"})
      fs::create_directories(root_ / d);
    write("/proc/mounts", "/dev/vda1 / ext4 rw,relatime 0 0\nproc /proc proc rw 0 0\n");
    write("/proc/sys/kernel/hostname", "gds01\n");
    write("/sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
    write("/sys/bus/pci/devices/0000:1b:00.0/class", "0x030200\n");
    write("/etc/cufile.json", R"({"properties": {"allow_compat_mode": false}})");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& inside, const std::string& text) {
    fs::path p = root_ / inside.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  void nvidia_fs(const std::string& rw_stats_enabled = "1") {
    write("/sys/module/nvidia_fs/version", "2.20.5\n");
    write("/sys/module/nvidia_fs/parameters/rw_stats_enabled", rw_stats_enabled + "\n");
    write("/proc/driver/nvidia-fs/version", "version: 2.20\n");
    write("/proc/driver/nvidia-fs/modules", "nvme: 2.20.5\n");
    write("/proc/driver/nvidia-fs/bridges", "");
  }
  std::vector<std::string> watch(const std::string& after, const std::vector<std::string>& extra = {},
                                 const std::string& exit = "0") {
    std::vector<std::string> args = {"gds", "--root", root_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const std::string& a : {std::string("--watch"), std::string("--"), std::string("sh"), kReplay, root_.string(),
                                 stats_path(after), exit})
      args.push_back(a);
    return args;
  }
  fs::path root_;
};

TEST_F(GdsWatchCli, DirectBytesMovedIsOkAndTheCommandsOutputPassesThrough) {
  nvidia_fs();
  const std::string after = "gds-benchmarking-guide-nvfs-2.3.1-nfs-busy.txt";
  // Before: the same counters 1000 reads (100 MiB) earlier.
  write("/proc/driver/nvidia-fs/stats",
        with(with(read_text(stats_path(after)), "n=424436862 ok=424436734", "n=424435862 ok=424435734"),
             "readMiB=21518771", "readMiB=21518671"));
  auto r = run_gdrcheck(watch(after));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("replayed " + after), std::string::npos) << r.out;  // the command's own stdout
  EXPECT_NE(r.err.find("replay: exit 0"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("watched: sh "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK  gds.watch host: direct path: 100 MiB read, 0 MiB written through nvidia-fs (1000 reads, "
                       "0 writes completed)"),
            std::string::npos)
      << r.out;

  write("/proc/driver/nvidia-fs/stats",
        with(read_text(stats_path(after)), "Writes : n=309770912 ok=309770912", "Writes : n=309770900 ok=309770900"));
  auto j = run_gdrcheck(watch(after, {"--json"}));
  EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
  auto json = nlohmann::json::parse(j.out);  // the command's stdout went to stderr
  EXPECT_NE(j.err.find("replayed " + after), std::string::npos);
  EXPECT_EQ(json["schema"], "gdrcheck.gds/1");
  EXPECT_EQ(json["watch"]["outcome"], "exit status 0");
  EXPECT_EQ(json["watch"]["exit_code"], 0);
  EXPECT_EQ(json["watch"]["counts"]["writes_ok"], 12);
  EXPECT_EQ(json["watch"]["counts"]["reads"], 0);
  EXPECT_EQ(json["watch"]["driver_version"], "2:3:1");
  EXPECT_EQ(json["watch"]["gpus"].size(), 2u);
  EXPECT_EQ(json["watch"]["gpus"][0]["values"]["cross_root_port(%)"], 0);
  ASSERT_NE(watch_finding(json, "host"), nullptr);
  EXPECT_EQ((*watch_finding(json, "host"))["status"], "OK");
}

TEST_F(GdsWatchCli, NoDirectBytesIsAWarning) {
  nvidia_fs();
  const std::string after = "issue46-nvfs-2.20.5-mapped-no-io.txt";
  write("/proc/driver/nvidia-fs/stats", read_text(stats_path(after)));
  auto r = run_gdrcheck(watch(after));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("WARNING  gds.watch host: no read or write completed through nvidia-fs"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("allow_compat_mode"), std::string::npos);
}

TEST_F(GdsWatchCli, ErrorsThatRoseAreNamed) {
  nvidia_fs("0");
  const std::string after = "gds-troubleshooting-nvfs-2.7.49-spectrum-scale.txt";
  write("/proc/driver/nvidia-fs/stats", with(read_text(stats_path(after)), "io_state_err=237", "io_state_err=0"));
  auto r = run_gdrcheck(watch(after, {"--json"}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // WARNING outranks the UNKNOWN of counters that are off
  auto j = nlohmann::json::parse(r.out);
  ASSERT_NE(watch_finding(j, "errors"), nullptr);
  EXPECT_NE((*watch_finding(j, "errors"))["summary"].get<std::string>().find("Writes io_state_err +237"),
            std::string::npos);
  EXPECT_EQ((*watch_finding(j, "host"))["status"], "UNKNOWN");
  EXPECT_NE((*watch_finding(j, "host"))["summary"].get<std::string>().find("rw_stats_enabled = 0"), std::string::npos);
  EXPECT_EQ(j["watch"]["counts"]["errors_rose"]["Writes io_state_err"], 237);
}

TEST_F(GdsWatchCli, EvidenceMissingIsUnknown) {
  // No nvidia-fs at all: the driver check warns, the watch cannot tell.
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--json", "--watch", "--", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_NE(watch_finding(j, "host"), nullptr);
  EXPECT_EQ((*watch_finding(j, "host"))["status"], "UNKNOWN");
  EXPECT_NE((*watch_finding(j, "host"))["summary"].get<std::string>().find("nvidia-fs is not loaded"),
            std::string::npos);
  // Loaded, but the statistics cannot be read (here: not a file).
  nvidia_fs();
  fs::create_directories(root_ / "proc/driver/nvidia-fs/stats");
  r = run_gdrcheck({"gds", "--root", root_.string(), "--watch", "--", "true"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("UNKNOWN  gds.watch host: the nvidia-fs statistics could not be read before the command: "
                       "/proc/driver/nvidia-fs/stats"),
            std::string::npos)
      << r.out;
}

TEST_F(GdsWatchCli, ACommandThatFailsIsNamed) {
  nvidia_fs();
  const std::string after = "issue46-nvfs-2.20.5-mapped-no-io.txt";
  write("/proc/driver/nvidia-fs/stats", read_text(stats_path(after)));
  auto r = run_gdrcheck(watch(after, {}, "3"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("WARNING  gds.watch command: sh "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ended with exit status 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(exit status 3)"), std::string::npos) << r.out;
}

TEST_F(GdsWatchCli, AMissingCommandMeasuresNothing) {
  nvidia_fs();
  write("/proc/driver/nvidia-fs/stats", read_text(stats_path("issue46-nvfs-2.20.5-mapped-no-io.txt")));
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--watch", "--", "/nonexistent/gds-workload", "-x", "0"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("UNKNOWN  gds.watch command: /nonexistent/gds-workload -x 0 did not run"), std::string::npos)
      << r.out;
}

TEST_F(GdsWatchCli, UsageErrors) {
  auto r = run_gdrcheck({"gds", "--root", root_.string(), "--watch"});
  EXPECT_EQ(r.exit_code, 64) << r.out << r.err;
  EXPECT_NE(r.err.find("needs the command to run after --"), std::string::npos) << r.err;
  EXPECT_EQ(run_gdrcheck({"gds", "--root", root_.string(), "--", "true"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"gds", "--root", root_.string(), "--timeout", "5"}).exit_code, 64);
}

}  // namespace
}  // namespace gdrcheck

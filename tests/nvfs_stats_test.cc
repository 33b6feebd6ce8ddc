// The nvidia-fs statistics reader on every real output under
// tests/data/gds/stats (tests/data/gds/PROVENANCE.md says where each comes
// from), with the values checked by hand against the files, and on hostile
// input.
#include "evidence/nvfs_stats.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gdrcheck {
namespace {

std::string stats_text(const std::string& name) {
  std::ifstream in(std::string(GDRCHECK_TEST_DATA) + "/gds/stats/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::uint64_t v(const NvfsStats& s, std::string_view group, std::string_view key) {
  const NvfsValue* x = s.value(group, key);
  EXPECT_TRUE(x && *x) << group << " " << key;
  return x && *x ? **x : ~0ull;
}

std::uint64_t gv(const NvfsGpu& g, std::string_view key) {
  for (const auto& [k, x] : g.values)
    if (k == key && x) return *x;
  ADD_FAILURE() << g.bdf << " " << key;
  return ~0ull;
}

TEST(NvfsStats, Issue31Driver2_17IdleWithIoStatsDisabled) {
  NvfsStats s = parse_nvfs_stats(stats_text("issue31-nvfs-2.17.5-idle.txt"));
  ASSERT_TRUE(s.recognised());
  EXPECT_EQ(s.gds_version, "1.7.2.11");
  EXPECT_EQ(s.stats_version, "4.0");
  EXPECT_EQ(s.driver_version, "2.17.5");
  EXPECT_EQ(s.peerdirect, false);
  EXPECT_EQ(s.io_stats, false);
  EXPECT_EQ(s.peer_io_stats, true);
  EXPECT_EQ(s.logging_level, "info");
  ASSERT_NE(s.scalar("Active Shadow-Buffer (MiB)"), nullptr);
  EXPECT_EQ(*s.scalar("Active Shadow-Buffer (MiB)"), 0u);
  EXPECT_EQ(*s.scalar("Active Process"), 0u);
  // IO stats off: Reads and Writes print their error counters only.
  EXPECT_EQ(s.value("Reads", "n"), nullptr);
  EXPECT_EQ(s.value("Writes", "writeMiB"), nullptr);
  EXPECT_EQ(v(s, "Reads", "err"), 0u);
  EXPECT_EQ(v(s, "Writes", "pg-cache-eio"), 0u);
  EXPECT_EQ(v(s, "Bar1-map", "delay-frees"), 0u);
  EXPECT_EQ(v(s, "Ops", "BatchIO"), 0u);
  EXPECT_EQ(s.groups.size(), 7u);  // Reads, Sparse Reads, Writes, Mmap, Bar1-map, Error, Ops
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.ignored_lines, 0u);
  EXPECT_FALSE(s.truncated);
}

TEST(NvfsStats, Issue46Driver2_20TabsBatchesAndASecondReadsLine) {
  NvfsStats s = parse_nvfs_stats(stats_text("issue46-nvfs-2.20.5-mapped-no-io.txt"));
  EXPECT_EQ(s.gds_version, "1.10.0.4");  // printed with a trailing space
  EXPECT_EQ(s.driver_version, "2.20.5");
  EXPECT_EQ(s.peerdirect, true);
  EXPECT_EQ(s.io_stats, true);
  EXPECT_EQ(s.logging_level, "debug");
  EXPECT_EQ(v(s, "Batches", "n"), 0u);
  EXPECT_EQ(v(s, "Batches", "Avg-Submit-Latency(usec)"), 0u);
  EXPECT_EQ(v(s, "Reads", "n"), 0u);
  EXPECT_EQ(v(s, "Reads", "readMiB"), 0u);
  EXPECT_EQ(v(s, "Reads", "Bandwidth(MiB/s)"), 0u);  // from the second Reads line
  EXPECT_EQ(v(s, "Writes", "writeMiB"), 0u);
  EXPECT_EQ(v(s, "Sparse Reads", "pages"), 0u);
  EXPECT_EQ(v(s, "Mmap", "n"), 1u);
  EXPECT_EQ(v(s, "Mmap", "munmap"), 1u);
  EXPECT_EQ(v(s, "Bar1-map", "ok"), 1u);
  EXPECT_EQ(v(s, "Bar1-map", "free"), 1u);
  EXPECT_EQ(s.groups.size(), 8u);  // Batches, Reads, Sparse Reads, Writes, Mmap, Bar1-map, Error, Ops
  EXPECT_EQ(s.ignored_lines, 0u);
}

TEST(NvfsStats, StellineDriver2_25AfterAGdsioWriteWithIoStatsDisabled) {
  NvfsStats s = parse_nvfs_stats(stats_text("stelline-nvfs-2.25.7-after-gdsio-write.txt"));
  EXPECT_EQ(s.gds_version, "1.14.0.31");
  EXPECT_EQ(s.driver_version, "2.25.7");
  EXPECT_EQ(s.io_stats, false);
  EXPECT_EQ(s.peer_io_stats, false);
  EXPECT_EQ(s.value("Writes", "n"), nullptr);
  EXPECT_EQ(v(s, "Mmap", "munmap"), 2u);
  EXPECT_EQ(v(s, "Bar1-map", "n"), 1u);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].bdf, "0000:01:00.0");
  EXPECT_EQ(s.gpus[0].uuid, "fb1e6550-2a78-d767-1f0d-7512eb8c552d");
  EXPECT_EQ(gv(s.gpus[0], "Registered_MiB"), 0u);
  EXPECT_EQ(gv(s.gpus[0], "max_pinned_MiB"), 1u);
  EXPECT_EQ(s.gpus[0].values.size(), 3u);  // peer stats off: no cross_root_port
}

TEST(NvfsStats, BenchmarkingGuideDriver2_3BusyNfsClient) {
  NvfsStats s = parse_nvfs_stats(stats_text("gds-benchmarking-guide-nvfs-2.3.1-nfs-busy.txt"));
  EXPECT_EQ(s.gds_version, "0.9.0.743");
  EXPECT_EQ(s.stats_version, "2.0");
  EXPECT_EQ(s.driver_version, "2:3:1");  // as 2.3 printed it
  EXPECT_FALSE(s.peerdirect);            // no such line before 2.7
  EXPECT_FALSE(s.io_stats);
  EXPECT_EQ(*s.scalar("Active Shadow-Buffer (MiB)"), 128u);
  EXPECT_EQ(v(s, "Reads", "n"), 424436862u);
  EXPECT_EQ(v(s, "Reads", "ok"), 424436734u);
  EXPECT_EQ(v(s, "Reads", "readMiB"), 21518771u);
  EXPECT_EQ(v(s, "Reads", "Avg-Latency(usec)"), 9773u);
  EXPECT_EQ(v(s, "Sparse Reads", "n"), 19783000u);
  EXPECT_EQ(v(s, "Writes", "n"), 309770912u);
  EXPECT_EQ(v(s, "Writes", "writeMiB"), 9748727u);
  EXPECT_EQ(v(s, "Writes", "Bandwidth(MiB/s)"), 6958u);
  EXPECT_EQ(v(s, "Bar1-map", "active"), 128u);
  EXPECT_EQ(s.value("Bar1-map", "delay-frees"), nullptr);  // added later
  EXPECT_EQ(s.value("Error", "dma-ref"), nullptr);
  EXPECT_EQ(v(s, "Ops", "Read"), 128u);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[1].bdf, "0000:e7:00.0");
  EXPECT_EQ(gv(s.gpus[1], "max_pinned_MiB"), 8u);
  EXPECT_EQ(gv(s.gpus[1], "cross_root_port(%)"), 0u);
  EXPECT_EQ(s.ignored_lines, 1u);  // the guide's ". ." elision
}

TEST(NvfsStats, TroubleshootingGuideDriver2_7SixteenGpusWithPeerStats) {
  NvfsStats s = parse_nvfs_stats(stats_text("gds-troubleshooting-nvfs-2.7.47-peer-stats.txt"));
  EXPECT_EQ(s.driver_version, "2:7:47");
  EXPECT_EQ(s.io_stats, true);
  EXPECT_EQ(s.peer_io_stats, true);
  EXPECT_EQ(v(s, "Sparse Reads", "n"), 6u);
  EXPECT_EQ(v(s, "Mmap", "n"), 183u);
  EXPECT_EQ(v(s, "Bar1-map", "free"), 165u);
  EXPECT_EQ(v(s, "Bar1-map", "callbacks"), 18u);
  EXPECT_EQ(s.value("Ops", "BatchIO"), nullptr);
  ASSERT_EQ(s.gpus.size(), 16u);
  EXPECT_EQ(s.gpus[5].bdf, "0000:34:00.0");
  EXPECT_EQ(gv(s.gpus[5], "max_pinned_MiB"), 128u);
  EXPECT_EQ(s.gpus[15].uuid, "fda65234-707b-960a-d577-18c519301848");
  EXPECT_EQ(gv(s.gpus[15], "cross_root_port(%)"), 0u);
}

TEST(NvfsStats, TroubleshootingGuideOldFieldNamesAndAWrappedLine) {
  NvfsStats s = parse_nvfs_stats(stats_text("gds-troubleshooting-nvfs-2.7.47-lustre-one-write.txt"));
  EXPECT_EQ(*s.scalar("Active Shadow-Buffer (MB)"), 0u);
  EXPECT_EQ(v(s, "Reads", "readmb"), 0u);
  EXPECT_EQ(v(s, "Writes", "n"), 1u);
  EXPECT_EQ(v(s, "Writes", "ok"), 1u);
  EXPECT_EQ(v(s, "Writes", "writemb"), 0u);  // one write of less than 1 MiB
  EXPECT_EQ(*s.first_value("Writes", {"writeMiB", "writemb"}), 0u);
  EXPECT_EQ(v(s, "Writes", "pg-cache-eio"), 0u);  // the line the page broke off
  EXPECT_EQ(v(s, "Writes", "Bandwidth(MB/s)"), 0u);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].bdf, "0000:34:00:0");
  EXPECT_EQ(gv(s.gpus[0], "pinned_MB"), 0u);
  EXPECT_EQ(gv(s.gpus[0], "cross_root_port(%)"), 100u);
  EXPECT_EQ(s.ignored_lines, 0u);
}

TEST(NvfsStats, TroubleshootingGuideWriteErrorsWithIoStatsDisabled) {
  NvfsStats s = parse_nvfs_stats(stats_text("gds-troubleshooting-nvfs-2.7.49-spectrum-scale.txt"));
  EXPECT_EQ(s.gds_version, "1.0.0.82");
  EXPECT_EQ(s.driver_version, "2.7.49");
  EXPECT_EQ(s.io_stats, false);
  EXPECT_EQ(v(s, "Writes", "io_state_err"), 237u);
  EXPECT_EQ(v(s, "Writes", "err"), 0u);
  EXPECT_EQ(v(s, "Sparse Reads", "n"), 230u);
  EXPECT_EQ(v(s, "Mmap", "n"), 27u);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].bdf, "0000:2f:00.0");
  EXPECT_EQ(gv(s.gpus[0], "max_pinned_MiB"), 2u);
}

TEST(NvfsStats, NumbersThatDoNotFitAreUnknownNotWrapped) {
  NvfsStats s = parse_nvfs_stats(
      "Reads : n=18446744073709551616 ok=18446744073709551615 err=-1 readMiB=12.5 io_state_err=0x10\n"
      "Active Process: 99999999999999999999999\n");
  ASSERT_NE(s.value("Reads", "n"), nullptr);
  EXPECT_FALSE(*s.value("Reads", "n"));
  EXPECT_EQ(*s.value("Reads", "ok"), 18446744073709551615ull);
  EXPECT_FALSE(*s.value("Reads", "err"));
  EXPECT_FALSE(*s.value("Reads", "readMiB"));
  EXPECT_FALSE(*s.value("Reads", "io_state_err"));
  ASSERT_NE(s.scalar("Active Process"), nullptr);
  EXPECT_FALSE(*s.scalar("Active Process"));
}

TEST(NvfsStats, HostileInputIsBounded) {
  EXPECT_FALSE(parse_nvfs_stats("").recognised());
  EXPECT_FALSE(parse_nvfs_stats("\x1b[2J: =\n:::\n= = =\n").recognised());
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "GPU 0000:" + std::to_string(i) + " uuid:x : a=1\n";
  NvfsStats s = parse_nvfs_stats(many);
  EXPECT_TRUE(s.truncated);
  EXPECT_LE(s.gpus.size(), 1024u);
  std::string keys = "Reads :";
  for (int i = 0; i < 200; ++i) keys += " k" + std::to_string(i) + "=1";
  s = parse_nvfs_stats(keys);
  EXPECT_TRUE(s.truncated);
  ASSERT_NE(s.group("Reads"), nullptr);
  EXPECT_EQ(s.group("Reads")->values.size(), 64u);
  // A line longer than any nvidia-fs prints is skipped whole.
  s = parse_nvfs_stats("Reads : n=1 " + std::string(5000, 'x') + "=1\n");
  EXPECT_EQ(s.group("Reads"), nullptr);
  EXPECT_EQ(s.ignored_lines, 1u);
  s = parse_nvfs_stats(std::string(kMaxNvfsStatsBytes + 10, 'x'));
  EXPECT_TRUE(s.truncated);
  // A key printed twice keeps its first value; a stray continuation line
  // with no line before it is ignored.
  s = parse_nvfs_stats("x=1\nReads : n=1\nReads : n=2\nn=3 ok=4\n");
  EXPECT_EQ(**s.value("Reads", "n"), 1u);
  EXPECT_EQ(**s.value("Reads", "ok"), 4u);
  EXPECT_EQ(s.ignored_lines, 1u);
}

}  // namespace
}  // namespace gdrcheck

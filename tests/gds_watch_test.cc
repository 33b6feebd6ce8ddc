// gds.watch: what nvidia-fs counters read before and after a command prove.
// The readings are the real outputs under tests/data/gds/stats; where a run
// needs a "before" that no public thread shows, it is the real file with
// named counters set back (said at each test), never invented lines.
#include "checks/gds_watch.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

std::string stats_file(const std::string& name) {
  std::ifstream in(std::string(GDRCHECK_TEST_DATA) + "/gds/stats/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string text_with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

ProcessResult process_exited(int code) {
  ProcessResult r;
  r.end = ProcessResult::End::Exited;
  r.exit_code = code;
  return r;
}

GdsWatchInput watch_input(const std::string& before, const std::string& after, ProcessResult run = process_exited(0)) {
  GdsWatchInput in;
  in.command = {"gdsio", "-f", "/mnt/nvme/test", "-x", "0", "-I", "0"};
  in.run = run;
  in.before.stats = parse_nvfs_stats(before);
  in.after.stats = parse_nvfs_stats(after);
  in.nvidia_fs_loaded = true;
  in.rw_stats_enabled = {"/sys/module/nvidia_fs/parameters/rw_stats_enabled", "1", ""};
  return in;
}

const Finding* finding_about(const GdsWatch& w, const std::string& subject) {
  for (const auto& f : w.findings)
    if (f.subject == subject) return &f;
  return nullptr;
}

TEST(GdsWatch, ReadsAndWritesThatCompletedThroughNvidiaFsAreTheDirectPath) {
  // The busy NFS client of the benchmarking guide; before: the same file
  // with 1000 fewer reads (100 fewer MiB) and 10 fewer writes.
  std::string after = stats_file("gds-benchmarking-guide-nvfs-2.3.1-nfs-busy.txt");
  std::string before = text_with(text_with(text_with(after, "n=424436862 ok=424436734", "n=424435862 ok=424435734"),
                                           "readMiB=21518771", "readMiB=21518671"),
                                 "n=309770912 ok=309770912", "n=309770902 ok=309770902");
  GdsWatch w = judge_gds_watch(watch_input(before, after));
  ASSERT_EQ(w.findings.size(), 1u);
  const Finding& f = w.findings[0];
  EXPECT_EQ(f.check, "gds.watch");
  EXPECT_EQ(f.status, Status::Ok);
  EXPECT_NE(f.summary.find("direct path: 100 MiB read, less than 1 MiB written through nvidia-fs (1000 reads, 10 "
                           "writes completed)"),
            std::string::npos)
      << f.summary;
  ASSERT_TRUE(w.counts);
  EXPECT_EQ(w.counts->reads_ok, 1000u);
  EXPECT_EQ(w.counts->write_mib, 0u);
  // Per-GPU lines and the limits of the proof are in the evidence.
  std::string ev = join(f.evidence, "\n");
  EXPECT_NE(ev.find("GPU 0000:be:00.0: Registered_MiB 0, Cache_MiB 0, max_pinned_MiB 8, cross_root_port(%) 0"),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("node-wide"), std::string::npos);
  EXPECT_NE(ev.find("compat mode is not counted"), std::string::npos);
}

TEST(GdsWatch, CrossRootPortTrafficIsNotedAsTheSlowerPath) {
  // The Lustre example of the troubleshooting guide: one write of less
  // than a MiB, 100% of it across root ports; before: no write yet.
  std::string after = stats_file("gds-troubleshooting-nvfs-2.7.47-lustre-one-write.txt");
  std::string before = text_with(after, "Writes : n=1 ok=1", "Writes : n=0 ok=0");
  GdsWatch w = judge_gds_watch(watch_input(before, after));
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].status, Status::Ok);
  EXPECT_NE(w.findings[0].summary.find("0 MiB read, less than 1 MiB written"), std::string::npos)
      << w.findings[0].summary;
  EXPECT_NE(w.findings[0].summary.find("crossed PCIe root ports"), std::string::npos);
  EXPECT_NE(w.findings[0].summary.find("GPU 0000:34:00:0 100%"), std::string::npos);
}

TEST(GdsWatch, NothingThroughNvidiaFsIsAWarningThatSaysWhatItCanMean) {
  // Issue #46's counters read twice: the command moved nothing through
  // nvidia-fs.
  std::string stats = stats_file("issue46-nvfs-2.20.5-mapped-no-io.txt");
  GdsWatch w = judge_gds_watch(watch_input(stats, stats));
  ASSERT_EQ(w.findings.size(), 1u);
  const Finding& f = w.findings[0];
  EXPECT_EQ(f.status, Status::Warning);  // never CRITICAL: the counters cannot tell compat from no I/O
  EXPECT_NE(f.summary.find("no read or write completed through nvidia-fs"), std::string::npos);
  EXPECT_NE(f.summary.find("compat mode"), std::string::npos);
  EXPECT_NE(f.summary.find("did no cuFile I/O"), std::string::npos);
  EXPECT_NE(f.fix.find("allow_compat_mode"), std::string::npos);
  EXPECT_NE(f.fix.find("gds_stats"), std::string::npos);
}

TEST(GdsWatch, BuffersMappedButNoIoIsNamed) {
  // Issue #46: cuFile mapped a GPU buffer (Mmap and Bar1-map 1) and no
  // read or write went through nvidia-fs; before: nothing mapped yet.
  std::string after = stats_file("issue46-nvfs-2.20.5-mapped-no-io.txt");
  std::string before = text_with(text_with(after, "n=1 ok=1 err=0 munmap=1", "n=0 ok=0 err=0 munmap=0"),
                                 "n=1 ok=1 err=0 free=1", "n=0 ok=0 err=0 free=0");
  GdsWatch w = judge_gds_watch(watch_input(before, after));
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].status, Status::Warning);
  EXPECT_NE(w.findings[0].summary.find("mapped GPU memory through nvidia-fs (Bar1-map +1)"), std::string::npos)
      << w.findings[0].summary;
}

TEST(GdsWatch, CountersOffAreUnknownWithTheParameterToSet) {
  // Stelline: IO stats disabled; gdsio wrote 5 GiB and only Mmap and
  // Bar1-map show it; before: nothing mapped.
  std::string after = stats_file("stelline-nvfs-2.25.7-after-gdsio-write.txt");
  std::string before = text_with(text_with(after, "n=1 ok=1 err=0 munmap=2", "n=0 ok=0 err=0 munmap=1"),
                                 "n=1 ok=1 err=0 free=1", "n=0 ok=0 err=0 free=0");
  GdsWatchInput in = watch_input(before, after);
  in.rw_stats_enabled.value = "0";
  GdsWatch w = judge_gds_watch(in);
  ASSERT_EQ(w.findings.size(), 1u);
  const Finding& f = w.findings[0];
  EXPECT_EQ(f.status, Status::Unknown);
  EXPECT_NE(f.summary.find("counters are off (rw_stats_enabled = 0)"), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("mapped GPU memory through nvidia-fs 1 time(s)"), std::string::npos) << f.summary;
  EXPECT_NE(f.fix.find("echo 1 > /sys/module/nvidia_fs/parameters/rw_stats_enabled"), std::string::npos);
  EXPECT_EQ(w.io_stats, false);
}

TEST(GdsWatch, ErrorCountersThatRoseAreNamed) {
  // The Spectrum Scale example: 237 write completions failed; before: none.
  std::string after = stats_file("gds-troubleshooting-nvfs-2.7.49-spectrum-scale.txt");
  std::string before = text_with(after, "io_state_err=237", "io_state_err=0");
  GdsWatch w = judge_gds_watch(watch_input(before, after));
  const Finding* e = finding_about(w, "errors");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::Warning);
  EXPECT_NE(e->summary.find("Writes io_state_err +237"), std::string::npos) << e->summary;
  EXPECT_EQ(finding_about(w, "host")->status, Status::Unknown);  // IO stats were off
}

TEST(GdsWatch, AllSubmittedIoFailingWhileTheCommandFailedIsCritical) {
  // Issue #46 with IO stats on: before nothing; after 4 reads submitted,
  // none completed, 4 failed, and the command exited 1.
  std::string before = stats_file("issue46-nvfs-2.20.5-mapped-no-io.txt");
  std::string after =
      text_with(before, "n=0 ok=0 err=0 readMiB=0 io_state_err=0", "n=4 ok=0 err=4 readMiB=0 io_state_err=4");
  GdsWatch w = judge_gds_watch(watch_input(before, after, process_exited(1)));
  EXPECT_EQ(finding_about(w, "command")->status, Status::Warning);
  EXPECT_NE(finding_about(w, "command")->summary.find("exit status 1"), std::string::npos);
  EXPECT_EQ(finding_about(w, "host")->status, Status::Warning);
  EXPECT_NE(finding_about(w, "host")->summary.find("4 were submitted and none completed"), std::string::npos);
  const Finding* e = finding_about(w, "errors");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::Critical);
  EXPECT_NE(e->summary.find("Reads err +4, Reads io_state_err +4"), std::string::npos) << e->summary;
  // The same errors with a command that succeeded: a warning only.
  w = judge_gds_watch(watch_input(before, after));
  EXPECT_EQ(finding_about(w, "errors")->status, Status::Warning);
}

TEST(GdsWatch, CountersThatWentDownOrAReloadProveNothing) {
  std::string busy = stats_file("gds-benchmarking-guide-nvfs-2.3.1-nfs-busy.txt");
  std::string reset = text_with(busy, "n=424436862 ok=424436734", "n=0 ok=0");
  GdsWatch w = judge_gds_watch(watch_input(busy, reset));
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].status, Status::Unknown);
  EXPECT_NE(w.findings[0].summary.find("went down"), std::string::npos);
  EXPECT_NE(w.findings[0].evidence[0].find("Reads n 424436862 -> 0"), std::string::npos);
  w = judge_gds_watch(
      watch_input(stats_file("issue31-nvfs-2.17.5-idle.txt"), stats_file("issue46-nvfs-2.20.5-mapped-no-io.txt")));
  EXPECT_NE(w.findings.at(0).summary.find("reloaded"), std::string::npos);
  EXPECT_EQ(w.findings[0].status, Status::Unknown);
}

TEST(GdsWatch, EvidenceMissingIsUnknown) {
  GdsWatchInput in = watch_input("", "");
  in.before.stats.reset();
  in.before.problem = "/proc/driver/nvidia-fs/stats: not found";
  in.nvidia_fs_loaded = false;
  GdsWatch w = judge_gds_watch(in);
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].status, Status::Unknown);
  EXPECT_NE(w.findings[0].summary.find("nvidia-fs is not loaded"), std::string::npos);
  in.nvidia_fs_loaded = true;
  in.before.problem = "/proc/driver/nvidia-fs/stats: permission denied";
  w = judge_gds_watch(in);
  EXPECT_NE(w.findings.at(0).summary.find("could not be read before the command: "), std::string::npos);
  // A file that is not nvidia-fs's statistics.
  w = judge_gds_watch(watch_input("hello\n", "hello\n"));
  EXPECT_EQ(w.findings.at(0).status, Status::Unknown);
  EXPECT_NE(w.findings[0].summary.find("not nvidia-fs statistics"), std::string::npos);
}

TEST(GdsWatch, ACommandThatDidNotStartMeasuresNothing) {
  ProcessResult r;
  r.end = ProcessResult::End::NotStarted;
  r.start_error = "no-such-tool: not found in PATH";
  std::string stats = stats_file("issue31-nvfs-2.17.5-idle.txt");
  GdsWatch w = judge_gds_watch(watch_input(stats, stats, r));
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].subject, "command");
  EXPECT_EQ(w.findings[0].status, Status::Unknown);
  EXPECT_NE(w.findings[0].summary.find("did not run"), std::string::npos);
}

TEST(GdsWatch, HostileCommandAndDataAreEscaped) {
  std::string stats = stats_file("issue46-nvfs-2.20.5-mapped-no-io.txt");
  GdsWatchInput in = watch_input(stats, stats);
  in.command = {"tool\x1b]0;pwn\x07", "a\nb"};
  GdsWatch w = judge_gds_watch(in);
  for (const auto& f : w.findings) {
    EXPECT_EQ(f.summary.find('\x1b'), std::string::npos);
    EXPECT_EQ(f.summary.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace gdrcheck

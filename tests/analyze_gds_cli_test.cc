// `gdrcheck analyze` on gdsio output and cuFile logs, through the real
// binary: detection, each verdict on the real files of tests/data/gds (and
// on copies the tests cut down to what a verdict needs), exit codes, JSON,
// and hostile text quoted back safely.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::run_gdrcheck;
using testing::scratch_file;
using testing::test_data;

std::string gdsio(const std::string& name) {
  return test_data("gds/gdsio/" + name);
}
std::string cufile(const std::string& name) {
  return test_data("gds/cufile-log/" + name);
}

// Text output wraps at 80 columns with continuation lines indented by four
// spaces: joined back, a sentence can be looked for whole.
std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 5, "\n    ") == 0) {
      out += ' ';
      i += 4;
      continue;
    }
    out += text[i];
  }
  return out;
}

bool unwrapped_has(const std::string& text, const std::string& part) {
  return unwrapped(text).find(part) != std::string::npos;
}

TEST(AnalyzeGdsDetect, EveryRealFileHasItsKind) {
  for (const char* f : {"onizuka-beta-0.9-result.txt", "onizuka-gds-1.0-p1000-12-runs.txt",
                        "onizuka-gds-1.1-vm-p400.txt", "keichi-gds-1.15-rocky-3-runs.txt",
                        "gds-nvidia-fs-30-vast-nfs-fragments.txt", "gds-nvidia-fs-57-io-failed.txt"})
    EXPECT_EQ(analyze_file(gdsio(f)).kind, ArtifactKind::Gdsio) << f;
  for (const char* f :
       {"onizuka-gds-1.0-compatible-mode.txt", "abci-gds-1.11-info-head.txt", "gds-nvidia-fs-31-rocky-mixed-cut.txt",
        "gds-nvidia-fs-62-udev-dm-cut.txt", "gds-nvidia-fs-4-peermem-bar1-cut.txt",
        "aikitoria-17-nvfs-map-ioctl-cut.txt", "tinygrad-51-nvme-not-registered-cut.txt",
        "gds-nvidia-fs-78-trace-nvfs-path-cut.txt", "gds-nvidia-fs-19-bufregister-cut.txt"})
    EXPECT_EQ(analyze_file(cufile(f)).kind, ArtifactKind::CufileLog) << f;
  // gdscheck -p output stays gdscheck although cuFile's INFO lines share its keys.
  EXPECT_EQ(analyze_file(test_data("gdscheck/onizuka-gds-1.0.0.82-p1000.txt")).kind, ArtifactKind::Gdscheck);
  ArtifactKind k{};
  EXPECT_TRUE(parse_artifact_kind("gdsio", &k));
  EXPECT_EQ(k, ArtifactKind::Gdsio);
  EXPECT_TRUE(parse_artifact_kind("cufile-log", &k));
  EXPECT_EQ(k, ArtifactKind::CufileLog);
}

TEST(AnalyzeGdsDetect, NeitherStaysOfNoKnownKind) {
  std::string f = scratch_file("notes.txt", "the throughput was fine\nERROR: disk full\nThroughput: great\n");
  auto r = run_gdrcheck({"analyze", f});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(unwrapped_has(r.err, "of no known kind")) << r.err;
  EXPECT_TRUE(unwrapped_has(r.err, "cufile.log")) << r.err;
}

// ------------------------------------------------------------- gdsio

TEST(AnalyzeGdsCli, GpudRunIsOkWithItsThroughputAndTheCaution) {
  auto r = run_gdrcheck({"analyze", gdsio("onizuka-gds-1.1-vm-p400.txt")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(unwrapped_has(r.out, "(gdsio)")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out,
                            "OK: GPUDirect Storage path measured: 1 run through cuFile; best READ 1.564 GiB/s (GPUD, "
                            "line 6)"))
      << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "prints GPUD also when libcufile fell back to compat mode")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "READ: GPU direct 1.564 GiB/s vs CPU_GPU 1.429 GiB/s")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "line 11: READ CPU_GPU, 1 threads, IOSize 256(KiB), 1.429 GiB/s")) << r.out;
}

TEST(AnalyzeGdsCli, TwelveRunsBestPerIoType) {
  auto r = run_gdrcheck({"analyze", gdsio("onizuka-gds-1.0-p1000-12-runs.txt")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out,
                            "4 runs through cuFile; best WRITE 1.436 GiB/s (GPUD, line 20), READ 1.840 GiB/s (GPUD, "
                            "line 33), RANDWRITE 1.304 GiB/s (GPUD, line 46), RANDREAD 1.532 GiB/s (GPUD, line 59)"))
      << r.out;
}

TEST(AnalyzeGdsCli, FragmentsWithCommandsAreOkAndSayWhereTheTypeCameFrom) {
  auto r = run_gdrcheck({"analyze", gdsio("gds-nvidia-fs-30-vast-nfs-fragments.txt")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "best I/O 6.885 GiB/s (GPUD, line 7)")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "line 4: transfer type GPUD taken from the gdsio command before it")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "line 10: the transfer type is not shown")) << r.out;
}

TEST(AnalyzeGdsCli, IoErrorsAreCritical) {
  auto r = run_gdrcheck({"analyze", gdsio("gds-nvidia-fs-57-io-failed.txt")});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out,
                            "CRITICAL: gdsio reported I/O errors (4 lines; line 3: write io failed of type 1 size: "
                            "16777216 , ret: 0)"))
      << r.out;
}

// Only the runs through host memory: nothing about GDS is proven, and it
// is not called a failure either.
TEST(AnalyzeGdsCli, CpuStagedRunsOnlyAreUnknownNotAFailure) {
  std::string text = testing::read_test_data("gds/gdsio/keichi-gds-1.15-rocky-3-runs.txt");
  std::string staged = text.substr(text.find("NVMe -> CPU\n"));
  auto r = run_gdrcheck({"analyze", scratch_file("staged.txt", staged)});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out,
                            "UNKNOWN: no GPU direct run: CPUONLY (storage to host memory only; no GPU involved), "
                            "CPU_GPU (storage to host memory, then copied to the GPU) does not use GPUDirect Storage"))
      << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "gdsio -x 0")) << r.out;
}

TEST(AnalyzeGdsCli, UntypedFragmentIsUnknown) {
  auto r = run_gdrcheck({"analyze", "--kind", "gdsio", "-"},
                        "`Throughput: 20.600775 GiB/sec, Avg_Latency: 9095.061970 usecs`\n");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "1 run without a known transfer type")) << r.out;
}

TEST(AnalyzeGdsCli, GdsioJson) {
  auto r = run_gdrcheck({"analyze", "--json", gdsio("keichi-gds-1.15-rocky-3-runs.txt")});
  json j = json::parse(r.out);
  const json& a = j["artifacts"][0];
  EXPECT_EQ(a["kind"], "gdsio");
  EXPECT_EQ(a["status"], "OK");
  ASSERT_EQ(a["runs"].size(), 3u);
  EXPECT_EQ(a["runs"][0]["xfer_type"], "GPUD");
  EXPECT_EQ(a["runs"][0]["xfer_class"], "direct");
  EXPECT_EQ(a["runs"][1]["xfer_class"], "cpu_staged");
  EXPECT_DOUBLE_EQ(a["runs"][0]["throughput_gib_s"].get<double>(), 6.816723);
  EXPECT_EQ(a["runs"][0]["threads"], 8);
  EXPECT_EQ(a["runs"][0]["dataset_kib"], 8363008);
  EXPECT_EQ(a["runs"][0]["line"], 5);
  EXPECT_TRUE(a["runs"][0]["io_depth"].is_null());
  EXPECT_EQ(a["commands"], 3);
  EXPECT_TRUE(a["errors"].empty());
}

// ------------------------------------------------------------ cufile-log

TEST(AnalyzeGdsCli, CompatModeIsAWarningWithItsLine) {
  auto r = run_gdrcheck({"analyze", cufile("onizuka-gds-1.0-compatible-mode.txt")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "(cufile-log)")) << r.out;
  EXPECT_TRUE(
      unwrapped_has(r.out, "WARNING: compat mode: cuFile I/O went through host memory, not GPUDirect Storage (line 1)"))
      << r.out;
  // The quoted line (the wrap at 80 columns may fall between its words).
  EXPECT_TRUE(unwrapped_has(r.out, "line 1: 16-07-2021 08:29:17:433 [pid=2363 tid=2363] NOTICE")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "cufio-drv:625 running in compatible mode")) << r.out;
}

TEST(AnalyzeGdsCli, InitFailureIsCritical) {
  auto r = run_gdrcheck({"analyze", cufile("gds-nvidia-fs-31-rocky-mixed-cut.txt")});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "CRITICAL: cuFile could not use GPUDirect Storage: cuFile could not initialise"))
      << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "(line 3)")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "10 cuFile log lines from 7 processes, 02-11-2023 11:42:01:926 to 07-11-2023"))
      << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "nvidia_fs_not_loaded (3 lines)")) << r.out;
}

TEST(AnalyzeGdsCli, EachCriticalLog) {
  for (const char* f : {"aikitoria-17-nvfs-map-ioctl-cut.txt", "tinygrad-51-nvme-not-registered-cut.txt",
                        "gds-nvidia-fs-62-udev-dm-cut.txt", "gds-nvidia-fs-19-bufregister-cut.txt"}) {
    auto r = run_gdrcheck({"analyze", cufile(f)});
    EXPECT_EQ(r.exit_code, 2) << f << "\n" << r.out;
  }
}

TEST(AnalyzeGdsCli, PeerMemoryAndBar1AreWarnings) {
  auto r = run_gdrcheck({"analyze", cufile("gds-nvidia-fs-4-peermem-bar1-cut.txt")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "WARNING: nvidia_peermem is not loaded")) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "bar1_exhausted (1 line)")) << r.out;
}

TEST(AnalyzeGdsCli, DirectPathAndCleanOpenAreOk) {
  auto trace = run_gdrcheck({"analyze", cufile("gds-nvidia-fs-78-trace-nvfs-path-cut.txt")});
  EXPECT_EQ(trace.exit_code, 0) << trace.out;
  EXPECT_TRUE(unwrapped_has(trace.out, "OK: the direct path was taken (nvidia-fs I/O with O_DIRECT (line 9)"))
      << trace.out;
  auto head = run_gdrcheck({"analyze", cufile("abci-gds-1.11-info-head.txt")});
  EXPECT_EQ(head.exit_code, 0) << head.out;
  EXPECT_TRUE(unwrapped_has(head.out,
                            "OK: cuFile opened nvidia-fs 2.22 (line 5) with no compat mode or error in the log; it "
                            "shows no I/O, so the direct path itself is not proven"))
      << head.out;
  EXPECT_TRUE(unwrapped_has(head.out, "CUFILE_LOGGING_LEVEL=DEBUG")) << head.out;
}

TEST(AnalyzeGdsCli, LogWithNothingAboutThePathIsUnknown) {
  std::string line =
      " 27-06-2023 16:20:53:48 [pid=41337 tid=41337] NOTICE  cufio-fs:408 dumping volume attributes: "
      "DEVNAME:/dev/nvme1n1,ID_FS_TYPE:ext4\n";
  auto r = run_gdrcheck({"analyze", scratch_file("notice.log", line)});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "UNKNOWN: 1 cuFile log lines, none about the direct path")) << r.out;
}

TEST(AnalyzeGdsCli, CufileLogJson) {
  auto r = run_gdrcheck({"analyze", "--json", cufile("gds-nvidia-fs-31-rocky-mixed-cut.txt")});
  json j = json::parse(r.out);
  const json& a = j["artifacts"][0];
  EXPECT_EQ(a["kind"], "cufile-log");
  EXPECT_EQ(a["status"], "CRITICAL");
  EXPECT_EQ(a["log_lines"], 10);
  EXPECT_EQ(a["levels"]["ERROR"], 7);
  EXPECT_EQ(a["processes"], 7);
  EXPECT_EQ(a["first_time"], "02-11-2023 11:42:01:926");
  EXPECT_TRUE(a["gds_version"].is_null());
  ASSERT_EQ(a["findings"].size(), 4u);
  EXPECT_EQ(a["findings"][0]["code"], "compat_mode");
  EXPECT_EQ(a["findings"][0]["lines"], json::array({2, 5}));
  EXPECT_EQ(a["findings"][1]["code"], "driver_open_failed");
  EXPECT_EQ(a["findings"][1]["quotes"][0],
            "05-11-2023 15:01:56:615 [pid=38031 tid=38031] ERROR  cufio:480 cuInit Failed, error CUDA_ERROR_NO_DEVICE");
}

// Text from the log reaches the terminal escaped: an escape sequence in a
// message cannot recolour or move the cursor.
TEST(AnalyzeGdsCli, HostileTextIsQuotedEscaped) {
  std::string log =
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] NOTICE  cufio-drv:1 running in compatible mode \x1b]0;pwned\x07\x1b[31m\n";
  auto r = run_gdrcheck({"analyze", scratch_file("evil.log", log)});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_TRUE(unwrapped_has(r.out, "\\x1b]0;pwned\\x07\\x1b[31m")) << r.out;
  std::string out = "IoType: READ XferType: GPUD\x1b[2J Throughput: 1 GiB/sec, Avg_Latency: 1 usecs\n";
  auto g = run_gdrcheck({"analyze", scratch_file("evil.txt", out)});
  EXPECT_EQ(g.out.find('\x1b'), std::string::npos) << g.out;
}

TEST(AnalyzeGdsCli, KindNamesInUsage) {
  auto r = run_gdrcheck({"analyze", "--kind", "pdf", cufile("abci-gds-1.11-info-head.txt")});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_TRUE(unwrapped_has(r.err, "gdsio or cufile-log")) << r.err;
  auto forced = run_gdrcheck({"analyze", "--kind", "cufile-log", gdsio("keichi-gds-1.15-rocky-3-runs.txt")});
  EXPECT_EQ(forced.exit_code, 3) << forced.out;
  EXPECT_TRUE(unwrapped_has(forced.out, "no cuFile log line")) << forced.out;
}

}  // namespace
}  // namespace gdrcheck

// Tests for the cufile.log reader. The files in tests/data/gds/cufile-log
// were posted publicly (tests/data/gds/PROVENANCE.md); the counts and line
// numbers checked here were read off each file by eye.
#include "evidence/cufile_log.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

std::string cufile_log_text(const std::string& name) {
  return testing::read_test_data("gds/cufile-log/" + name);
}

CufileLogReport load_cufile_log(const std::string& name) {
  return parse_cufile_log(cufile_log_text(name));
}

const std::vector<std::string> kRealLogs = {
    "onizuka-gds-1.0-compatible-mode.txt",     "abci-gds-1.11-info-head.txt",
    "gds-nvidia-fs-31-rocky-mixed-cut.txt",    "gds-nvidia-fs-62-udev-dm-cut.txt",
    "gds-nvidia-fs-4-peermem-bar1-cut.txt",    "aikitoria-17-nvfs-map-ioctl-cut.txt",
    "tinygrad-51-nvme-not-registered-cut.txt", "gds-nvidia-fs-78-trace-nvfs-path-cut.txt",
    "gds-nvidia-fs-19-bufregister-cut.txt"};

// (code, count, first line) of each finding, in order.
struct Seen {
  std::string code;
  std::size_t count, first;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> seen(const CufileLogReport& r) {
  std::vector<Seen> out;
  for (const auto& f : r.findings) out.push_back({cufile_fact_code(f.fact), f.count, f.lines.front()});
  return out;
}

void PrintTo(const Seen& s, std::ostream* os) {
  *os << s.code << " x" << s.count << " @" << s.first;
}

// ---------------------------------------------------------- real logs

TEST(CufileLogReal, Gds10CompatibleModeOneLine) {
  CufileLogReport r = load_cufile_log("onizuka-gds-1.0-compatible-mode.txt");
  EXPECT_EQ(r.lines, 1u);
  EXPECT_EQ(r.log_lines, 1u);
  EXPECT_EQ(r.levels.at("NOTICE"), 1u);
  EXPECT_EQ(r.processes, 1u);
  EXPECT_EQ(r.first_time, "16-07-2021 08:29:17:433");
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"compat_mode", 1, 1}}));
  EXPECT_EQ(r.findings[0].quotes[0],
            "16-07-2021 08:29:17:433 [pid=2363 tid=2363] NOTICE  cufio-drv:625 running in compatible mode");
}

TEST(CufileLogReal, Abci111InfoHeadAfterAPrompt) {
  CufileLogReport r = load_cufile_log("abci-gds-1.11-info-head.txt");
  EXPECT_EQ(r.lines, 10u);
  EXPECT_EQ(r.log_lines, 9u);
  EXPECT_EQ(r.levels.at("INFO"), 9u);
  EXPECT_EQ(r.gds_version, "1.11.1.6");
  EXPECT_EQ(r.nvidia_fs_version, "2.22");
  EXPECT_EQ(r.libcufile_version, "2.12");
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"nvidia_fs_opened", 3, 5}}));
}

TEST(CufileLogReal, RockyMixedRunsInitFailureAndCompat) {
  CufileLogReport r = load_cufile_log("gds-nvidia-fs-31-rocky-mixed-cut.txt");
  EXPECT_EQ(r.log_lines, 10u);
  EXPECT_EQ(r.levels.at("NOTICE"), 3u);
  EXPECT_EQ(r.levels.at("ERROR"), 7u);
  EXPECT_EQ(r.processes, 7u);
  EXPECT_EQ(r.first_time, "02-11-2023 11:42:01:926");
  EXPECT_EQ(r.last_time, "07-11-2023 16:58:54:421");
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"compat_mode", 2, 2},
                                        {"driver_open_failed", 2, 3},
                                        {"nvidia_fs_not_loaded", 3, 6},
                                        {"storage_driver_not_registered", 2, 9}}));
}

TEST(CufileLogReal, UdevAndDeviceMapper) {
  CufileLogReport r = load_cufile_log("gds-nvidia-fs-62-udev-dm-cut.txt");
  EXPECT_EQ(r.log_lines, 10u);  // the first line lost its leading space
  EXPECT_EQ(r.processes, 2u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"device_attributes_unreadable", 5, 1},
                                        {"compat_mode", 1, 3},
                                        {"handle_registration_failed", 2, 7},
                                        {"block_device_unsupported", 1, 9},
                                        {"mount_table", 1, 10}}));
}

TEST(CufileLogReal, PeerMemoryRdmaPairingAndBar1) {
  CufileLogReport r = load_cufile_log("gds-nvidia-fs-4-peermem-bar1-cut.txt");
  EXPECT_EQ(r.lines, 10u);
  EXPECT_EQ(r.log_lines, 9u);
  EXPECT_EQ(r.processes, 4u);  // tid 1503329 is a thread of pid 1502618
  EXPECT_EQ(seen(r),
            (std::vector<Seen>{{"peer_memory_missing", 4, 2}, {"rdma_error", 4, 4}, {"bar1_exhausted", 1, 10}}));
}

TEST(CufileLogReal, NvidiaFsMapIoctlFailed) {
  CufileLogReport r = load_cufile_log("aikitoria-17-nvfs-map-ioctl-cut.txt");
  EXPECT_EQ(r.lines, 7u);
  EXPECT_EQ(r.log_lines, 4u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"buffer_registration_failed", 4, 3}}));
  EXPECT_EQ(r.findings[0].lines, (std::vector<std::size_t>{3, 4, 6, 7}));
}

TEST(CufileLogReal, NvmeNotRegisteredAndFileRefused) {
  CufileLogReport r = load_cufile_log("tinygrad-51-nvme-not-registered-cut.txt");
  EXPECT_EQ(r.log_lines, 7u);
  EXPECT_EQ(r.processes, 2u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"storage_driver_not_registered", 4, 1},
                                        {"handle_registration_failed", 1, 4},
                                        {"not_supported_on_file", 1, 5}}));
}

TEST(CufileLogReal, TraceShowsTheNvfsPath) {
  CufileLogReport r = load_cufile_log("gds-nvidia-fs-78-trace-nvfs-path-cut.txt");
  EXPECT_EQ(r.log_lines, 10u);
  EXPECT_EQ(r.levels.at("TRACE"), 7u);
  EXPECT_EQ(r.levels.at("DEBUG"), 3u);
  EXPECT_EQ(r.processes, 1u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"direct_path_taken", 3, 9}}));
}

TEST(CufileLogReal, BufferRegistrationAndDeregistration) {
  CufileLogReport r = load_cufile_log("gds-nvidia-fs-19-bufregister-cut.txt");
  EXPECT_EQ(r.log_lines, 8u);  // "#cufile_sample_001" and the fence are not log lines
  EXPECT_EQ(seen(r),
            (std::vector<Seen>{
                {"buffer_registration_failed", 3, 3}, {"other_error", 2, 6}, {"storage_driver_not_registered", 2, 9}}));
}

TEST(CufileLogReal, EveryRealFileIsDetected) {
  for (const auto& name : kRealLogs) EXPECT_TRUE(looks_like_cufile_log(cufile_log_text(name))) << name;
}

// ------------------------------------------------------ mangled copies

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string collapsed(const std::string& text) {
  std::string out;
  for (char c : text)
    if (!((c == ' ' || c == '\t') && !out.empty() && out.back() == ' ')) out += c == '\t' ? ' ' : c;
  return out;
}

TEST(CufileLogMangled, CollapsedCrlfPrefixedReadTheSame) {
  for (const auto& name : kRealLogs) {
    std::string text = cufile_log_text(name);
    CufileLogReport original = parse_cufile_log(text);
    std::string mangled;
    for (const auto& l : lines_of(collapsed(text))) mangled += "node07: " + l + "\r\n";
    CufileLogReport m = parse_cufile_log(mangled);
    EXPECT_EQ(seen(m), seen(original)) << name;
    EXPECT_EQ(m.levels, original.levels) << name;
    EXPECT_EQ(m.processes, original.processes) << name;
    EXPECT_EQ(m.first_time, original.first_time) << name;
    EXPECT_TRUE(looks_like_cufile_log(mangled)) << name;
  }
}

TEST(CufileLogMangled, CutFirstAndLastLines) {
  std::vector<std::string> ls = lines_of(cufile_log_text("gds-nvidia-fs-31-rocky-mixed-cut.txt"));
  std::string text = ls[0].substr(40) + "\n";  // starts inside the first line
  for (std::size_t i = 1; i + 1 < ls.size(); ++i) text += ls[i] + "\n";
  text += ls.back().substr(0, 30);  // ends inside the last, no newline
  CufileLogReport r = parse_cufile_log(text);
  EXPECT_EQ(r.log_lines, 8u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"compat_mode", 2, 2},
                                        {"driver_open_failed", 2, 3},
                                        {"nvidia_fs_not_loaded", 3, 6},
                                        {"storage_driver_not_registered", 1, 9}}));
}

// ------------------------------------------------------------- quirks

TEST(CufileLogQuirks, BareQuotedLinesAndLevels) {
  CufileLogReport r = parse_cufile_log(
      "ERROR  cufio-fs:79 mount option not found in mount table data device: /dev/nvme0n1\n"
      "NOTICE cufio:293 cuFileHandleRegister GDS not supported or disabled by config, using cuFile posix "
      "read/write with compat mode enabled\n"
      "ERROR something that is not a cuFile line\n"
      "WARNING cufio:12 properties.force_compat_mode is set\n");
  EXPECT_EQ(r.log_lines, 3u);
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"mount_table", 1, 1}, {"compat_mode", 1, 2}, {"compat_forced", 1, 4}}));
  EXPECT_EQ(r.levels.at("WARN"), 1u);
  EXPECT_TRUE(looks_like_cufile_log("ERROR  cufio-fs:79 a\nNOTICE cufio:1 b\n"));
  EXPECT_FALSE(looks_like_cufile_log("ERROR  cufio-fs:79 one bare line is not enough\n"));
}

TEST(CufileLogQuirks, MismatchODirectAndOpenFailures) {
  CufileLogReport r = parse_cufile_log(
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] ERROR  cufio:1 CUDA driver and runtime version mismatch\n"
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] ERROR  cufio:2 file not opened with O_DIRECT\n"
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] ERROR  cufio-drv:3 nvidia-fs device open failed\n"
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] ERROR  cufio:4 cuFileDriverOpen error 5010\n"
      " 01-01-2024 00:00:00:1 [pid=1 tid=1] DEBUG  cufio:5 O_DIRECT set\n");
  EXPECT_EQ(seen(r), (std::vector<Seen>{{"version_mismatch", 1, 1},
                                        {"o_direct", 1, 2},
                                        {"nvidia_fs_open_failed", 1, 3},
                                        {"driver_open_failed", 1, 4}}));
}

TEST(CufileLogQuirks, EveryFactHasACodeAndMeaning) {
  for (int f = 0; f <= static_cast<int>(CufileFact::NvidiaFsOpened); ++f) {
    EXPECT_STRNE(cufile_fact_code(static_cast<CufileFact>(f)), "unknown");
    EXPECT_STRNE(cufile_fact_meaning(static_cast<CufileFact>(f)), "");
  }
}

// ------------------------------------------------------ garbage, limits

TEST(CufileLogGarbage, NotALog) {
  EXPECT_FALSE(looks_like_cufile_log(""));
  EXPECT_FALSE(looks_like_cufile_log("IoType: READ XferType: GPUD Throughput: 1 GiB/sec\n"));
  EXPECT_FALSE(looks_like_cufile_log(" GDS release version: 1.13.0.11\n nvidia_fs version:  2.17\n"));
  CufileLogReport r = parse_cufile_log("hello\n");
  EXPECT_EQ(r.log_lines, 0u);
  ASSERT_EQ(r.notes.size(), 1u);
}

TEST(CufileLogGarbage, HostileValuesAndCaps) {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text +=
        " 01-01-2024 00:00:00:1 [pid=" + std::to_string(i) + " tid=1] ERROR  cufio:1 boom " + std::to_string(i) + "\n";
  text += "[pid=99999999999999999999999 tid=x] ERROR  cufio:1 huge pid\n";
  text += "[pid=1 " + std::string(100000, 'y') + "\n";
  text += std::string(50000, ' ') + "[pid=2 tid=2] ERROR  " + std::string(9000, 'z') + ":1 long\n";
  CufileLogReport r = parse_cufile_log(text);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].count, 20001u);
  EXPECT_LE(r.findings[0].quotes.size(), 5u);
  for (const auto& q : r.findings[0].quotes) EXPECT_LE(q.size(), 300u);
  EXPECT_LE(r.processes, 4096u);
}

TEST(CufileLogGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(11);
  std::string alphabet = " [pid=1 tid=2] ERROR NOTICE cufio-fs:12 compat mode nvidia-fs not loaded\n\x1b\xff";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 3000; ++i) text += alphabet[rng() % alphabet.size()];
    CufileLogReport r = parse_cufile_log(text);
    EXPECT_LE(r.findings.size(), 20u);
    looks_like_cufile_log(text);
  }
}

}  // namespace
}  // namespace gdrcheck

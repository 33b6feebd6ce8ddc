// Tests for the gdsio output reader. The files in tests/data/gds/gdsio were
// posted publicly (tests/data/gds/PROVENANCE.md); each value checked here
// was read off the file by eye. The mangled copies are made here, the way
// pasting mangles text.
#include "evidence/gdsio_output.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

std::string gdsio_text(const std::string& name) {
  return testing::read_test_data("gds/gdsio/" + name);
}

const std::vector<std::string> kRealOutputs = {
    "onizuka-beta-0.9-result.txt",      "onizuka-gds-1.0-p1000-12-runs.txt",       "onizuka-gds-1.1-vm-p400.txt",
    "keichi-gds-1.15-rocky-3-runs.txt", "gds-nvidia-fs-30-vast-nfs-fragments.txt", "gds-nvidia-fs-57-io-failed.txt"};

std::vector<std::string> output_lines(const std::string& text) {
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

std::string joined(const std::vector<std::string>& lines, const std::string& eol = "\n") {
  std::string out;
  for (const auto& l : lines) out += l + eol;
  return out;
}

// Every run of spaces and tabs becomes one space, as chat and issue
// trackers do.
std::string blanks_collapsed(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      if (!space) out += ' ';
      space = true;
    } else {
      out += c;
      space = false;
    }
  }
  return out;
}

std::string prefixed(const std::string& text, const std::string& prefix) {
  std::vector<std::string> ls = output_lines(text);
  for (auto& l : ls) l = prefix + l;
  return joined(ls);
}

// ---------------------------------------------------------- real outputs

TEST(GdsioReal, OnizukaBetaTwelveRunsWithCommands) {
  GdsioReport r = parse_gdsio_output(gdsio_text("onizuka-beta-0.9-result.txt"));
  ASSERT_EQ(r.runs.size(), 12u);
  EXPECT_EQ(r.commands, 12u);  // gdsio_verify is not gdsio
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(r.notes.empty()) << r.notes[0];
  const GdsioRun& first = r.runs[0];
  EXPECT_EQ(first.line, 43u);
  EXPECT_EQ(first.io_type, "READ");
  EXPECT_EQ(first.xfer_type, "CPUONLY");
  EXPECT_FALSE(first.xfer_from_command);
  EXPECT_EQ(first.threads, 1);
  EXPECT_EQ(first.dataset_kib, 14655488u);
  EXPECT_EQ(first.requested_kib, 1048576u);
  EXPECT_EQ(first.io_size, "1024(KiB)");
  EXPECT_EQ(first.io_size_kib, 1024u);
  EXPECT_DOUBLE_EQ(*first.throughput_gib_s, 1.368340);
  EXPECT_EQ(first.throughput_unit, "GiB/sec");
  EXPECT_DOUBLE_EQ(*first.avg_latency_us, 713.614380);
  EXPECT_EQ(first.ops, 14312u);
  EXPECT_DOUBLE_EQ(*first.total_time_s, 10.214245);
  EXPECT_EQ(first.command, "$ gdsio -f /mnt/test1G -d 0 -n 0 -w 1 -s 1G -x 1 -I 0 -T 10");
  int gpud = 0, cpu_gpu = 0, cpuonly = 0;
  for (const auto& run : r.runs) {
    gpud += run.xfer_type == "GPUD";
    cpu_gpu += run.xfer_type == "CPU_GPU";
    cpuonly += run.xfer_type == "CPUONLY";
  }
  EXPECT_EQ(gpud, 4);
  EXPECT_EQ(cpu_gpu, 4);
  EXPECT_EQ(cpuonly, 4);
  const GdsioRun& last = r.runs[11];
  EXPECT_EQ(last.line, 101u);
  EXPECT_EQ(last.io_type, "RANDWRITE");
  EXPECT_EQ(last.xfer_type, "GPUD");
  EXPECT_DOUBLE_EQ(*last.throughput_gib_s, 0.918591);
  EXPECT_EQ(last.dataset_kib, 19898368u);
  EXPECT_EQ(last.ops, 19432u);
}

TEST(GdsioReal, OnizukaGds10SectionElevenTwelveRuns) {
  GdsioReport r = parse_gdsio_output(gdsio_text("onizuka-gds-1.0-p1000-12-runs.txt"));
  ASSERT_EQ(r.runs.size(), 12u);
  EXPECT_EQ(r.runs[0].io_type, "WRITE");
  EXPECT_EQ(r.runs[0].xfer_type, "CPUONLY");
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 1.508802);
  EXPECT_EQ(r.runs[0].io_size_kib, 4096u);
  const GdsioRun& read_gpud = r.runs[5];
  EXPECT_EQ(read_gpud.line, 33u);
  EXPECT_EQ(read_gpud.io_type, "READ");
  EXPECT_EQ(read_gpud.xfer_type, "GPUD");
  EXPECT_DOUBLE_EQ(*read_gpud.throughput_gib_s, 1.839722);
  EXPECT_DOUBLE_EQ(*read_gpud.avg_latency_us, 132.699797);
  EXPECT_EQ(read_gpud.dataset_kib, 18933760u);
  EXPECT_EQ(r.runs[11].io_size_kib, 8192u);
  EXPECT_DOUBLE_EQ(*r.runs[11].total_time_s, 11.624610);
  EXPECT_TRUE(r.notes.empty());
}

TEST(GdsioReal, OnizukaGds11VmGpudAndCpuGpu) {
  GdsioReport r = parse_gdsio_output(gdsio_text("onizuka-gds-1.1-vm-p400.txt"));
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].line, 6u);
  EXPECT_EQ(r.runs[0].xfer_type, "GPUD");
  EXPECT_EQ(r.runs[0].dataset_kib, 16117760u);
  EXPECT_EQ(r.runs[0].requested_kib, 10485760u);
  EXPECT_EQ(r.runs[0].io_size_kib, 256u);
  EXPECT_EQ(r.runs[0].ops, 62960u);
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 1.564272);
  EXPECT_EQ(r.runs[1].xfer_type, "CPU_GPU");
  EXPECT_DOUBLE_EQ(*r.runs[1].throughput_gib_s, 1.428755);
  EXPECT_DOUBLE_EQ(*r.runs[1].avg_latency_us, 170.763581);
}

TEST(GdsioReal, KeichiGds115EightThreads) {
  GdsioReport r = parse_gdsio_output(gdsio_text("keichi-gds-1.15-rocky-3-runs.txt"));
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_EQ(r.commands, 3u);
  for (const auto& run : r.runs) {
    EXPECT_EQ(run.threads, 8);
    EXPECT_EQ(run.io_type, "READ");
    EXPECT_EQ(run.requested_kib, 8388608u);
  }
  EXPECT_EQ(r.runs[0].xfer_type, "GPUD");
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 6.816723);
  EXPECT_EQ(r.runs[0].dataset_kib, 8363008u);
  EXPECT_EQ(r.runs[1].xfer_type, "CPUONLY");
  EXPECT_DOUBLE_EQ(*r.runs[1].throughput_gib_s, 6.844410);
  EXPECT_EQ(r.runs[2].xfer_type, "CPU_GPU");
  EXPECT_EQ(r.runs[2].ops, 8172u);
  EXPECT_EQ(r.runs[2].command,
            "/usr/local/cuda/gds/tools/gdsio -D /scratch/keichi/gdsio -w 8 -d 0 -I 0 -x 2 -s 1G -i 1M");
}

// Only "Throughput: ..., Avg_Latency: ..." was pasted, after inline commands.
TEST(GdsioReal, VastFragmentsTakeTheTransferTypeFromTheCommand) {
  GdsioReport r = parse_gdsio_output(gdsio_text("gds-nvidia-fs-30-vast-nfs-fragments.txt"));
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_EQ(r.commands, 2u);  // "switching -X <xfer_type> 2" is prose, not a command
  EXPECT_EQ(r.runs[0].xfer_type, "GPUD");
  EXPECT_TRUE(r.runs[0].xfer_from_command);
  EXPECT_EQ(r.runs[0].io_type, "");  // "-I 1 ... -I 1M": the last -I is not a type gdsio takes
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 2.308903);
  EXPECT_DOUBLE_EQ(*r.runs[0].avg_latency_us, 81215.056568);
  EXPECT_FALSE(r.runs[0].ops.has_value());
  EXPECT_EQ(r.runs[1].xfer_type, "GPUD");
  EXPECT_DOUBLE_EQ(*r.runs[1].throughput_gib_s, 6.885191);
  // The third fragment has no command of its own: never credited with the read test's -x 0.
  EXPECT_EQ(r.runs[2].xfer_type, "");
  EXPECT_DOUBLE_EQ(*r.runs[2].throughput_gib_s, 20.600775);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("line 10: the transfer type is not shown"), std::string::npos) << r.notes[0];
}

TEST(GdsioReal, IoFailedLinesAreErrors) {
  GdsioReport r = parse_gdsio_output(gdsio_text("gds-nvidia-fs-57-io-failed.txt"));
  EXPECT_TRUE(r.runs.empty());
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].line, 3u);
  EXPECT_EQ(r.errors[0].text, "write io failed of type 1 size: 16777216 , ret: 0");
  EXPECT_EQ(r.errors[2].text, "Error: IO failed stopping traffic, fd :274 ret:-5 errno :22");
  EXPECT_EQ(r.errors[3].line, 6u);
}

TEST(GdsioReal, EveryRealFileIsDetected) {
  for (const auto& name : kRealOutputs) EXPECT_TRUE(looks_like_gdsio_output(gdsio_text(name))) << name;
}

// ------------------------------------------------------ mangled copies

void expect_same_runs(const GdsioReport& a, const GdsioReport& b, const std::string& what) {
  ASSERT_EQ(a.runs.size(), b.runs.size()) << what;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(a.runs[i].xfer_type, b.runs[i].xfer_type) << what << " run " << i;
    EXPECT_EQ(a.runs[i].io_type, b.runs[i].io_type) << what << " run " << i;
    EXPECT_EQ(a.runs[i].throughput_gib_s, b.runs[i].throughput_gib_s) << what << " run " << i;
    EXPECT_EQ(a.runs[i].avg_latency_us, b.runs[i].avg_latency_us) << what << " run " << i;
    EXPECT_EQ(a.runs[i].ops, b.runs[i].ops) << what << " run " << i;
    EXPECT_EQ(a.runs[i].dataset_kib, b.runs[i].dataset_kib) << what << " run " << i;
  }
  EXPECT_EQ(a.errors.size(), b.errors.size()) << what;
}

TEST(GdsioMangled, CollapsedCrlfAndPrefixedReadTheSame) {
  for (const auto& name : kRealOutputs) {
    std::string text = gdsio_text(name);
    GdsioReport original = parse_gdsio_output(text);
    expect_same_runs(original, parse_gdsio_output(blanks_collapsed(text)), name + " collapsed");
    expect_same_runs(original, parse_gdsio_output(joined(output_lines(text), "\r\n")), name + " CRLF");
    expect_same_runs(original, parse_gdsio_output(prefixed(text, "[1,0]<stdout>: ")), name + " prefixed");
    expect_same_runs(original, parse_gdsio_output(prefixed(text, "> ")), name + " quoted");
    EXPECT_TRUE(looks_like_gdsio_output(blanks_collapsed(joined(output_lines(text), "\r\n")))) << name;
  }
}

TEST(GdsioMangled, FirstAndLastLinesCut) {
  std::vector<std::string> ls = output_lines(gdsio_text("onizuka-gds-1.1-vm-p400.txt"));
  // The GPUD result line loses its start, the CPU_GPU one its end.
  ls[5] = ls[5].substr(ls[5].find("(KiB) IOSize"));
  ls[10] = ls[10].substr(0, ls[10].find(" Throughput"));
  GdsioReport r = parse_gdsio_output(joined(std::vector<std::string>(ls.begin() + 4, ls.begin() + 11)));
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].xfer_type, "GPUD");  // from the command's -x 0
  EXPECT_TRUE(r.runs[0].xfer_from_command);
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 1.564272);
  EXPECT_EQ(r.runs[1].xfer_type, "CPU_GPU");
  EXPECT_FALSE(r.runs[1].throughput_gib_s.has_value());
  bool cut_noted = false;
  for (const auto& n : r.notes) cut_noted |= n.find("without its throughput") != std::string::npos;
  EXPECT_TRUE(cut_noted);
}

TEST(GdsioMangled, ResultWrappedOverTwoLines) {
  std::string line = output_lines(gdsio_text("keichi-gds-1.15-rocky-3-runs.txt"))[4];
  std::size_t at = line.find("IOSize:");
  GdsioReport r = parse_gdsio_output(line.substr(0, at) + "\n" + line.substr(at) + "\n");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].xfer_type, "GPUD");
  EXPECT_EQ(r.runs[0].io_size_kib, 1024u);
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 6.816723);
  EXPECT_EQ(r.runs[0].line, 1u);
  EXPECT_TRUE(r.notes.empty());
}

// ------------------------------------------------------------- quirks

TEST(GdsioQuirks, FullWidthCommaAndMarkdownBold) {
  GdsioReport r = parse_gdsio_output(
      "IoType: READ XferType: CPU_GPU Threads: 4 DataSetSize: 10142720/10240000(KiB) IOSize: 1024(KiB) "
      "Throughput: 4.312804 GiB/sec\xEF\xBC\x8C"
      "Avg_Latency: 905.410136 usecs ops: 9905 total_time 2.242822 secs\n"
      "**IoType: WRITE XferType: GPUD Threads: 2 Throughput: 1 GiB/sec, Avg_Latency: 3 usecs**\n");
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 4.312804);
  EXPECT_DOUBLE_EQ(*r.runs[0].avg_latency_us, 905.410136);
  EXPECT_EQ(r.runs[0].ops, 9905u);
  EXPECT_EQ(r.runs[1].xfer_type, "GPUD");
  EXPECT_DOUBLE_EQ(*r.runs[1].avg_latency_us, 3.0);
}

TEST(GdsioQuirks, BatchRunWithIoDepthAndCutIoType) {
  GdsioReport r = parse_gdsio_output(
      "# WRITE XferType: GPU_BATCH Threads: 1 IoDepth: 8 DataSetSize: 524206080/8388608(KiB) IOSize: 16384(KiB) "
      "Throughput: 1.664916 GiB/sec, Avg_Latency: 9383.000000 usecs ops: 31995 total_time 300.268538 secs\n");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].xfer_type, "GPU_BATCH");
  EXPECT_EQ(gdsio_xfer_class(r.runs[0].xfer_type), GdsioXferClass::Direct);
  EXPECT_EQ(r.runs[0].io_depth, 8);
  EXPECT_EQ(r.runs[0].io_type, "");
}

TEST(GdsioQuirks, UnitsAreNormalised) {
  GdsioReport r = parse_gdsio_output(
      "XferType: GPUD Throughput: 512 MiB/sec, Avg_Latency: 2 msecs\n"
      "XferType: GPUD Throughput: 5 furlongs, Avg_Latency: 1 usecs\n"
      "XferType: GPUD Throughput:3.5GiB/sec Avg_Latency: 1 usecs\n");
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_DOUBLE_EQ(*r.runs[0].throughput_gib_s, 0.5);
  EXPECT_DOUBLE_EQ(*r.runs[0].avg_latency_us, 2000.0);
  EXPECT_FALSE(r.runs[1].throughput_gib_s.has_value());
  EXPECT_EQ(r.runs[1].throughput_unit, "furlongs");
  EXPECT_DOUBLE_EQ(*r.runs[2].throughput_gib_s, 3.5);
  EXPECT_EQ(r.runs[2].throughput_unit, "GiB/sec");
}

TEST(GdsioQuirks, CommandAndResultDisagree) {
  GdsioReport r = parse_gdsio_output(
      "$ gdsio -f /mnt/f -d 0 -w 1 -s 1G -x0 -I 0\n"
      "IoType: READ XferType: CPU_GPU Threads: 1 Throughput: 1 GiB/sec, Avg_Latency: 1 usecs\n");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].xfer_type, "CPU_GPU");  // what the result says wins
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("asks for GPUD"), std::string::npos);
}

TEST(GdsioQuirks, XferNamesAndClasses) {
  EXPECT_EQ(gdsio_xfer_name(0), "GPUD");
  EXPECT_EQ(gdsio_xfer_name(2), "CPU_GPU");
  EXPECT_EQ(gdsio_xfer_name(6), "GPU_BATCH");
  EXPECT_EQ(gdsio_xfer_name(8), "");
  EXPECT_EQ(gdsio_xfer_name(-1), "");
  EXPECT_EQ(gdsio_xfer_class("CPUONLY"), GdsioXferClass::CpuStaged);
  EXPECT_EQ(gdsio_xfer_class("CPU_CACHED_GPU"), GdsioXferClass::CpuStaged);
  EXPECT_EQ(gdsio_xfer_class("GPUD"), GdsioXferClass::Direct);
  EXPECT_EQ(gdsio_xfer_class("WHATEVER"), GdsioXferClass::Unknown);
  EXPECT_STRNE(gdsio_xfer_meaning("CPU_GPU"), "");
}

// ------------------------------------------------------ garbage, limits

TEST(GdsioGarbage, NotGdsio) {
  EXPECT_FALSE(looks_like_gdsio_output(""));
  EXPECT_FALSE(looks_like_gdsio_output("#  Avg bus bandwidth    : 37.7321\n"));
  EXPECT_FALSE(looks_like_gdsio_output("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"));
  EXPECT_FALSE(looks_like_gdsio_output("the throughput was great\nThroughput: high\n"));
  GdsioReport r = parse_gdsio_output("nothing here\n");
  EXPECT_TRUE(r.runs.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("no gdsio result"), std::string::npos);
}

TEST(GdsioGarbage, OverflowingNumbersAreUnknown) {
  GdsioReport r = parse_gdsio_output(
      "IoType: READ XferType: GPUD Threads: 99999999999999999999999 IoDepth: -x DataSetSize: "
      "99999999999999999999999/1(KiB) IOSize: 999999999999999999999(KiB) Throughput: 1e999 GiB/sec, Avg_Latency: "
      "-5 usecs ops: 184467440737095516160 total_time nan secs\n");
  ASSERT_EQ(r.runs.size(), 1u);
  const GdsioRun& x = r.runs[0];
  EXPECT_FALSE(x.threads.has_value());
  EXPECT_FALSE(x.io_depth.has_value());
  EXPECT_FALSE(x.dataset_kib.has_value());
  EXPECT_EQ(x.requested_kib, 1u);
  EXPECT_FALSE(x.io_size_kib.has_value());
  EXPECT_FALSE(x.throughput_gib_s.has_value());
  EXPECT_FALSE(x.avg_latency_us.has_value());
  EXPECT_FALSE(x.ops.has_value());
  EXPECT_FALSE(x.total_time_s.has_value());
}

TEST(GdsioGarbage, CapsHold) {
  std::string text;
  for (int i = 0; i < 6000; ++i)
    text += "XferType: GPUD Throughput: 1 GiB/sec, Avg_Latency: 1 usecs\nError: IO failed\n";
  text += std::string(100000, 'X') + " XferType: GPUD\n";
  GdsioReport r = parse_gdsio_output(text);
  EXPECT_LE(r.runs.size(), 4096u);
  EXPECT_LE(r.errors.size(), 256u);
  EXPECT_LE(r.notes.size(), 64u);
}

TEST(GdsioGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  std::string alphabet =
      "IoType: XferType: GPUD Throughput: 1.5 GiB/sec, Avg_Latency: ops: gdsio -x 0 -I\n\xEF\xBC\x8C`*";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 3000; ++i) text += alphabet[rng() % alphabet.size()];
    GdsioReport r = parse_gdsio_output(text);
    EXPECT_LE(r.runs.size(), 4096u);
    looks_like_gdsio_output(text);
  }
}

}  // namespace
}  // namespace gdrcheck

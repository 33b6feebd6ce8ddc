// Inputs of analyze as lines: NUL bytes inside lines and a crash's NUL
// padding are taken out and counted, the text around them is read as if
// they were not there; input that is not text stays refused.
#include "analyze/line_source.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <vector>

#include "analyze/artifact.h"
#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

using testing::scratch_file;

const std::string kGdrdmaLog = "nccl-logs/nccl-1189-h20-ib-gdrdma.log";

// A few NULs inside lines (a copy through a tool that left them) and 3 MB
// of NUL padding after the last line (a node that crashed mid-write).
std::string with_nuls(const std::string& text) {
  std::string out;
  int line = 0;
  for (char c : text) {
    out += c;
    if (c == '\n' && ++line % 7 == 0) out += std::string(3, '\0');
  }
  return out + std::string(3u << 20, '\0');
}

TEST(LineSource, NulBytesAreSkippedAndTheLogReadAsWithoutThem) {
  std::string text = testing::read_test_data(kGdrdmaLog);
  Artifact clean = analyze_file(scratch_file("clean.log", text));
  Artifact padded = analyze_file(scratch_file("padded.log", with_nuls(text)));
  ASSERT_TRUE(padded.error.empty()) << padded.error;
  EXPECT_EQ(padded.kind, clean.kind);
  EXPECT_EQ(padded.status, clean.status);
  EXPECT_EQ(padded.verdict, clean.verdict);
  bool noted = false;
  for (const auto& n : padded.notes) noted |= n.find("NUL bytes skipped") != std::string::npos;
  EXPECT_TRUE(noted);

  LineSource src(scratch_file("count.log", with_nuls(text)));
  std::vector<std::string> lines;
  src.each_line([&](std::string_view l) { lines.emplace_back(l); });
  for (const auto& l : lines) EXPECT_EQ(l.find('\0'), std::string::npos);
  EXPECT_GE(src.nul_bytes(), 3u << 20);
}

TEST(LineSource, GzipOfANulPaddedLogToo) {
  std::string bytes = with_nuls(testing::read_test_data(kGdrdmaLog));
  std::string path = testing::scratch_dir() + "/job.log.gz";
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
  Artifact a = analyze_file(path);
  EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.kind, ArtifactKind::NcclLog);
}

TEST(LineSource, WhatIsNotTextStaysRefused) {
  EXPECT_EQ(analyze_file("/proc/self/exe").error.find("binary data"), 0u) << analyze_file("/proc/self/exe").error;
  EXPECT_EQ(analyze_file(scratch_file("zeros", std::string(1u << 20, '\0'))).error,
            "only NUL bytes, not a log or tool output");
  // Colour escapes in a log are text.
  std::string coloured = "\x1b[32mNCCL INFO\x1b[0m Bootstrap : Using eth0:10.0.0.1<0>\n";
  EXPECT_TRUE(analyze_file(scratch_file("colour.log", coloured + coloured)).error.find("binary") == std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

// `gdrcheck analyze` end to end: detection of each kind, what each proves,
// exit codes over several files, JSON schema, unreadable inputs.
#include "analyze/artifact.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::run_gdrcheck;
using testing::test_data;

const std::string kGdrLog = "nccl-logs/nccl-1189-h20-ib-gdrdma.log";
const std::string kSocketLog = "nccl-logs/nccl-1053-socket-ib-disabled-lo.log";
const std::string kTestsWithLog = "nccl-tests/eks-efa-all-reduce-mpi-tag-info.txt";

TEST(AnalyzeDetect, EachKindFromItsFirstBytes) {
  EXPECT_EQ(analyze_file(test_data(kGdrLog)).kind, ArtifactKind::NcclLog);
  EXPECT_EQ(analyze_file(test_data(kTestsWithLog)).kind, ArtifactKind::NcclTests);
  EXPECT_EQ(analyze_file(test_data("smi/stelline-esc8000a-4x6000ada-legend.txt")).kind, ArtifactKind::TopoMatrix);
  EXPECT_EQ(analyze_file(test_data("ibv/deepep-303-ibstat-ndr-400-cut.txt")).kind, ArtifactKind::Ibv);
  EXPECT_EQ(analyze_file(test_data("gdscheck/onizuka-gds-1.0.0.82-p1000.txt")).kind, ArtifactKind::Gdscheck);
}

TEST(AnalyzeVerdict, GdrLogIsOk) {
  Artifact a = analyze_file(test_data(kGdrLog));
  EXPECT_EQ(a.status, Status::Ok);
  ASSERT_TRUE(a.nccl_log);
  EXPECT_EQ(a.nccl_log->net_connections, a.nccl_log->gdr_connections);
  EXPECT_GT(a.nccl_log->net_connections, 0u);
}

TEST(AnalyzeVerdict, SocketFallbackIsCritical) {
  Artifact a = analyze_file(test_data(kSocketLog));
  EXPECT_EQ(a.status, Status::Critical);
  ASSERT_TRUE(a.nccl_log);
  EXPECT_NE(a.nccl_log->reason("socket_fallback"), nullptr);
}

TEST(AnalyzeVerdict, NcclTestsCarriesItsLog) {
  Artifact a = analyze_file(test_data(kTestsWithLog));
  ASSERT_TRUE(a.nccl_tests);
  ASSERT_TRUE(a.nccl_log);
  EXPECT_EQ(a.nccl_tests->runs.size(), 1u);
  EXPECT_EQ(a.nccl_tests->runs[0].test_name, "all_reduce_perf");
  EXPECT_EQ(a.nccl_log->net_transport, "AWS Libfabric");
  EXPECT_EQ(a.status, Status::Critical);  // 0 of 8 network connections use GDRDMA
}

TEST(AnalyzeVerdict, UnknownKindAndUnreadableFiles) {
  std::string dir = testing::scratch_dir();
  std::ofstream(dir + "/notes.txt") << "just some notes\nnothing to see\n";
  Artifact a = analyze_file(dir + "/notes.txt");
  EXPECT_EQ(a.kind, ArtifactKind::Unknown);
  EXPECT_NE(a.error.find("of no known kind"), std::string::npos);
  EXPECT_NE(analyze_file(dir + "/missing.log").error.find("not found"), std::string::npos);
  std::ofstream(dir + "/bin", std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\1",
      7);
  EXPECT_NE(analyze_file(dir + "/bin").error.find("binary"), std::string::npos);
}

TEST(AnalyzeStatus, OverallRules) {
  Artifact ok, bad, partial, unknown, broken;
  ok.status = Status::Ok;
  bad.status = Status::Critical;
  partial.status = Status::Warning;
  unknown.status = Status::Unknown;
  broken.error = "cannot be read";
  EXPECT_EQ(overall_status({ok}), Status::Ok);
  EXPECT_EQ(overall_status({ok, bad}), Status::Critical);
  EXPECT_EQ(overall_status({ok, partial}), Status::Warning);
  EXPECT_EQ(overall_status({unknown}), Status::Unknown);     // nothing proven
  EXPECT_EQ(overall_status({ok, unknown}), Status::Ok);      // everything proven is good
  EXPECT_EQ(overall_status({ok, broken}), Status::Unknown);  // an unreadable file is said
  EXPECT_EQ(overall_status({bad, broken}), Status::Critical);
}

TEST(AnalyzeCli, ExitCodesOverSeveralFiles) {
  EXPECT_EQ(run_gdrcheck({"analyze", test_data(kGdrLog)}).exit_code, 0);
  EXPECT_EQ(run_gdrcheck({"analyze", test_data(kGdrLog), test_data(kSocketLog)}).exit_code, 2);
  auto r = run_gdrcheck({"analyze", "/nonexistent.log", test_data(kGdrLog)});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("/nonexistent.log: not found"), std::string::npos);
  EXPECT_NE(r.out.find("every network connection in the log uses GDRDMA"),
            std::string::npos);  // the other file still ran
  EXPECT_EQ(run_gdrcheck({"analyze"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"analyze", "--kind", "pdf", test_data(kGdrLog)}).exit_code, 64);
}

TEST(AnalyzeCli, UnusableBandwidthFileIsNamedAndNothingIsAnalysed) {
  auto r = run_gdrcheck({"analyze", "--bandwidth-file", "/nonexistent/bw.json", test_data(kGdrLog)});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("gdrcheck analyze: /nonexistent/bw.json: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(AnalyzeCli, JsonSchema) {
  auto r = run_gdrcheck({"analyze", "--json", "--detail", test_data(kGdrLog), test_data(kTestsWithLog),
                         test_data("ibv/deepep-303-ibstat-ndr-400-cut.txt"),
                         test_data("gdscheck/onizuka-gds-1.0.0.82-p1000.txt"),
                         test_data("smi/stelline-esc8000a-4x6000ada-legend.txt")});
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "gdrcheck.analyze/1");
  ASSERT_EQ(j["artifacts"].size(), 5u);
  const json& log = j["artifacts"][0];
  EXPECT_EQ(log["kind"], "nccl-log");
  EXPECT_EQ(log["gdr"], "yes");
  for (const char* k :
       {"nccl_version", "net_transport", "net_connections", "gdr_connections", "ranks", "hosts", "reasons"})
    EXPECT_TRUE(log.contains(k)) << k;
  EXPECT_FALSE(log["connections"].empty());
  const json& tests = j["artifacts"][1];
  EXPECT_EQ(tests["kind"], "nccl-tests");
  EXPECT_EQ(tests["test"], "all_reduce_perf");
  EXPECT_TRUE(tests["max_busbw"].contains("value") && tests["max_busbw"].contains("size"));
  EXPECT_EQ(tests["nccl_log"]["net_transport"], "AWS Libfabric");
  EXPECT_EQ(j["artifacts"][2]["devices"][0]["ports"][0]["rate_gbps"], 400);
  EXPECT_EQ(j["artifacts"][3]["platform_verification"], true);
  EXPECT_EQ(j["artifacts"][4]["matrix"]["GPU0"]["NIC0"], "NODE");
}

TEST(AnalyzeCli, StandardInput) {
  auto r = run_gdrcheck({"analyze", "-"}, testing::read_test_data(kSocketLog));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("== - (nccl-log)"), std::string::npos);
}

TEST(AnalyzeCli, NicSpeedsInTextAndJson) {
  auto text = run_gdrcheck({"analyze", test_data(kSocketLog)});
  EXPECT_NE(text.out.find("NICs: NET/0 10 Gb/s (port 0, axa)"), std::string::npos) << text.out;
  json j = json::parse(run_gdrcheck({"analyze", "--json", test_data(kSocketLog)}).out);
  const json& speeds = j["artifacts"][0]["net_device_speeds"];
  ASSERT_EQ(speeds.size(), 1u);
  EXPECT_EQ(speeds[0]["name"], "NET/0");
  EXPECT_EQ(speeds[0]["port"], 0);
  EXPECT_DOUBLE_EQ(speeds[0]["speed_gbps"].get<double>(), 10.0);
  EXPECT_TRUE(speeds[0]["link_layer"].is_null());
  EXPECT_EQ(speeds[0]["host"], "axa");
  json none = json::parse(run_gdrcheck({"analyze", "--json", test_data(kGdrLog)}).out);
  EXPECT_TRUE(none["artifacts"][0]["net_device_speeds"].empty());
  EXPECT_EQ(run_gdrcheck({"analyze", test_data(kGdrLog)}).out.find("NICs:"), std::string::npos);
}

// The block reader: lines across block boundaries, CRLF, a line longer
// than the 64 KiB cut, and a last line without a newline.
TEST(AnalyzeRead, LinesAcrossBlocksAndOddEndings) {
  std::string dir = testing::scratch_dir();
  std::string conn = "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA";
  std::string text;
  std::size_t lines = 0;
  // About 9 MiB: the connection line sits across at least two 4 MiB block ends.
  while (text.size() < (9u << 20)) {
    text += "h:1:1 [0] NCCL INFO filler " + std::to_string(lines) + "\r\n";
    ++lines;
  }
  text += std::string(200000, 'x') + "\n";  // cut to 64 KiB, still one line
  text += conn + "\r\n";
  text += "h:1:1 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/0/GDRDMA";  // no newline
  lines += 3;
  std::ofstream(dir + "/big.log", std::ios::binary) << text;
  Artifact a = analyze_file(dir + "/big.log");
  ASSERT_TRUE(a.nccl_log) << a.error;
  EXPECT_EQ(a.nccl_log->lines, lines);
  EXPECT_EQ(a.nccl_log->net_connections, 2u);
  EXPECT_EQ(a.nccl_log->gdr_connections, 2u);
  ASSERT_EQ(a.nccl_log->connections.size(), 2u);
  EXPECT_EQ(a.nccl_log->connections[0].line, lines - 1);
  EXPECT_EQ(a.status, Status::Ok);
}

// Compressed logs are told by their first bytes, whatever their name.
TEST(AnalyzeCli, GzipAndZstdLogsByTheirBytes) {
  std::string text = testing::read_test_data(kGdrLog), dir = testing::scratch_dir();
  gzFile gz = gzopen((dir + "/job.txt").c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::string zs(ZSTD_compressBound(text.size()), '\0');
  zs.resize(ZSTD_compress(zs.data(), zs.size(), text.data(), text.size(), 3));
  std::ofstream(dir + "/job.log.zst") << zs;
  auto r = run_gdrcheck({"analyze", "--json", dir + "/job.txt", dir + "/job.log.zst"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["artifacts"].size(), 2u) << r.out;
  for (const auto& a : j["artifacts"]) EXPECT_EQ(a["kind"], "nccl-log") << a.dump();
  // Cut in half: the file is an error naming it, never a shorter log.
  std::ofstream(dir + "/cut.zst") << zs.substr(0, zs.size() / 2);
  auto cut = run_gdrcheck({"analyze", dir + "/cut.zst"});
  EXPECT_EQ(cut.exit_code, 3);
  EXPECT_NE(cut.err.find(dir + "/cut.zst: the zstd stream ends early"), std::string::npos) << cut.err;
}

TEST(AnalyzeCli, FifoWithoutWriterDirectoryAndStdinTwice) {
  std::string dir = testing::scratch_dir(), fifo = dir + "/pipe.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_gdrcheck({"analyze", fifo, dir});  // would block on the FIFO without O_NONBLOCK
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(fifo + ": empty"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + ": is a directory"), std::string::npos) << r.err;
  auto twice = run_gdrcheck({"analyze", "-", "/dev/stdin"}, testing::read_test_data(kGdrLog));
  EXPECT_EQ(twice.exit_code, 64);
  EXPECT_NE(twice.err.find("standard input"), std::string::npos) << twice.err;
  auto dev = run_gdrcheck({"analyze", "/dev/stdin"}, testing::read_test_data(kGdrLog));
  EXPECT_EQ(dev.exit_code, 0) << dev.err;
}

}  // namespace
}  // namespace gdrcheck

namespace gdrcheck {
namespace {

// A matrix paste cut after GPU3's row (deepep #60, real): GPU4-GPU7 are
// named UNKNOWN, never counted as GPUs without a NIC.
TEST(AnalyzeTopology, GpusWhoseRowsAreCutAreUnknownByName) {
  Artifact a = analyze_file(testing::test_data("smi/deepep-60-8gpu-14nic-topo-mp.txt"));
  EXPECT_EQ(a.status, Status::Unknown) << a.verdict;
  EXPECT_EQ(a.verdict.rfind("GPU4, GPU5, GPU6, GPU7: no NIC class in the paste", 0), 0u) << a.verdict;
  EXPECT_NE(a.verdict.find("GPU0, GPU1, GPU2, GPU3 have a NIC behind their PCIe switch"), std::string::npos);
  EXPECT_EQ(a.verdict.find("have no NIC behind"), std::string::npos);
}

// A log that ends in IB completion errors is a failed job: CRITICAL with
// NCCL's hint, whatever the GDR verdict could say.
TEST(AnalyzeNcclLog, CompletionErrorsAreCritical) {
  Artifact a = analyze_file(testing::test_data("nccl-logs/nccl-928-warn-error4-acs.log"));
  EXPECT_EQ(a.status, Status::Critical);
  EXPECT_EQ(a.verdict.rfind("IB completion error 4 (local protection)", 0), 0u) << a.verdict;
  EXPECT_NE(a.verdict.find("ACS"), std::string::npos);
}

// A port that is not ACTIVE in pasted ibstat is CRITICAL, as node's port
// check calls the same fact, with the cause its physical state names.
TEST(AnalyzeIbv, APortDownIsCriticalAsInNode) {
  Artifact polling = analyze_file(testing::test_data("ibv/gpud-482-ibstat-down-polling-redacted.txt"));
  EXPECT_EQ(polling.status, Status::Critical);
  EXPECT_NE(polling.verdict.find("mlx5_10 port 1 DOWN (physical Polling)"), std::string::npos) << polling.verdict;
  Artifact disabled = analyze_file(testing::test_data("ibv/gpud-99-ibstat-down-disabled-trimmed.txt"));
  EXPECT_EQ(disabled.status, Status::Critical);
  bool admin = false;
  for (const auto& n : disabled.notes) admin |= n.find("administratively disabled") != std::string::npos;
  EXPECT_TRUE(admin);
  EXPECT_EQ(analyze_file(testing::test_data("ibv/deepep-303-ibstat-ndr-400-cut.txt")).status, Status::Ok);
}

}  // namespace
}  // namespace gdrcheck

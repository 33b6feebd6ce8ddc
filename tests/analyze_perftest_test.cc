// The perftest kind of `gdrcheck analyze` on real pastes
// (tests/data/perftest/pastes, PROVENANCE.md) with hand-checked values, on
// mangled copies the tests make of them (collapsed tabs, CRLF, prompts,
// several runs, cut lines), and on good, bad and evidence-missing cases.
#include <gtest/gtest.h>

#include <fstream>

#include "analyze/artifact.h"
#include "analyze/perftest_paste.h"
#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::contains;
using testing::read_test_data;
using testing::test_data;

std::string paste_path(const std::string& name) {
  return test_data("perftest/pastes/" + name);
}

Artifact analyze_named_text(const std::string& name, const std::string& text) {
  std::string path = testing::scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return analyze_file(path);
}

bool any_note(const Artifact& a, const std::string& part) {
  for (const auto& r : a.perftest->runs)
    for (const auto& n : r.notes)
      if (contains(n, part)) return true;
  return false;
}

TEST(AnalyzePerftest, EveryRealPasteIsDetected) {
  for (const char* f :
       {"perftest-31-use-cuda-k80-allocate-mr.txt", "perftest-31-host-memory-ib-header-cut.txt",
        "perftest-126-a30-vgpu-allocate-mr-rdma-cm.txt", "perftest-346-cuda-allocate-mr-error-14-cut.txt",
        "perftest-21-use-cuda-v100-roce-cut.txt", "perftest-269-send-bw-cuda-geforce-cut.txt",
        "rocm-docs-d2d-bidirectional-gbits.txt", "blog-roce-100gbe-bidirectional-cpu-freq.txt",
        "lab-notes-send-bw-fdr-ib.txt", "crater-read-bw-allocate-mr-memlock.txt", "crater-read-bw-server-read-keys.txt",
        "bf3-arm-write-bw-gbits-fragment.txt"})
    EXPECT_EQ(analyze_file(paste_path(f)).kind, ArtifactKind::Perftest) << f;
  for (const char* f : {"perftest-234-mbsec-cut.txt", "perftest-241-use-cuda-a30-server-cut.txt",
                        "perftest-273-post-list-gbits.txt", "perftest-json-rdma-write-mlx5_11.json"})
    EXPECT_EQ(analyze_file(test_data("perftest/" + std::string(f))).kind, ArtifactKind::Perftest) << f;
  ArtifactKind k{};
  EXPECT_TRUE(parse_artifact_kind("perftest", &k));
  EXPECT_EQ(k, ArtifactKind::Perftest);
}

TEST(AnalyzePerftest, CudaMemoryRegistrationFailureIsCritical) {
  Artifact a = analyze_file(paste_path("perftest-31-use-cuda-k80-allocate-mr.txt"));
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.status, Status::Critical);
  ASSERT_EQ(a.perftest->runs.size(), 1u);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.program, "ib_write_bw");
  EXPECT_TRUE(r.command_cuda);
  EXPECT_TRUE(r.report.gpu_buffer);
  EXPECT_EQ(r.report.gpu_name, "Tesla K80");
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].line, 13u);
  EXPECT_EQ(r.errors[0].text, "Couldn't allocate MR");
  EXPECT_TRUE(contains(a.verdict, "GPUDirect RDMA does not work")) << a.verdict;
  EXPECT_TRUE(any_note(a, "nvidia_peermem"));

  Artifact vgpu = analyze_file(paste_path("perftest-126-a30-vgpu-allocate-mr-rdma-cm.txt"));
  EXPECT_EQ(vgpu.status, Status::Critical);
  EXPECT_EQ(vgpu.perftest->runs[0].report.gpu_name, "NVIDIA A30-8C");
  EXPECT_EQ(vgpu.perftest->runs[0].errors.back().text, "Segmentation fault (core dumped)");

  // Cut to the last lines: the CUDA buffer line still says GPU memory.
  Artifact cut = analyze_file(paste_path("perftest-346-cuda-allocate-mr-error-14-cut.txt"));
  EXPECT_EQ(cut.status, Status::Critical);
  EXPECT_TRUE(contains(cut.verdict, "error=14")) << cut.verdict;
}

TEST(AnalyzePerftest, HostMemoryFailuresAreWarningsWithTheirCause) {
  Artifact mr = analyze_file(paste_path("crater-read-bw-allocate-mr-memlock.txt"));
  EXPECT_EQ(mr.status, Status::Warning);
  EXPECT_EQ(mr.perftest->runs[0].program, "ib_read_bw");
  EXPECT_FALSE(mr.perftest->runs[0].command_cuda);
  EXPECT_TRUE(any_note(mr, "ulimit -l"));
  Artifact keys = analyze_file(paste_path("crater-read-bw-server-read-keys.txt"));
  EXPECT_EQ(keys.status, Status::Warning);
  const PerftestRun& r = keys.perftest->runs[0];
  EXPECT_EQ(r.report.test, "RDMA_Read BW Test");
  EXPECT_EQ(r.report.device, "mlx5_0");  // spaces, not tabs, between the pairs
  EXPECT_EQ(r.report.qps, 30);
  EXPECT_EQ(r.errors.front().text, "ethernet_read_keys: Couldn't read remote address");
  EXPECT_TRUE(any_note(keys, "firewall"));
}

TEST(AnalyzePerftest, HostMemoryResultsProveTheLinkNotGpuDirect) {
  Artifact send = analyze_file(paste_path("lab-notes-send-bw-fdr-ib.txt"));
  EXPECT_EQ(send.status, Status::Unknown);
  const PerftestRun& r = send.perftest->runs[0];
  EXPECT_EQ(r.report.test, "Send BW Test");
  EXPECT_EQ(r.report.device, "ibp4s0");
  EXPECT_EQ(r.report.link_type, "IB");
  EXPECT_EQ(r.report.unit, PerftestUnit::Gbits);
  ASSERT_EQ(r.report.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 52.16);
  EXPECT_TRUE(r.cpu_frequency_warning);
  EXPECT_FALSE(r.port_rate_gbps);  // "Link type: IB" is no rate
  EXPECT_TRUE(contains(send.verdict, "host memory only")) << send.verdict;
  EXPECT_TRUE(any_note(send, "ibstat"));

  Artifact blog = analyze_file(paste_path("blog-roce-100gbe-bidirectional-cpu-freq.txt"));
  const PerftestRun& b = blog.perftest->runs[0];
  EXPECT_TRUE(b.report.bidirectional);
  EXPECT_TRUE(b.peak_not_measured);
  EXPECT_EQ(b.report.device, "mlx5_0");
  EXPECT_DOUBLE_EQ(*b.average_gbits, 98.02);
  EXPECT_EQ(blog.status, Status::Unknown);
}

TEST(AnalyzePerftest, GpuMemoryResultIsOkAndSaysWhatItCannotTell) {
  Artifact rocm = analyze_file(paste_path("rocm-docs-d2d-bidirectional-gbits.txt"));
  EXPECT_EQ(rocm.status, Status::Ok);
  const PerftestRun& r = rocm.perftest->runs[0];
  EXPECT_EQ(r.report.rows.size(), 23u);
  EXPECT_EQ(r.report.rows.back().bytes, 8388608u);
  EXPECT_DOUBLE_EQ(*r.average_gbits, 204.59);
  EXPECT_TRUE(r.command_rocm);
  EXPECT_TRUE(r.command_gbits);
  EXPECT_TRUE(any_note(rocm, "does not say the port's rate"));
  EXPECT_TRUE(any_note(rocm, "one side"));
}

// The CUDA preamble of a real paste (#21) before the table of a real one
// (#273), with an ibstat rate: GPU memory, compared with the port.
std::string cuda_run_with(const std::string& table) {
  std::string cuda = read_test_data("perftest/pastes/perftest-21-use-cuda-v100-roce-cut.txt");
  return cuda + table;
}

TEST(AnalyzePerftest, BandwidthAgainstAPastedPortRate) {
  std::string table =
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 65536      5000             92.62              %AVG              0.176000\n";
  std::string ibstat =
      "CA 'mlx5_2'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
      "\t\tPhysical state: LinkUp\n\t\tRate: 100\n\t\tLink layer: Ethernet\n";
  auto with = [&](const std::string& avg) {
    std::string t = table;
    t.replace(t.find("%AVG"), 4, avg);
    return cuda_run_with(t) + ibstat;
  };
  Artifact good = analyze_named_text("good.txt", with("92.10"));
  EXPECT_EQ(good.status, Status::Ok) << good.verdict;
  ASSERT_TRUE(good.perftest->runs[0].port_rate_gbps);
  EXPECT_DOUBLE_EQ(*good.perftest->runs[0].port_rate_gbps, 100);
  EXPECT_TRUE(contains(good.verdict, "near line rate")) << good.verdict;
  Artifact slow = analyze_named_text("slow.txt", with("41.00"));
  EXPECT_EQ(slow.status, Status::Warning) << slow.verdict;
  EXPECT_TRUE(contains(slow.verdict, "below the port rate")) << slow.verdict;
  // Without the ibstat lines: no rate is invented.
  std::string t = table;
  t.replace(t.find("%AVG"), 4, "41.00");
  Artifact unknown = analyze_named_text("norate.txt", cuda_run_with(t));
  EXPECT_EQ(unknown.status, Status::Ok);
  EXPECT_FALSE(unknown.perftest->runs[0].port_rate_gbps);
}

TEST(AnalyzePerftest, MegabytesAreNormalisedToGigabits) {
  std::string t =
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
      " 65536      5000             11000.00           11000.00           0.176000\n";
  Artifact a = analyze_named_text("mb.txt", cuda_run_with(t));
  ASSERT_TRUE(a.perftest->runs[0].average_gbits);
  EXPECT_NEAR(*a.perftest->runs[0].average_gbits, 11000 * 1048576.0 * 8 / 1e9, 1e-9);
}

TEST(AnalyzePerftest, MangledPastesReadTheSame) {
  std::string real = read_test_data("perftest/pastes/lab-notes-send-bw-fdr-ib.txt");
  std::string crlf;
  for (char c : real) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  Artifact a = analyze_named_text("crlf.txt", crlf);
  ASSERT_EQ(a.kind, ArtifactKind::Perftest);
  EXPECT_DOUBLE_EQ(*a.perftest->runs[0].average_gbits, 52.16);
  EXPECT_EQ(a.perftest->runs[0].report.device, "ibp4s0");
  // Prompt and command before, prose after; first dashed line cut.
  Artifact p = analyze_named_text("prompt.txt", "user@n1:~$ ib_send_bw -d ibp4s0 --report_gbits 10.0.0.2\n" +
                                                    real.substr(real.find('\n') + 1) + "looks fine to me\n");
  ASSERT_EQ(p.perftest->runs.size(), 1u);
  EXPECT_EQ(p.perftest->runs[0].program, "ib_send_bw");
  EXPECT_DOUBLE_EQ(*p.perftest->runs[0].average_gbits, 52.16);
  // Two runs in one paste: a host run and the CUDA failure.
  std::string two = real + read_test_data("perftest/pastes/perftest-31-use-cuda-k80-allocate-mr.txt");
  Artifact both = analyze_named_text("two.txt", two);
  ASSERT_EQ(both.perftest->runs.size(), 2u);
  EXPECT_EQ(both.perftest->runs[0].status, Status::Unknown);
  EXPECT_EQ(both.perftest->runs[1].status, Status::Critical);
  EXPECT_EQ(both.status, Status::Critical);
  EXPECT_TRUE(contains(both.verdict, "2 runs")) << both.verdict;
  // Tabs kept (perftest's own output) and collapsed to one space each.
  std::string tabs = read_test_data("perftest/pastes/perftest-31-host-memory-ib-header-cut.txt");
  EXPECT_EQ(analyze_named_text("tabs.txt", tabs).perftest->runs[0].report.device, "mlx5_3");
}

TEST(AnalyzePerftest, JsonFileHasNoUnitSoNoComparison) {
  Artifact a = analyze_file(test_data("perftest/perftest-json-rdma-write-mlx5_11.json"));
  ASSERT_TRUE(a.error.empty()) << a.error;
  ASSERT_TRUE(a.perftest->json);
  const PerftestRun& r = a.perftest->runs[0];
  EXPECT_EQ(r.report.device, "mlx5_11");
  EXPECT_EQ(r.report.unit, PerftestUnit::Unknown);
  EXPECT_FALSE(r.average_gbits);
  EXPECT_DOUBLE_EQ(r.report.rows[0].bw_average, 2229.27);
  EXPECT_EQ(a.status, Status::Unknown);
  EXPECT_TRUE(any_note(a, "does not record its unit"));
  // No "cuda_device": host memory, or an older perftest's CUDA run.
  EXPECT_TRUE(contains(a.verdict, "names no GPU memory")) << a.verdict;
  EXPECT_FALSE(contains(a.verdict, "host memory only")) << a.verdict;
  Artifact bad = analyze_named_text("bad.json", "{\"test_info\": {}, \"results\": {\"MsgSize\": -1}}");
  EXPECT_FALSE(bad.error.empty());
}

// perftest before 24.01 wrote --out_json with unquoted keys (#216): read,
// and a latency test proves nothing about bandwidth or GPUDirect RDMA.
TEST(AnalyzePerftest, OldUnquotedJsonLatencyFile) {
  Artifact a = analyze_file(test_data("perftest/perftest-216-old-out-json-latency-rxe0.json"));
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.kind, ArtifactKind::Perftest);
  EXPECT_EQ(a.status, Status::Unknown);
  EXPECT_TRUE(contains(a.verdict, "latency test")) << a.verdict;
  EXPECT_EQ(a.perftest->runs[0].report.device, "rxe0");
}

// "cuda_device" (perftest 24.10+) says GPU memory was used.
TEST(AnalyzePerftest, JsonWithCudaDeviceIsGpuMemory) {
  std::string text = read_test_data("perftest/perftest-json-rdma-write-mlx5_11.json");
  text.replace(text.find("\"rdma_cm_QPs\""), 0, "\"cuda_device\": 0,\n    ");
  Artifact a = analyze_named_text("cuda.json", text);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_TRUE(contains(a.verdict, "GPU memory")) << a.verdict;
  EXPECT_FALSE(contains(a.verdict, "names no GPU memory")) << a.verdict;
}

TEST(AnalyzePerftest, CutBeforeResultsIsUnknown) {
  for (const char* f : {"perftest-21-use-cuda-v100-roce-cut.txt", "perftest-269-send-bw-cuda-geforce-cut.txt",
                        "perftest-31-host-memory-ib-header-cut.txt"}) {
    Artifact a = analyze_file(paste_path(f));
    EXPECT_EQ(a.status, Status::Unknown) << f;
    EXPECT_TRUE(contains(a.verdict, "no result row")) << f << ": " << a.verdict;
  }
}

}  // namespace
}  // namespace gdrcheck

// The node text report's layout: one block per root cause, lines within the
// width, ASCII for non-UTF-8 locales, and site-policy changes in sight.
#include "report/node_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "checks/policy.h"
#include "report/text_wrap.h"

namespace gdrcheck {
namespace {

Finding iommu_dma_fq(const std::string& subject, int group) {
  return problem(
      "iommu", subject, Status::Critical,
      "IOMMU translates this device's DMA (group type DMA-FQ): GPUDirect traffic is remapped or blocked",
      {"iommu_group " + std::to_string(group), "/sys/kernel/iommu_groups/" + std::to_string(group) + "/type = DMA-FQ",
       "/proc/cmdline = BOOT_IMAGE=/vmlinuz intel_iommu=on"},
      "boot with intel_iommu=on iommu=pt (passthrough keeps interrupt remapping) or disable the IOMMU");
}

// A node with a translated IOMMU: 8 GPUs and 12 NICs, one finding each.
NodeReport translated_node() {
  NodeReport r;
  r.host = "dgx-h100-01";
  r.root = "/";
  r.status = Status::Critical;
  for (int i = 0; i < 8; ++i) r.findings.push_back(iommu_dma_fq("GPU" + std::to_string(i), 10 + i));
  for (int i = 0; i < 12; ++i) r.findings.push_back(iommu_dma_fq("mlx5_" + std::to_string(i), 30 + i));
  PairVerdict p;
  p.gpu = "GPU0";
  p.nic_name = "mlx5_0";
  p.status = Status::Critical;
  p.reason = "iommu: " + r.findings.front().summary;
  r.pairs = {p};
  return r;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

NodeTextOptions eighty_columns() {
  NodeTextOptions o;
  o.width = 80;
  return o;
}

TEST(NodeText, OneRootCauseIsOneFinding) {
  std::string text = render_node_text(translated_node(), eighty_columns());
  EXPECT_EQ(count_of(text, "  CRITICAL  "), 1u) << text;
  EXPECT_NE(text.find("  CRITICAL  GPU0\u20137, mlx5_0\u201311 (20): IOMMU translates"), std::string::npos) << text;
  // Shared evidence once; the first subject's own evidence as an example.
  EXPECT_EQ(count_of(text, "intel_iommu=on\n"), 1u) << text;
  EXPECT_NE(text.find("GPU0: iommu_group 10"), std::string::npos) << text;
  EXPECT_EQ(text.find("iommu_group 11"), std::string::npos) << text;
  EXPECT_NE(text.find("19 more with evidence of their own (-v shows each)"), std::string::npos) << text;
  EXPECT_EQ(count_of(text, "fix: boot with"), 1u) << text;
}

TEST(NodeText, VerboseShowsEverySubjectsOwnEvidence) {
  std::string text = render_node_text(translated_node(), {false, false, true});
  EXPECT_NE(text.find("mlx5_11: iommu_group 41"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU7: /sys/kernel/iommu_groups/17/type = DMA-FQ"), std::string::npos) << text;
  EXPECT_EQ(text.find("more with evidence of their own"), std::string::npos) << text;
}

TEST(NodeText, LinesFitTheWidthButTheSummaryLineStaysWhole) {
  NodeReport r = translated_node();
  for (int width : {40, 80, 100}) {
    NodeTextOptions o;
    o.width = width;
    auto ls = lines(render_node_text(r, o));
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls.back(), node_summary_line(r));
    for (std::size_t i = 0; i + 1 < ls.size(); ++i) {
      bool one_long_word = ls[i].find(' ', ls[i].find_first_not_of(' ')) == std::string::npos;
      if (one_long_word) continue;
      EXPECT_LE(display_width(ls[i]), static_cast<std::size_t>(width)) << ls[i];
    }
  }
}

TEST(NodeText, ALongPathIsNeverCut) {
  NodeReport r;
  r.host = "n";
  std::string path = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/iommu_group/type";
  r.findings = {problem("iommu", "GPU0", Status::Critical, "translated", {path + " = DMA"}, "fix it")};
  NodeTextOptions o;
  o.width = 40;
  std::string text = render_node_text(r, o);
  EXPECT_NE(text.find("\n" + std::string(24, ' ') + path + "\n"), std::string::npos) << text;
}

TEST(NodeText, ZeroWidthDoesNotWrap) {
  std::string text = render_node_text(translated_node(), {});
  EXPECT_NE(text.find("(20): IOMMU translates this device's DMA (group type DMA-FQ): GPUDirect traffic is remapped "
                      "or blocked\n"),
            std::string::npos)
      << text;
}

TEST(NodeText, AsciiWhenTheLocaleIsNotUtf8) {
  NodeReport r = translated_node();
  r.findings.push_back(problem("nccl", "GPU0", Status::Warning, "NCCL \u2265 2.23.4 \u2192 GDR", {}, "set it"));
  r.host = "h\u00f6st";
  NodeTextOptions o;
  o.utf8 = false;
  std::string text = render_node_text(r, o);
  for (unsigned char c : text) ASSERT_LT(c, 0x80) << text;
  EXPECT_NE(text.find("GPU0-7, mlx5_0-11 (20)"), std::string::npos) << text;
  EXPECT_NE(text.find("NCCL >= 2.23.4 -> GDR"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 19 more"), std::string::npos) << text;
  EXPECT_NE(text.find("h\\u00f6st"), std::string::npos) << text;  // data is shown, escaped
}

TEST(NodeText, OkFindingsAreCountedWithFoldedSubjects) {
  NodeReport r;
  r.host = "n";
  for (int i = 0; i < 8; ++i) r.findings.push_back(ok("gpu", "GPU" + std::to_string(i), "H100", {"model"}));
  std::string text = render_node_text(r, {});
  EXPECT_NE(text.find("  OK        8 OK: GPU0\u20137 (-v shows each)\n"), std::string::npos) << text;
}

TEST(NodeText, SitePolicyChangesStayInSight) {
  NodeReport r;
  r.host = "n";
  r.findings = {
      problem("peermem", "host", Status::Warning, "legacy nv_peer_mem loaded", {"lsmod"}, "load nvidia_peermem"),
      ok("gpu", "GPU0", "H100", {}), ok("gpu", "GPU1", "H100", {})};
  apply_policy(r.findings, {"/etc/gdrcheck/policy.json",
                            {{"peermem", std::string("host"), std::nullopt, Status::Ok, "site uses nv_peer_mem"}}});
  std::string text = render_node_text(r, eighty_columns());
  EXPECT_NE(text.find("  OK        host          legacy nv_peer_mem loaded\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n              OK by site policy (/etc/gdrcheck/policy.json): site uses\n"
                      "                nv_peer_mem; was WARNING\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; 1 changed by site policy"), std::string::npos) << text;
  // The policy-passed finding is not counted among the plain OK ones.
  EXPECT_NE(text.find("2 OK: GPU0\u20131"), std::string::npos) << text;
  // Quiet output shows it too (it may have been an UNKNOWN), not the plain OK ones.
  std::string quiet = render_node_text(r, {false, true, false});
  EXPECT_NE(quiet.find("[peermem]\n  OK        host"), std::string::npos) << quiet;
  EXPECT_NE(quiet.find("was WARNING"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("[gpu]"), std::string::npos) << quiet;
  EXPECT_NE(quiet.find("1 changed by site policy"), std::string::npos) << quiet;
}

TEST(NodeText, NoPolicyNoPolicyWords) {
  std::string text = render_node_text(translated_node(), {});
  EXPECT_EQ(text.find("site policy"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck

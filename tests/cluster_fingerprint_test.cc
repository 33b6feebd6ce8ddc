// Fingerprints of real reports: each fixture variant changes the aspect it
// should, and only that.
#include "cluster/fingerprint.h"

#include <gtest/gtest.h>

#include "cluster_reports.h"

namespace gdrcheck {
namespace {

using testing::node_report_json;

Fingerprint fingerprint_of(const std::vector<std::string>& variants, const std::string& node = "dgx-h100") {
  NodeReportRead r = read_node_report(node_report_json(node, variants));
  EXPECT_TRUE(r.facts) << r.problem;
  return r.facts ? fingerprint(*r.facts) : Fingerprint{};
}

std::string aspect(const Fingerprint& f, const std::string& name) {
  for (const auto& [a, v] : f)
    if (a == name) return v;
  ADD_FAILURE() << "no aspect " << name;
  return "";
}

// The aspects in which two fingerprints differ.
std::vector<std::string> differences(const Fingerprint& a, const Fingerprint& b) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i].second != b[i].second) out.push_back(a[i].first);
  return out;
}

TEST(Fingerprint, HealthyNode) {
  Fingerprint f = fingerprint_of({});
  ASSERT_EQ(f.size(), fingerprint_aspects().size());
  EXPECT_EQ(aspect(f, "GPUs"), "8x H100");
  EXPECT_EQ(aspect(f, "NICs"), "12x ConnectX-7");
  EXPECT_EQ(aspect(f, "firmware"), "28.39.1002");
  EXPECT_EQ(aspect(f, "driver"), "550.90.07 open");
  EXPECT_EQ(aspect(f, "peer memory"), "nvidia_peermem");
  EXPECT_EQ(aspect(f, "NCCL settings"), "none");
  EXPECT_EQ(aspect(f, "ACS"), "no redirect");
  EXPECT_EQ(aspect(f, "IOMMU"), "identity");
  EXPECT_EQ(aspect(f, "pair classes"), "8x PXB/PIX");
  EXPECT_NE(aspect(f, "port rates").find("400G"), std::string::npos);
}

TEST(Fingerprint, EachVariantChangesItsAspect) {
  Fingerprint healthy = fingerprint_of({});
  // A slow or down port also moves the GPU's traffic to its NVLink peers'
  // NICs (PXN: NCCL ranks by bandwidth, and skips ports that are not ACTIVE).
  EXPECT_EQ(differences(healthy, fingerprint_of({"nic-slow"})),
            (std::vector<std::string>{"port rates", "pair classes"}));
  EXPECT_EQ(differences(healthy, fingerprint_of({"port-down"})),
            (std::vector<std::string>{"port states", "pair classes"}));
  EXPECT_EQ(differences(healthy, fingerprint_of({"acs-redirect"})), std::vector<std::string>{"ACS"});
  EXPECT_EQ(aspect(fingerprint_of({"acs-redirect"}), "ACS"), "redirect on 0000:1a:00.0");
  EXPECT_EQ(aspect(fingerprint_of({"iommu-translated"}), "IOMMU"), "DMA-FQ");
  Fingerprint no_peermem = fingerprint_of({"peermem-missing"});
  EXPECT_EQ(aspect(no_peermem, "peer memory"), "none");
  EXPECT_EQ(aspect(no_peermem, "driver"), "550.90.07 proprietary");
  EXPECT_EQ(aspect(fingerprint_of({"peermem-unregistered"}), "peer memory"), "nvidia_peermem (no memory_peers entry)");
  EXPECT_EQ(aspect(fingerprint_of({"stray-nccl-conf"}), "NCCL settings"), "NCCL_IB_HCA=mlx5_1, NCCL_NET_GDR_LEVEL=LOC");
  EXPECT_EQ(aspect(fingerprint_of({"rootless"}), "ACS"), "unknown");
}

TEST(Fingerprint, AnotherModelDiffersInHardware) {
  Fingerprint a100 = fingerprint_of({}, "dgx-a100");
  EXPECT_EQ(aspect(a100, "GPUs"), "8x A100");
  EXPECT_NE(aspect(a100, "NICs"), aspect(fingerprint_of({}), "NICs"));
}

TEST(Fingerprint, WhatTheReportDoesNotSayIsUnknown) {
  NodeReportFacts bare;
  Fingerprint f = fingerprint(bare);
  EXPECT_EQ(aspect(f, "driver"), "unknown");
  EXPECT_EQ(aspect(f, "kernel"), "unknown");
  EXPECT_EQ(aspect(f, "peer memory"), "unknown");
  EXPECT_EQ(aspect(f, "NCCL settings"), "unknown");
  EXPECT_EQ(aspect(f, "IOMMU"), "unknown");
  EXPECT_EQ(aspect(f, "ACS"), "not checked");
  EXPECT_EQ(aspect(f, "GPUs"), "none");
}

// A hostile value is cut, keeping its size and a hash: two long values
// that differ after the cut still differ.
TEST(Fingerprint, LongValuesAreCutButStillCompare) {
  NodeReportFacts a, b;
  a.kernel = std::string(5'000'000, 'k') + "a";
  b.kernel = std::string(5'000'000, 'k') + "b";
  std::string ka = aspect(fingerprint(a), "kernel"), kb = aspect(fingerprint(b), "kernel");
  EXPECT_LT(ka.size(), kMaxFingerprintValue + 64);
  EXPECT_NE(ka.find("... (5000001 bytes, hash "), std::string::npos) << ka.substr(kMaxFingerprintValue);
  EXPECT_NE(ka, kb);
  NodeReportFacts c;
  c.kernel = "6.8.0";
  EXPECT_EQ(aspect(fingerprint(c), "kernel"), "6.8.0");
}

}  // namespace
}  // namespace gdrcheck

#include "report/finding_fold.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

std::vector<const Finding*> pointers(const std::vector<Finding>& fs) {
  std::vector<const Finding*> out;
  for (const auto& f : fs) out.push_back(&f);
  return out;
}

Finding translated(const std::string& subject, int group) {
  return problem("iommu", subject, Status::Critical, "IOMMU translates this device's DMA",
                 {"iommu_group " + std::to_string(group), "/proc/cmdline = intel_iommu=on"}, "boot with iommu=pt");
}

TEST(FoldSubjects, NumberedRunsFoldOthersAreListed) {
  std::vector<std::string> s;
  for (int i = 0; i < 8; ++i) s.push_back("GPU" + std::to_string(i));
  for (int i = 0; i < 12; ++i) s.push_back("mlx5_" + std::to_string(i));
  EXPECT_EQ(fold_subjects(s, true), "GPU0\u20137, mlx5_0\u201311");
  EXPECT_EQ(fold_subjects(s, false), "GPU0-7, mlx5_0-11");
  EXPECT_EQ(fold_subjects({"mlx5_0", "mlx5_1", "mlx5_3", "mlx5_10", "mlx5_2"}, false), "mlx5_0-3, mlx5_10");
  EXPECT_EQ(fold_subjects({"host", "GPU3"}, false), "host, GPU3");
  EXPECT_EQ(fold_subjects({"GPU1", "GPU1"}, false), "GPU1");
  // Leading zeros and digits-only subjects would not come back from a range.
  EXPECT_EQ(fold_subjects({"GPU01", "GPU02", "7", "8"}, false), "GPU01, GPU02, 7, 8");
  EXPECT_EQ(fold_subjects({}, true), "");
}

TEST(FoldSubjects, HugeNumbersDoNotOverflow) {
  EXPECT_EQ(fold_subjects({"GPU99999999999999999999", "GPU1"}, false), "GPU99999999999999999999, GPU1");
}

TEST(FoldFindings, OneRootCauseBecomesOneFoldWithSharedEvidenceOnce) {
  std::vector<Finding> fs;
  for (int i = 0; i < 8; ++i) fs.push_back(translated("GPU" + std::to_string(i), 10 + i));
  for (int i = 0; i < 12; ++i) fs.push_back(translated("mlx5_" + std::to_string(i), 30 + i));
  auto folds = fold_findings(pointers(fs));
  ASSERT_EQ(folds.size(), 1u);
  EXPECT_EQ(folds[0].members.size(), 20u);
  EXPECT_EQ(folds[0].shared_evidence, std::vector<std::string>{"/proc/cmdline = intel_iommu=on"});
  ASSERT_EQ(folds[0].own_evidence.size(), 20u);
  EXPECT_EQ(folds[0].own_evidence[0], std::vector<std::string>{"iommu_group 10"});
  EXPECT_EQ(folds[0].own_evidence[19], std::vector<std::string>{"iommu_group 41"});
}

TEST(FoldFindings, DifferentStatusSummaryOrFixStayApart) {
  std::vector<Finding> fs{translated("GPU0", 1), translated("GPU1", 2), translated("GPU2", 3), translated("GPU3", 4)};
  fs[1].status = Status::Warning;
  fs[2].summary = "other";
  fs[3].fix = "other fix";
  auto folds = fold_findings(pointers(fs));
  ASSERT_EQ(folds.size(), 4u);
  EXPECT_EQ(folds[0].first->subject, "GPU0");
  EXPECT_EQ(folds[3].first->subject, "GPU3");
  // A lone finding keeps all its evidence as shared.
  EXPECT_EQ(folds[0].shared_evidence.size(), 2u);
  EXPECT_TRUE(folds[0].own_evidence[0].empty());
}

TEST(FoldFindings, OrderIsFirstAppearance) {
  std::vector<Finding> fs{translated("GPU0", 1), ok("iommu", "GPU1", "identity", {}), translated("GPU2", 3)};
  auto folds = fold_findings(pointers(fs));
  ASSERT_EQ(folds.size(), 2u);
  EXPECT_EQ(folds[0].members.size(), 2u);
  EXPECT_EQ(folds[1].first->subject, "GPU1");
}

}  // namespace
}  // namespace gdrcheck

// NCCL_NET_GDR_LEVEL per release (src/graph/paths.cc:ncclGetLevel,
// ncclTopoCheckGdr; names from src/graph/topo.cc topoPathTypeStr).
#include "nccl/gdr_level.h"

#include <gtest/gtest.h>

#include "nccl_versions.h"

namespace gdrcheck {
namespace {

using testing::nccl_version;

NcclSettings merged_settings(std::vector<NcclSetting> layer) {
  return merge_nccl_settings({layer});
}

TEST(GdrLevel, DefaultIsPxbUntil2289AndP2cFrom2292) {
  EXPECT_EQ(effective_gdr_level({}, nccl_version("2.28.9")).path, NcclPath::PXB);
  EXPECT_EQ(effective_gdr_level({}, nccl_version("2.29.2")).path, NcclPath::P2C);
  // NCCL_NET_GDR_C2C=0 keeps PXB as the default from 2.29 too.
  EXPECT_EQ(effective_gdr_level(merged_settings({{"NCCL_NET_GDR_C2C", "0", "--env"}}), nccl_version("2.30.7")).path,
            NcclPath::PXB);
}

TEST(GdrLevel, SetLevelIsCitedWithItsOrigin) {
  GdrLevel l =
      effective_gdr_level(merged_settings({{"NCCL_NET_GDR_LEVEL", "SYS", "/etc/nccl.conf:2"}}), nccl_version("2.21.5"));
  EXPECT_EQ(l.path, NcclPath::SYS);
  ASSERT_NE(l.set, nullptr);
  EXPECT_NE(l.text.find("/etc/nccl.conf:2"), std::string::npos);
}

TEST(GdrLevel, UnknownNameKeepsTheDefaultAndSaysSo) {
  GdrLevel l = effective_gdr_level(merged_settings({{"NCCL_NET_GDR_LEVEL", "pxb", "--env"}}), nccl_version("2.21.5"));
  EXPECT_EQ(l.path, NcclPath::PXB);
  EXPECT_EQ(l.set, nullptr);
  ASSERT_EQ(l.rules.size(), 1u);
  EXPECT_NE(l.rules[0].find("is not a level NCCL 2.21.5 knows"), std::string::npos);
}

// P2C appears in 2.27.3, C2C in 2.26.2, PXN in 2.12.
TEST(GdrLevel, NamesExistFromTheirRelease) {
  EXPECT_FALSE(parse_gdr_level("P2C", nccl_version("2.26.6")).has_value());
  EXPECT_EQ(parse_gdr_level("P2C", nccl_version("2.27.3")), NcclPath::P2C);
  EXPECT_FALSE(parse_gdr_level("C2C", nccl_version("2.25.1")).has_value());
  EXPECT_EQ(parse_gdr_level("C2C", nccl_version("2.26.2")), NcclPath::C2C);
  EXPECT_FALSE(parse_gdr_level("PXN", nccl_version("2.11.4")).has_value());
}

TEST(GdrLevel, LegacyNumbersAndATrailingCr) {
  EXPECT_EQ(parse_gdr_level("2", nccl_version("2.30.7")), NcclPath::PXB);
  EXPECT_EQ(parse_gdr_level("7", nccl_version("2.30.7")), NcclPath::SYS);
  // strtol stops at the CR: a number still parses, a name does not.
  EXPECT_EQ(parse_gdr_level("2\r", nccl_version("2.29.7")), NcclPath::PXB);
  EXPECT_FALSE(parse_gdr_level("PHB\r", nccl_version("2.29.7")).has_value());
}

}  // namespace
}  // namespace gdrcheck

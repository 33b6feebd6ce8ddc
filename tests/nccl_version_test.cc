// NcclVersion: the version strings NCCL, its packages and its tags use.
#include "nccl/nccl_version.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

void expect_version(const char* text, int major, int minor, int patch) {
  auto v = NcclVersion::parse(text);
  ASSERT_TRUE(v.has_value()) << text;
  EXPECT_EQ(v->major, major) << text;
  EXPECT_EQ(v->minor, minor) << text;
  EXPECT_EQ(v->patch, patch) << text;
}

TEST(NcclVersionParse, PlainAndSuffixedForms) {
  expect_version("2.21.5", 2, 21, 5);
  expect_version("2.21.5-1", 2, 21, 5);           // git tag / package release
  expect_version("2.18.3+cuda12.2", 2, 18, 3);    // "NCCL version 2.18.3+cuda12.2"
  expect_version("2.21.5-1+cuda12.4", 2, 21, 5);  // .deb version
  expect_version("v2.30.7-1", 2, 30, 7);          // tag as pasted
  expect_version("2.9.6", 2, 9, 6);
}

TEST(NcclVersionParse, SeriesWithoutPatchIsPatchZero) {
  expect_version("2.30", 2, 30, 0);
  expect_version("2.4", 2, 4, 0);
}

TEST(NcclVersionParse, RejectsGarbage) {
  for (const char* bad :
       {"",        "2",        "2.",         "2.x",        "x.21.5",  "-2.21.5", "2.-1.5",       "2.21.-5",
        "2.21.5.", "2.21.5.1", "2.21.5-",    "2.21.5+",    "2.21.5 ", " 2.21.5", "2.21.5 extra", "abc",
        "v",       "2..5",     "2.21.5-1 2", "1234567.1.1"})
    EXPECT_FALSE(NcclVersion::parse(bad).has_value()) << "'" << bad << "'";
}

TEST(NcclVersionOrder, ComparesNumerically) {
  EXPECT_LT(*NcclVersion::parse("2.9.8"), *NcclVersion::parse("2.10.3"));
  EXPECT_LT(*NcclVersion::parse("2.18.6"), *NcclVersion::parse("2.19.1"));
  EXPECT_EQ(*NcclVersion::parse("2.21.5-1"), *NcclVersion::parse("2.21.5+cuda12.4"));
  EXPECT_GT(*NcclVersion::parse("2.30"), *NcclVersion::parse("2.29.7"));
}

TEST(NcclVersionNewest, IsTheDefaultAndPrints) {
  EXPECT_EQ(NcclVersion::newest().str(), "2.30.7");
  EXPECT_EQ(NcclVersion{}, NcclVersion::newest());
  EXPECT_EQ(NcclVersion::parse("2.18.3+cuda12.2")->str(), "2.18.3");
  EXPECT_EQ(NcclVersion::parse("2.30")->str(), "2.30.0");
}

}  // namespace
}  // namespace gdrcheck

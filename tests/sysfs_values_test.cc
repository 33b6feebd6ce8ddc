#include "host/sysfs_values.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(SysfsValues, Hex) {
  EXPECT_EQ(parse_sysfs_hex("0x10de\n"), 0x10deu);
  EXPECT_EQ(parse_sysfs_hex("0x030200"), 0x030200u);
  EXPECT_EQ(parse_sysfs_hex("15b3"), 0x15b3u);
  EXPECT_FALSE(parse_sysfs_hex(""));
  EXPECT_FALSE(parse_sysfs_hex("0x"));
  EXPECT_FALSE(parse_sysfs_hex("0xzz"));
  EXPECT_FALSE(parse_sysfs_hex("0x123456789"));
}

TEST(SysfsValues, Int) {
  EXPECT_EQ(parse_sysfs_int("-1\n"), -1);
  EXPECT_EQ(parse_sysfs_int("16"), 16);
  EXPECT_FALSE(parse_sysfs_int("16x"));
  EXPECT_FALSE(parse_sysfs_int(""));
}

TEST(SysfsValues, LinkSpeedAcrossKernelFormats) {
  EXPECT_DOUBLE_EQ(*parse_link_speed("8.0 GT/s PCIe\n"), 8.0);
  EXPECT_DOUBLE_EQ(*parse_link_speed("8 GT/s"), 8.0);  // kernels up to 5.6
  EXPECT_DOUBLE_EQ(*parse_link_speed("2.5 GT/s"), 2.5);
  EXPECT_DOUBLE_EQ(*parse_link_speed("32.0 GT/s PCIe"), 32.0);
  EXPECT_FALSE(parse_link_speed("Unknown"));
  EXPECT_FALSE(parse_link_speed("Unknown speed"));
  EXPECT_FALSE(parse_link_speed("fast"));
}

TEST(SysfsValues, LinkWidth) {
  EXPECT_EQ(parse_link_width("16\n"), 16);
  EXPECT_FALSE(parse_link_width("0"));
  EXPECT_FALSE(parse_link_width("255"));
}

TEST(SysfsValues, Generation) {
  EXPECT_EQ(pcie_generation(2.5), 1);
  EXPECT_EQ(pcie_generation(16.0), 4);
  EXPECT_EQ(pcie_generation(64.0), 6);
  EXPECT_FALSE(pcie_generation(10.0));
}

TEST(SysfsValues, Cpulist) {
  EXPECT_EQ(parse_cpulist("0-3,8,9-11\n"), "0-3,8-11");
  EXPECT_EQ(parse_cpulist("5"), "5");
  EXPECT_FALSE(parse_cpulist(""));
  EXPECT_FALSE(parse_cpulist("3-1"));
  EXPECT_FALSE(parse_cpulist("a-b"));
  EXPECT_FALSE(parse_cpulist("0-99999999"));
}

TEST(SysfsValues, Cpumask) {
  EXPECT_EQ(cpumask_to_cpulist("ffffffff,00000000"), "32-63");
  EXPECT_EQ(cpumask_to_cpulist("00ff00ff"), "0-7,16-23");
  EXPECT_EQ(cpumask_to_cpulist("0x3fff0000,,,0x00003fff"), "0-13,112-125");  // hwloc's empty words
  EXPECT_EQ(cpumask_to_cpulist("00000000"), "");
  EXPECT_FALSE(cpumask_to_cpulist("xyz"));
}

TEST(SysfsValues, IbRateAndState) {
  EXPECT_DOUBLE_EQ(*parse_ib_rate_gbps("56 Gb/sec (4X FDR)\n"), 56.0);
  EXPECT_DOUBLE_EQ(*parse_ib_rate_gbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_FALSE(parse_ib_rate_gbps("fast"));
  auto s = parse_numbered_state("4: ACTIVE\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->number, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  EXPECT_FALSE(parse_numbered_state("ACTIVE"));
  EXPECT_FALSE(parse_numbered_state("x: ACTIVE"));
}

}  // namespace
}  // namespace gdrcheck

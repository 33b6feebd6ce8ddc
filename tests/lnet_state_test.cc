// LNet's network interfaces as a root shows them: the NI list in both
// layouts (the Lustre 1.6 manual's "nid refs peer max tx min" and today's
// "nid status alive refs peer rtr max tx min") and the networks parameter.
#include "host/lnet_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "recorded_fixtures.h"

namespace gdrcheck {
namespace {

TEST(LnetState, ReadsNidsOfBothLayouts) {
  // The layout of the Lustre 1.6 Operations Manual's example.
  auto old = parse_lnet_nis("nid refs peer max tx min\n0@lo 3 0 0 0 0\n192.168.10.34@tcp 4 8 256 256 252\n");
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[1].address, "192.168.10.34");
  EXPECT_EQ(old[1].net, "tcp");
  auto now = parse_lnet_nis(
      "nid                      status alive refs peer  rtr   max    tx   min\n"
      "10.10.0.21@o2ib1              up    -1    1    8    0   256   256   254\n"
      "garbage@\n@o2ib\n10.10.0.x@o2ib up\n");
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].net, "o2ib1");
}

TEST(LnetState, NetworksParameterNamesO2ibInterfaces) {
  EXPECT_EQ(o2ib_interfaces_of("o2ib0(ib0,ib1),tcp0(eth0)"), (std::vector<std::string>{"ib0", "ib1"}));
  EXPECT_EQ(o2ib_interfaces_of("tcp0(eth0), o2ib1(ib2)"), (std::vector<std::string>{"ib2"}));
  EXPECT_TRUE(o2ib_interfaces_of("tcp").empty());
  EXPECT_TRUE(o2ib_interfaces_of("o2ib0(").empty());
}

TEST(LnetState, NothingReadableIsNulloptWithWhatWasLookedAt) {
  std::string root = testing::scratch_dir();
  LnetState s = read_lnet_state(Root(root));
  EXPECT_FALSE(s.nids);
  EXPECT_NE(s.nids_file.find("/proc/sys/lnet/nis"), std::string::npos);
  std::filesystem::create_directories(root + "/proc/sys/lnet");
  std::ofstream(root + "/proc/sys/lnet/nis") << "nid refs peer max tx min\n10.0.0.1@o2ib 4 8 256 256 252\n";
  s = read_lnet_state(Root(root));
  ASSERT_TRUE(s.nids);
  EXPECT_EQ(s.nids_file, "/proc/sys/lnet/nis");
}

}  // namespace
}  // namespace gdrcheck

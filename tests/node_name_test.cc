// Which names may reach `scontrol update NodeName=`, and when a report's
// claimed host is the host that was asked.
#include "cluster/node_name.h"

#include <gtest/gtest.h>

#include <string>

namespace gdrcheck {
namespace {

TEST(NodeName, PlainSlurmNodeNames) {
  for (const char* good : {"gpu07", "a", "GPU-07", "node_1", "gpu07.cluster.example", "10.0.0.7", "0gpu"})
    EXPECT_TRUE(plain_node_name(good)) << good << ": " << plain_node_name_problem(good);
  EXPECT_TRUE(plain_node_name(std::string(63, 'n')));
}

TEST(NodeName, AnythingThatDrainsMoreThanOneNodeIsRefused) {
  EXPECT_EQ(plain_node_name_problem("gpu[00-99],login[1-2]"), "a host list, not one node name");
  EXPECT_EQ(plain_node_name_problem("a,b"), "a host list, not one node name");
  EXPECT_EQ(plain_node_name_problem("ALL"), "a Slurm keyword, not a node");
  EXPECT_EQ(plain_node_name_problem("all"), "a Slurm keyword, not a node");
  EXPECT_EQ(plain_node_name_problem("Default"), "a Slurm keyword, not a node");
  EXPECT_EQ(plain_node_name_problem(""), "an empty name");
  EXPECT_EQ(plain_node_name_problem(std::string(64, 'n')), "longer than 63 characters");
  EXPECT_EQ(plain_node_name_problem("-x"), "does not start with a letter or digit");
  EXPECT_EQ(plain_node_name_problem(".hidden"), "does not start with a letter or digit");
  for (const std::string& bad : std::initializer_list<std::string>{"a b", "a=b", "gpu01 State=RESUME", "'gpu01'",
                                                                   "\"gpu01\"", "gpu01\n", "gpu\x1b[2J", "a;rm -rf /",
                                                                   "gpu01/..", "gpu\xc3\xa9", std::string("gpu\0x", 5)})
    EXPECT_FALSE(plain_node_name(bad)) << bad;
}

TEST(NodeName, SameHostIsTheNameOrItsFirstLabel) {
  EXPECT_TRUE(same_host("gpu07", "gpu07"));
  EXPECT_TRUE(same_host("GPU07", "gpu07"));
  EXPECT_TRUE(same_host("gpu07.cluster.example", "gpu07"));
  EXPECT_TRUE(same_host("gpu07", "gpu07.ib.example"));
  EXPECT_FALSE(same_host("gpu08", "gpu07"));
  EXPECT_FALSE(same_host("ALL", "gpu07"));
  EXPECT_FALSE(same_host("", "gpu07"));
  EXPECT_FALSE(same_host("gpu07", ""));
  EXPECT_FALSE(same_host("gpu[00-99]", "gpu07"));
  // IPv4 addresses share no "short name".
  EXPECT_FALSE(same_host("10.0.0.8", "10.0.0.7"));
  EXPECT_FALSE(same_host("10.evil", "10.0.0.7"));
  EXPECT_TRUE(same_host("10.0.0.7", "10.0.0.7"));
}

TEST(NodeName, VisibleNameEscapesControlBytesAndIsShort) {
  EXPECT_EQ(visible_name("gpu07"), "gpu07");
  EXPECT_EQ(visible_name("a\x1b[2Jb\n"), "a\\x1b[2Jb\\n");
  // C1 controls and bidi overrides too: the same rule as every message.
  EXPECT_EQ(visible_name("a\xc2\x9b"
                         "b\xe2\x80\xae"),
            "a\\u009bb\\u202e");
  std::string shown = visible_name(std::string(10'000, 'x'));
  EXPECT_EQ(shown, std::string(200, 'x') + "...");
  // A UTF-8 character is never cut in two.
  std::string accents;
  for (int i = 0; i < 150; ++i) accents += "\xc3\xa9";
  std::string cut = visible_name("x" + accents);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_EQ(cut.size() - 3, 199u);
}

}  // namespace
}  // namespace gdrcheck

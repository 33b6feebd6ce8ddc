#include "cluster/hostlist.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gdrcheck {
namespace {

using Hosts = std::vector<std::string>;

TEST(HostlistTest, SplitKeepsBracketsWhole) {
  EXPECT_EQ(split_hostlist("gpu[01-04,07],login1"), (std::vector<std::string>{"gpu[01-04,07]", "login1"}));
  EXPECT_EQ(split_hostlist("a"), (std::vector<std::string>{"a"}));
  EXPECT_THROW(split_hostlist("gpu[01-04"), std::invalid_argument);
}

TEST(HostlistTest, PlainNamesAndCommas) {
  EXPECT_EQ(expand_hostlist("a,b,login-1.example.org"), (Hosts{"a", "b", "login-1.example.org"}));
  EXPECT_EQ(expand_hostlist(""), Hosts{});
  EXPECT_EQ(expand_hostlist("a,,a"), Hosts{"a"});
}

TEST(HostlistTest, RangesKeepZeroPadding) {
  EXPECT_EQ(expand_hostlist("gpu[01-03,07]"), (Hosts{"gpu01", "gpu02", "gpu03", "gpu07"}));
  EXPECT_EQ(expand_hostlist("n[8-10]"), (Hosts{"n8", "n9", "n10"}));
  EXPECT_EQ(expand_hostlist("n[1-2]-ib,x"), (Hosts{"n1-ib", "n2-ib", "x"}));
}

TEST(HostlistTest, SeveralBracketGroupsMultiply) {
  EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(HostlistTest, BadListsAreErrorsNamingTheProblem) {
  for (const char* bad : {"n[1-3", "n1-3]", "n[3-1]", "n[a-b]", "n[]", "n[1-2000000]"}) {
    try {
      expand_hostlist(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gdrcheck

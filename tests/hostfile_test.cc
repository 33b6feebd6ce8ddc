#include "cluster/hostfile.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gdrcheck {
namespace {

using Hosts = std::vector<std::string>;

TEST(Hostfile, OneHostPerLineWithCommentsAndMpiSlots) {
  EXPECT_EQ(parse_hostfile("# rack 1\ngpu01 slots=8\n\n  gpu02\t# spare\r\ngpu01\n"), (Hosts{"gpu01", "gpu02"}));
}

TEST(Hostfile, BracketedListsExpand) {
  EXPECT_EQ(parse_hostfile("gpu[01-03]\nlogin1"), (Hosts{"gpu01", "gpu02", "gpu03", "login1"}));
}

TEST(Hostfile, ProblemsNameTheLine) {
  try {
    parse_hostfile("gpu01\n\ngpu[03-01]\n");
    FAIL() << "a reversed range was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: "), std::string::npos) << e.what();
  }
  try {
    parse_hostfile("gpu01\n-oProxyCommand=touch /tmp/x\n");
    FAIL() << "an option-like word was taken as a host";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 2: '-oProxyCommand=touch' is not a host name"), std::string::npos)
        << e.what();
  }
}

TEST(Hostfile, NoHostIsAnError) {
  EXPECT_THROW(parse_hostfile(""), std::invalid_argument);
  EXPECT_THROW(parse_hostfile("# only a comment\n\n   \n"), std::invalid_argument);
}

}  // namespace
}  // namespace gdrcheck

#include "cluster/hostlist.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

namespace gdrcheck {
namespace {

using Expanded = std::vector<std::string>;

TEST(HostlistTest, SplitKeepsBracketsWhole) {
  EXPECT_EQ(split_hostlist("gpu[01-04,07],login1"), (std::vector<std::string>{"gpu[01-04,07]", "login1"}));
  EXPECT_EQ(split_hostlist("a"), (std::vector<std::string>{"a"}));
  EXPECT_THROW(split_hostlist("gpu[01-04"), std::invalid_argument);
}

TEST(HostlistTest, PlainNamesAndCommas) {
  EXPECT_EQ(expand_hostlist("a,b,login-1.example.org"), (Expanded{"a", "b", "login-1.example.org"}));
  EXPECT_EQ(expand_hostlist(""), Expanded{});
  EXPECT_EQ(expand_hostlist("a,,a"), Expanded{"a"});
}

TEST(HostlistTest, RangesKeepZeroPadding) {
  EXPECT_EQ(expand_hostlist("gpu[01-03,07]"), (Expanded{"gpu01", "gpu02", "gpu03", "gpu07"}));
  EXPECT_EQ(expand_hostlist("n[8-10]"), (Expanded{"n8", "n9", "n10"}));
  EXPECT_EQ(expand_hostlist("n[1-2]-ib,x"), (Expanded{"n1-ib", "n2-ib", "x"}));
}

TEST(HostlistTest, SeveralBracketGroupsMultiply) {
  EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]"), (Expanded{"r1n1", "r1n2", "r2n1", "r2n2"}));
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

// A few hundred bytes can name 10^60 hosts: the count is made, with
// saturating arithmetic, before a single name is.
TEST(HostlistTest, HugeProductsAreRefusedBeforeExpanding) {
  std::string list;
  for (int i = 0; i < 20; ++i) list += "a[0-999999]";
  auto start = std::chrono::steady_clock::now();
  try {
    expand_hostlist(list);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000000 hosts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a[0-999999]a[0-999999]"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(count_hostlist(list), 1'000'001u);
  // Two items under the cap each, over it together.
  EXPECT_THROW(expand_hostlist("a[0-599999],b[0-599999]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("a[0-999999,0-999999]"), std::invalid_argument);
  EXPECT_EQ(count_hostlist("r[1-2]n[1-3],x,x"), 8u);
  EXPECT_EQ(count_hostlist("n[0-999999]"), 1'000'000u);
  EXPECT_EQ(expand_hostlist("n[0-9999]").size(), 10'000u);
}

TEST(HostlistTest, NamesLongerThanAHostNameAreRefused) {
  EXPECT_THROW(expand_hostlist(std::string(300, 'a') + "[1-2]"), std::invalid_argument);
  EXPECT_EQ(expand_hostlist(std::string(250, 'a') + "[1-2]").size(), 2u);
  // The message shows a long list cut and its control bytes escaped.
  try {
    expand_hostlist(std::string(5000, 'a') + "\x1b[3-1]");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_LT(std::string(e.what()).size(), 400u);
    EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos);
  }
}

// ssh and pdsh would read a name starting with '-' as an option; every
// item of a list is checked, not only the first.
TEST(HostlistTest, NamesThatLookLikeOptionsAreRefused) {
  EXPECT_THROW(expand_hostlist("-oProxyCommand=x"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("gpu1,-oProxyCommand=x"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("gpu[1-2],-l[1-2]"), std::invalid_argument);
  EXPECT_THROW(count_hostlist("gpu1,-x"), std::invalid_argument);
  EXPECT_EQ(expand_hostlist("gpu-1,gpu-2").size(), 2u);
}

}  // namespace
}  // namespace gdrcheck

namespace gdrcheck {
namespace {

TEST(FoldHostlist, FoldsRunsKeepingPaddingAndOrder) {
  std::vector<std::string> hosts;
  for (int i = 1; i <= 64; ++i) hosts.push_back(i < 10 ? "gpu00" + std::to_string(i) : "gpu0" + std::to_string(i));
  EXPECT_EQ(fold_hostlist(hosts), "gpu[001-064]");
  EXPECT_EQ(fold_hostlist({"login1", "gpu07", "gpu01", "gpu02", "gpu03", "gpu07", "gpu7", "n8", "n9", "n10"}),
            "login1,gpu[01-03,07],gpu7,n[8-10]");
  EXPECT_EQ(fold_hostlist({"r1n05", "r1n06", "r2n05", "a0b", "a1b", "head"}), "r1n[05-06],r2n05,a[0-1]b,head");
  EXPECT_EQ(fold_hostlist({}), "");
  EXPECT_EQ(fold_hostlist_items({"gpu[0-9]", "ALL", "gpu1", "gpu2"}),
            (std::vector<std::string>{"gpu[0-9]", "ALL", "gpu[1-2]"}));
}

TEST(FoldHostlist, RoundTrips) {
  for (const char* list : {"gpu[001-064]", "gpu[01-03,07],login1", "n[8-10]", "r1n[05-06],r2n05", "a[0-1]b,head",
                           "x[0998-1000]", "n[0-5,7,9-12]"}) {
    std::vector<std::string> hosts = expand_hostlist(list);
    EXPECT_EQ(expand_hostlist(fold_hostlist(hosts)), hosts) << list << " -> " << fold_hostlist(hosts);
  }
  EXPECT_EQ(fold_hostlist(expand_hostlist("gpu[001-064],login[1-2]")), "gpu[001-064],login[1-2]");
  EXPECT_EQ(fold_hostlist(expand_hostlist("n[0-5,7,9-12]")), "n[0-5,7,9-12]");
}

}  // namespace
}  // namespace gdrcheck

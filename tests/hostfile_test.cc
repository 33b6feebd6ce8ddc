#include "cluster/hostfile.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <stdexcept>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using HostNames = std::vector<std::string>;

TEST(Hostfile, OneHostPerLineWithCommentsAndMpiSlots) {
  EXPECT_EQ(parse_hostfile("# rack 1\ngpu01 slots=8\n\n  gpu02\t# spare\r\ngpu01\n"), (HostNames{"gpu01", "gpu02"}));
}

// Every blank ends the host word, form feed and vertical tab too; what
// parse_hostfile reads of a line is hostfile_host_word of it.
TEST(Hostfile, TheHostWordEndsAtAnyBlankOrComment) {
  EXPECT_EQ(hostfile_host_word("  gpu01\vslots=8"), "gpu01");
  EXPECT_EQ(hostfile_host_word("\fgpu[01-02]\f["), "gpu[01-02]");
  EXPECT_EQ(hostfile_host_word("gpu03#gpu04"), "gpu03");
  EXPECT_EQ(hostfile_host_word(" \t\r# only a comment"), "");
  EXPECT_EQ(hostfile_host_word(""), "");
  EXPECT_EQ(parse_hostfile("gpu[01-02]\v[\ngpu03\f-x\n"), (HostNames{"gpu01", "gpu02", "gpu03"}));
}

TEST(Hostfile, BracketedListsExpand) {
  EXPECT_EQ(parse_hostfile("gpu[01-03]\nlogin1"), (HostNames{"gpu01", "gpu02", "gpu03", "login1"}));
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

TEST(Hostfile, NamesAreCountedBeforeTheyAreMade) {
  // Each line is under the cap; the file together is not, and the line
  // that passes it is refused before its names are made.
  auto start = std::chrono::steady_clock::now();
  try {
    parse_hostfile("gpu[1-2]\n# spare\nn[0-999999]\n");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 1000000 hosts"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_hostfile("a[0-999999]b[0-999999]\n"), std::invalid_argument);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Duplicates count: a name repeated on many lines still makes names.
  EXPECT_EQ(parse_hostfile("n[1-3]\nn[1-3]\n"), (HostNames{"n1", "n2", "n3"}));
}

TEST(Hostfile, TooManyLinesIsNotAHostFile) {
  std::string text(1'000'001, '\n');
  text += "gpu01\n";
  try {
    parse_hostfile(text);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000000 lines"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_hostfile(std::string(999'999, '\n') + "gpu01"), HostNames{"gpu01"});
}

TEST(Hostfile, ReadFromAFileNamesTheFile) {
  std::string dir = testing::scratch_dir();
  std::ofstream(dir + "/hosts") << "gpu[01-02]\n";
  EXPECT_EQ(read_hostfile(dir + "/hosts"), (HostNames{"gpu01", "gpu02"}));
  std::ofstream(dir + "/bad") << "gpu01\n-x\n";
  try {
    read_hostfile(dir + "/bad");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir + "/bad");
    EXPECT_EQ(e.problem(), "line 2: '-x' is not a host name");
  }
  EXPECT_THROW(read_hostfile(dir + "/missing"), InputError);
  EXPECT_THROW(read_hostfile(dir), InputError);
}

// A FIFO named as the host file must not block the run.
TEST(Hostfile, AFifoIsRefusedWithoutBlocking) {
  std::string fifo = testing::scratch_dir() + "/hosts";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] {
    try {
      read_hostfile(fifo);
      return std::string("accepted");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  });
  if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the blocked reader go
    ADD_FAILURE() << "reading a FIFO host file blocked";
    if (fd >= 0) ::close(fd);
  }
  std::string what = read.get();
  EXPECT_NE(what.find(fifo), std::string::npos) << what;
  EXPECT_NE(what, "accepted");
}

}  // namespace
}  // namespace gdrcheck

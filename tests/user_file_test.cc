// Files named on the command line: FIFOs and pipes are read (a FIFO
// nobody writes to reads as empty, never blocks), directories and devices
// are refused with the file named.
#include "host/user_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>

#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string problem_of(const std::string& path) {
  try {
    read_user_file(path, 1 << 20, "manifest");
  } catch (const InputError& e) {
    return e.what();
  }
  return "read";
}

TEST(UserInput, FifoWithoutAWriterReadsEmptyWithoutBlocking) {
  std::string fifo = testing::scratch_dir() + "/m.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return read_user_file(fifo, 1 << 20, "manifest"); });
  if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the blocked reader go
    ADD_FAILURE() << "reading a FIFO without a writer blocked";
    if (fd >= 0) ::close(fd);
  }
  EXPECT_EQ(read.get(), "");
}

TEST(UserInput, PipeWithAWriterIsReadToItsEnd) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "{\"a\":1}", 7), 7);
  ::close(fds[1]);
  // What `<(zcat x)` and /dev/stdin name.
  EXPECT_EQ(read_user_file("/proc/self/fd/" + std::to_string(fds[0]), 1 << 20, "manifest"), "{\"a\":1}");
  ::close(fds[0]);
}

TEST(UserInput, StreamAtTheLimitIsRefused) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string big(2000, 'x');
  ASSERT_EQ(::write(fds[1], big.data(), big.size()), 2000);
  ::close(fds[1]);
  std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  try {
    read_user_file(path, 1024, "manifest");
    ADD_FAILURE() << "read past the limit";
  } catch (const InputError& e) {
    EXPECT_NE(e.problem().find("; not a manifest"), std::string::npos) << e.what();
  }
  ::close(fds[0]);
}

TEST(UserInput, DirectoryDeviceAndMissingAreNamed) {
  std::string dir = testing::scratch_dir();
  EXPECT_EQ(problem_of(dir), dir + ": is a directory, not a manifest");
  EXPECT_EQ(problem_of("/dev/zero"), "/dev/zero: a character device, not a manifest");
  EXPECT_EQ(problem_of(dir + "/none.json"), dir + "/none.json: not found");
  std::string file = dir + "/m.json";
  std::ofstream(file) << "{}";
  EXPECT_EQ(read_user_file(file, 1 << 20, "manifest"), "{}");
}

}  // namespace
}  // namespace gdrcheck
